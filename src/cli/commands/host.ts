/**
 * How a command module plugs into the program: `defineAction` validates the parsed arguments and options first
 * (no I/O: at most loading the command's module), then asks for the run's context and runs; the returned number is
 * the exit code.
 */
import type { Command } from 'commander';
import type { CliContext } from '../context.js';

export interface CommandHost {
  /** The run's context; created on first use (after validation), creating `config.yaml` unless `noConfigFile`. */
  context(options?: { noConfigFile?: boolean }): Promise<CliContext>;
  /** Records the exit code of the command that ran. */
  setExitCode(code: number): void;
}

/** A command module: adds its subcommand (arguments, options, help, action) to `parent`. */
export type RegisterCommand = (parent: Command, host: CommandHost) => void;

export function defineAction<T>(
  host: CommandHost,
  validate: (args: string[], options: Record<string, unknown>) => T | Promise<T>,
  run: (ctx: CliContext, input: T) => Promise<number | void>,
  contextOptions: { noConfigFile?: boolean } = {},
): (...args: unknown[]) => Promise<void> {
  return async (...raw: unknown[]) => {
    // commander passes the declared arguments, then the options object, then the command.
    const command = raw[raw.length - 1] as Command;
    const options = command.opts();
    const args = raw.slice(0, -2).flatMap((a) => (Array.isArray(a) ? a : a === undefined ? [] : [String(a)]));
    const input = await validate(args, options);
    const ctx = await host.context(contextOptions);
    host.setExitCode((await run(ctx, input)) ?? 0);
  };
}
