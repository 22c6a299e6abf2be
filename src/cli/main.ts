import type { CliContext, CliIO } from './context.js';
import type { CommandHost } from './commands/host.js';
import { EXIT } from './errors.js';
import { terminalSafeIO } from './text.js';

export type { CliIO };

export interface RunOptions {
  /** The run's context (tests inject one); default: files and network of this process. */
  readonly context?: (io: CliIO) => CliContext;
}

/**
 * Runs `pks` with `argv` (without node and script); resolves to the exit code (CONTRACT §16.7). Everything the
 * run writes to the terminal passes the one sanitiser (`terminalSafeIO`).
 */
export async function runPks(argv: readonly string[], rawIO: CliIO, options: RunOptions = {}): Promise<number> {
  const io = terminalSafeIO(rawIO);
  let exitCode: number = EXIT.ok;
  let context: CliContext | null = null;
  const host: CommandHost = {
    async context(opts = {}) {
      if (!opts.noConfigFile) {
        const [{ ensureConfigFile }, { configFilePath }] = await Promise.all([
          import('./config/file.js'),
          import('./config/paths.js'),
        ]);
        ensureConfigFile(configFilePath());
      }
      if (context) return context;
      const make = options.context ?? (await import('./context.js')).processContext;
      return (context = make(io));
    },
    setExitCode(code) {
      exitCode = code;
    },
  };
  try {
    if (argv.length === 1 && (argv[0] === '-V' || argv[0] === '--version')) {
      // The commonest probe answered without loading the command-line parser.
      const { VERSION } = await import('../shared/version.js');
      io.stdout(`pks ${VERSION}\n`);
      return EXIT.ok;
    }
    const { buildProgram } = await import('./program.js');
    const program = await buildProgram(argv, io, host);
    if (argv.length === 0) {
      program.outputHelp();
      return EXIT.ok;
    }
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (err) {
    const { exitFor } = await import('./exit-codes.js');
    const { code, message } = exitFor(err);
    if (message) io.stderr(message);
    return code;
  }
}

export async function main(): Promise<void> {
  // A reader that stops early (`pks paper list | head -1`) ends the run quietly, as the shell's tools do.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    process.exit(process.exitCode ?? EXIT.ok);
  });
  const io: CliIO = {
    stdout: (t) => void process.stdout.write(t),
    stderr: (t) => void process.stderr.write(t),
    stderrControl: (t) => void process.stderr.write(t),
    stdoutControl: (t) => void process.stdout.write(t),
    stdoutStream: process.stdout,
    stdin: process.stdin,
    stdinIsTTY: process.stdin.isTTY === true,
    stdoutIsTTY: process.stdout.isTTY === true,
    stderrIsTTY: process.stderr.isTTY === true,
    columns: () => process.stderr.columns || process.stdout.columns || 80,
  };
  const code = await runPks(process.argv.slice(2), io);
  // Let stdout/stderr drain, then end even if a keep-alive socket or a stdin listener is still open.
  process.exitCode = code;
  await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
  await new Promise<void>((resolve) => process.stderr.write('', () => resolve()));
  process.exit(code);
}
