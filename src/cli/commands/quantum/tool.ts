/** What the quantum tool commands (CONTRACT §17) share: the circuit argument and the on-demand tool module. */
import { Argument, type Command } from 'commander';
import type { QuantumTool } from '../../quantum/tool.js';
import { defineAction, type CommandHost } from '../host.js';

/** The circuit a tool reads: a Quantum IR file, or a file holding only its circuit object. */
export const circuitArgument = (name: string): Argument => new Argument(name, 'Quantum IR (or a bare circuit object)');

/**
 * Adds the tool command `name` to `program`, its action the `tool` of the module `load` imports (its description,
 * arguments and options still to add). The module (and with it the quantum library) is loaded when the command
 * runs, never when it is registered, so `pks --version` stays cheap; validation and the run use the same module.
 */
export function toolCommand<Options>(
  program: Command,
  host: CommandHost,
  name: string,
  load: () => Promise<{ tool: QuantumTool<Options> }>,
): Command {
  return program.command(name).action(
    defineAction(
      host,
      async ([input], o) => (await load()).tool.validate(input, o),
      async (ctx, options) => (await load()).tool.run(options, ctx),
    ),
  );
}
