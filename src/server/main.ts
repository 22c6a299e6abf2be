import { Command, CommanderError } from 'commander';
import { VERSION } from '../shared/version.js';
import { configCommand } from './commands/config.js';
import { dbCommand } from './commands/db.js';
import { ExitError, type CommandIO } from './commands/io.js';
import { papersCommand } from './commands/papers.js';
import { patCommand } from './commands/pat.js';
import { scholarlyCommand } from './commands/scholarly.js';
import { serveCommand } from './commands/serve.js';
import { storageCommand } from './commands/storage.js';
import { superuserCommand } from './commands/superuser.js';
import { usersCommand } from './commands/users.js';
import { wikiCommand } from './commands/wiki.js';
import { processInputs } from './config/index.js';

/** Builds the `pksd` program; every subcommand is a constructor taking the injected IO. */
export function pksdProgram(io: CommandIO): Command {
  const program = new Command('pksd')
    .description('pksd — the paper knowledge service server')
    .version(`pksd version ${VERSION}`, '--version', 'print the version')
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .exitOverride()
    .showHelpAfterError();
  program.addCommand(serveCommand(io));
  program.addCommand(configCommand(io));
  program.addCommand(patCommand(io));
  program.addCommand(usersCommand(io));
  program.addCommand(papersCommand(io));
  program.addCommand(storageCommand(io));
  program.addCommand(superuserCommand(io));
  program.addCommand(dbCommand(io));
  program.addCommand(wikiCommand(io));
  program.addCommand(scholarlyCommand(io));
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
    await pksdProgram(io).parseAsync([...argv], { from: 'user' });
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
