import type { RegisterCommand } from '../host.js';
import { registerPaperFetch } from './fetch.js';
import { registerPaperFigures } from './figures.js';
import { registerPaperGet } from './get.js';
import { registerPaperGetImages } from './get-images.js';
import { registerPaperJobs } from './jobs.js';
import { registerPaperList } from './list.js';
import { registerPaperLookup } from './lookup.js';
import { registerPaperShow } from './show.js';
import { registerPaperStatus } from './status.js';

/** `pks paper …`: the paper registry (CONTRACT §16.8) and getting papers and their images (§16.6). */
export const registerPaper: RegisterCommand = (program, host) => {
  const paper = program.command('paper').description(PAPER_SUMMARY);
  registerPaperList(paper, host);
  registerPaperShow(paper, host);
  registerPaperStatus(paper, host);
  registerPaperLookup(paper, host);
  registerPaperFigures(paper, host);
  const get = paper.command('get').description('download a paper as markdown or PDF, or its images');
  registerPaperGet(get, host);
  registerPaperGetImages(get, host);
  registerPaperFetch(paper, host);
  registerPaperJobs(paper, host);
};

export const PAPER_SUMMARY = 'browse the papers the server holds; get them as markdown or PDF, with their figures';
