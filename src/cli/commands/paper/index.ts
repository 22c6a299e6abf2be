import type { RegisterCommand } from '../host.js';
import { registerPaperGet } from './get.js';
import { registerPaperStatus } from './status.js';

export const registerPaper: RegisterCommand = (program, host) => {
  const paper = program.command('paper').description('get a paper as markdown or PDF from the server');
  registerPaperGet(paper, host);
  registerPaperStatus(paper, host);
};
