/** What a quantum tool module gives its command (src/cli/commands/quantum/). */
import type { CliContext } from '../context.js';

/**
 * A tool's `tool` export, which its command loads only when it runs: the command line checked (no I/O), then the
 * run with the CLI's context; the number is the exit code.
 */
export interface QuantumTool<Options> {
  validate(input: string | undefined, o: Record<string, unknown>): Options;
  run(options: Options, ctx: CliContext): Promise<number>;
}
