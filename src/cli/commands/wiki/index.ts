import type { RegisterCommand } from '../host.js';
import { registerWikiCreate } from './create.js';
import { registerWikiIngest } from './ingest.js';
import { registerWikiLinks } from './links.js';
import { registerWikiLint } from './lint.js';
import { registerWikiList } from './list.js';
import { registerWikiSearch } from './search.js';
import { registerWikiShow } from './show.js';
import { registerWikiStats } from './stats.js';

export const registerWiki: RegisterCommand = (program, host) => {
  const wiki = program
    .command('wiki')
    .description('browse, search and lint the local wiki checkout (wiki_dir of config.yaml)');
  for (const register of [
    registerWikiList,
    registerWikiShow,
    registerWikiSearch,
    registerWikiLinks,
    registerWikiLint,
    registerWikiStats,
    registerWikiCreate,
    registerWikiIngest,
  ]) {
    register(wiki, host);
  }
};
