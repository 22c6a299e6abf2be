/**
 * The `pks` program. Only the command group named on the command line is loaded (the others appear in the
 * help as one-line entries), so `pks --version` and `pks --help` stay cheap.
 */
import { Command } from 'commander';
import { VERSION } from '../shared/version.js';
import type { CommandHost, RegisterCommand } from './commands/host.js';
import { configDir } from './config/paths.js';

interface Group {
  readonly name: string;
  readonly summary: string;
  /** `rest`: the arguments after the group's name (a group may load only the subcommand they name). */
  readonly load: (rest: readonly string[]) => Promise<RegisterCommand>;
}

export const GROUPS: readonly Group[] = [
  {
    name: 'auth',
    summary: 'log in to a pks server and manage stored credentials',
    load: async () => (await import('./commands/auth/index.js')).registerAuth,
  },
  {
    name: 'config',
    summary: 'show and change the client configuration',
    load: async () => (await import('./commands/config/index.js')).registerConfig,
  },
  {
    name: 'paper',
    summary: 'browse the papers the server holds; get them as markdown or PDF, with their figures',
    load: async () => (await import('./commands/paper/index.js')).registerPaper,
  },
  {
    name: 'contrib',
    summary: 'contribute PDFs and parser results to the server',
    load: async () => (await import('./commands/contrib/index.js')).registerContrib,
  },
  {
    name: 'ingest',
    summary: 'run server-side fetch and parse of a paper',
    load: async () => (await import('./commands/ingest/index.js')).registerIngest,
  },
  {
    name: 'wiki',
    summary: 'browse, search and lint a local wiki checkout',
    load: async (rest) => (await import('./commands/wiki/index.js')).loadWiki(rest),
  },
  {
    name: 'mcp',
    summary: 'serve the papers, wiki and graph to an AI agent (Model Context Protocol on stdio)',
    load: async () => (await import('./commands/mcp.js')).registerMcp,
  },
  {
    name: 'upload',
    summary: "deprecated: use 'pks contrib'",
    load: async () => (await import('./commands/upload/index.js')).registerUpload,
  },
];

/** Rewrites commander's messages to the client's wording (`Error: …` + where to get help). */
export function configureErrors(command: Command, io: ProgramIO): void {
  const path = commandPath(command);
  command.configureOutput({
    writeOut: io.stdout,
    writeErr: io.stderr,
    outputError: (text, write) => {
      const message = text.replace(/^error: /, '').trimEnd();
      const hint = message.startsWith('unknown command')
        ? `Run '${path} --help' to see available commands.`
        : `Run '${path} --help' for usage.`;
      write(`Error: ${message}\n${hint}\n`);
    },
  });
  command.exitOverride().showSuggestionAfterError(false);
  for (const sub of command.commands) configureErrors(sub, io);
}

function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

export interface ProgramIO {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

/** Builds the program for `argv`: the named group fully, the others as help entries. */
export async function buildProgram(argv: readonly string[], io: ProgramIO, host: CommandHost): Promise<Command> {
  const dir = configDir();
  const program = new Command('pks')
    .description('pks — command line client of the paper knowledge service')
    .version(`pks ${VERSION}`, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    // Options belong to the command they follow (`ingest` and `ingest continue` share option names).
    .enablePositionalOptions()
    .addHelpText(
      'after',
      `\nFiles:\n  ${dir}/config.yaml   settings (created on first run; see 'pks config show')\n` +
        `  ${dir}/hosts.yml     credentials per server host, mode 0600 (written by 'pks auth login')\n`,
    );
  const operands = argv.filter((arg) => !arg.startsWith('-'));
  // `pks help <group>` shows that group's full help.
  const operand = operands[0] === 'help' ? operands[1] : operands[0];
  for (const group of GROUPS) {
    // `pks help <group>` shows the group's whole help: nothing after the name to narrow it.
    const rest = operands[0] === 'help' ? [] : argv.slice(argv.indexOf(group.name) + 1);
    if (group.name === operand) (await group.load(rest))(program, host);
    else program.command(group.name).description(group.summary);
  }
  // designer, codegen, validator, estimator, extractor (their actions load their modules): only needed when the
  // command line names no group, as a group's run and help never list or reach them.
  if (!GROUPS.some((group) => group.name === operand)) {
    (await import('./commands/quantum/index.js')).registerQuantumTools(program, host);
  }
  configureErrors(program, io);
  return program;
}
