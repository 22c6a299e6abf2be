import { Command, CommanderError } from 'commander';
import { VERSION } from '../shared/version.js';
import { ExitError, type CommandIO } from './commands/io.js';
import { processInputs } from './config/index.js';

type CommandFactory = (io: CommandIO) => Command;

/**
 * The subcommands in the order help lists them, each module loaded only when needed: a run of one subcommand loads
 * that one alone (`pksd serve` does not load the AWS SDK for `storage` or the graph driver for `papers` — start-up
 * time and memory, docs/decisions.md), anything else (help, an unknown command) loads them all.
 */
const SUBCOMMANDS: Readonly<Record<string, () => Promise<CommandFactory>>> = {
  serve: async () => (await import('./commands/serve.js')).serveCommand,
  config: async () => (await import('./commands/config.js')).configCommand,
  pat: async () => (await import('./commands/pat.js')).patCommand,
  users: async () => (await import('./commands/users.js')).usersCommand,
  papers: async () => (await import('./commands/papers.js')).papersCommand,
  storage: async () => (await import('./commands/storage.js')).storageCommand,
  superuser: async () => (await import('./commands/superuser.js')).superuserCommand,
  db: async () => (await import('./commands/db.js')).dbCommand,
  wiki: async () => (await import('./commands/wiki.js')).wikiCommand,
  scholarly: async () => (await import('./commands/scholarly.js')).scholarlyCommand,
};

/**
 * Builds the `pksd` program for `argv`; every subcommand is a constructor taking the injected IO. When `argv` names
 * a subcommand only that one is built: its parsing, help and errors do not depend on the others.
 */
export async function pksdProgram(io: CommandIO, argv: readonly string[] = []): Promise<Command> {
  const named = argv[0] !== undefined && Object.hasOwn(SUBCOMMANDS, argv[0]) ? [SUBCOMMANDS[argv[0]]!] : null;
  const factories = await Promise.all((named ?? Object.values(SUBCOMMANDS)).map((load) => load()));
  const program = new Command('pksd')
    .description('pksd — the paper knowledge service server')
    .version(`pksd version ${VERSION}`, '--version', 'print the version')
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .exitOverride()
    .showHelpAfterError();
  for (const make of factories) program.addCommand(make(io));
  program.addCommand(
    new Command('version').description('print the version').action(() => io.stdout(`pksd version ${VERSION}\n`)),
  );
  for (const cmd of program.commands) cmd.exitOverride().configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
  for (const cmd of program.commands.flatMap((c) => c.commands)) {
    cmd.exitOverride().configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
  }
  return program;
}

/** Runs `pksd` with `argv` (without node and script); resolves to the exit code. */
export async function runPksd(argv: readonly string[], io: CommandIO): Promise<number> {
  try {
    await (await pksdProgram(io, argv)).parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof ExitError) return err.code;
    if (err instanceof CommanderError) {
      // Help and version exit 0; every other parse problem is a usage error (exit 2).
      return err.exitCode === 0 ? 0 : 2;
    }
    io.stderr(`pksd: ${(err as Error).stack ?? String(err)}\n`);
    return 1;
  }
}

export async function main(): Promise<void> {
  const io: CommandIO = {
    stdout: (t) => void process.stdout.write(t),
    stderr: (t) => void process.stderr.write(t),
    base: processInputs(new Map()),
  };
  process.exitCode = await runPksd(process.argv.slice(2), io);
  // Everything was closed; a client library's stray socket must not keep a stopped server alive.
  setTimeout(() => process.exit(), 2_000).unref();
}
