import { Command, CommanderError } from 'commander';
import { VERSION } from '../shared/version.js';

export interface CliIO {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

/** Builds the `pks` program. Command groups are added by later work (auth, contrib, paper, wiki, tools). */
export function pksProgram(io: CliIO): Command {
  return new Command('pks')
    .description('pks — command line client of the paper knowledge service')
    .version(`pks version ${VERSION}`, '--version', 'print the version')
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .exitOverride()
    .showHelpAfterError()
    .action(function (this: Command) {
      this.outputHelp();
    });
}

/** Runs `pks` with `argv` (without node and script); resolves to the exit code (2 for usage errors). */
export async function runPks(argv: readonly string[], io: CliIO): Promise<number> {
  try {
    await pksProgram(io).parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    io.stderr(`pks: ${(err as Error).message}\n`);
    return 1;
  }
}

export async function main(): Promise<void> {
  process.exitCode = await runPks(process.argv.slice(2), {
    stdout: (t) => void process.stdout.write(t),
    stderr: (t) => void process.stderr.write(t),
  });
}
