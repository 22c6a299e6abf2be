/** The IO of an in-process `pks` run whose output the test reads. */
import { PassThrough } from 'node:stream';
import type { CliIO } from '../../../src/cli/context.js';

/** What the run wrote as text. */
export interface CapturedText {
  stdout: string;
  stderr: string;
}

/**
 * A CliIO that appends text to `out` (control sequences to `out.stderr`, as a terminal would show them), with an
 * empty stdin, no terminal anywhere and 80 columns; `overrides` replace single members.
 */
export function capturingIO(out: CapturedText, overrides: Partial<CliIO> = {}): CliIO {
  return {
    stdout: (t) => void (out.stdout += t),
    stderr: (t) => void (out.stderr += t),
    stderrControl: (t) => void (out.stderr += t),
    stdoutStream: new PassThrough(),
    stdin: new PassThrough(),
    stdinIsTTY: false,
    stdoutIsTTY: false,
    stderrIsTTY: false,
    columns: () => 80,
    ...overrides,
  };
}
