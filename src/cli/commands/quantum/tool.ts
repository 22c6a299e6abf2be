/** What the quantum tool commands (CONTRACT §17) share: the circuit argument and the on-demand tool module. */
import { Argument } from 'commander';
import type { CliContext } from '../../context.js';
import { defineAction, type CommandHost } from '../host.js';

/** The circuit a tool reads: a Quantum IR file, or a file holding only its circuit object. */
export const circuitArgument = (name: string): Argument => new Argument(name, 'Quantum IR (or a bare circuit object)');

/**
 * A tool command's action. The tool's module (and with it the quantum library) is loaded when the command runs,
 * never when it is registered, so `pks --version` stays cheap; validation and the run use the same module.
 */
export function toolAction<Tool, Input>(
  host: CommandHost,
  load: () => Promise<Tool>,
  validate: (tool: Tool, input: string | undefined, options: Record<string, unknown>) => Input,
  run: (tool: Tool, input: Input, ctx: CliContext) => Promise<number | void>,
): (...args: unknown[]) => Promise<void> {
  return defineAction(
    host,
    async ([input], o) => validate(await load(), input, o),
    async (ctx, input) => run(await load(), input, ctx),
  );
}
