import type { RegisterCommand } from '../host.js';

/** The subcommands in help order, each loaded only when needed (`pks wiki search` never loads `lint` or `create`). */
const SUBCOMMANDS: readonly (readonly [name: string, load: () => Promise<RegisterCommand>])[] = [
  ['list', async () => (await import('./list.js')).registerWikiList],
  ['show', async () => (await import('./show.js')).registerWikiShow],
  ['search', async () => (await import('./search.js')).registerWikiSearch],
  ['links', async () => (await import('./links.js')).registerWikiLinks],
  ['lint', async () => (await import('./lint.js')).registerWikiLint],
  ['stats', async () => (await import('./stats.js')).registerWikiStats],
  ['create', async () => (await import('./create.js')).registerWikiCreate],
  ['ingest', async () => (await import('./ingest.js')).registerWikiIngest],
];

/**
 * The `wiki` group for the arguments that follow `wiki` on the command line: when they start with a subcommand's
 * name, only that subcommand is registered (its run and its own help need no other); otherwise (`pks wiki --help`,
 * `pks wiki help …`, an unknown name) all of them, so the group's help and errors are unchanged.
 */
export async function loadWiki(rest: readonly string[]): Promise<RegisterCommand> {
  const named = SUBCOMMANDS.filter(([name]) => name === rest[0]);
  const registers = await Promise.all((named.length > 0 ? named : SUBCOMMANDS).map(([, load]) => load()));
  return (program, host) => {
    const wiki = program
      .command('wiki')
      .description('browse, search and lint the local wiki checkout (wiki_dir of config.yaml)');
    for (const register of registers) register(wiki, host);
  };
}
