import type { ConfigInputs } from '../config/load.js';

/** What a `pksd` command may touch, injected so tests can run commands in-process. */
export interface CommandIO {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Environment, working directory and home; flags are added per command. */
  readonly base: Omit<ConfigInputs, 'flags'>;
}

/** Thrown to end a command with an exit code after its message was printed. */
export class ExitError extends Error {
  constructor(
    readonly code: number,
    message = '',
  ) {
    super(message);
  }
}

/** The `--json` output of a listing: one JSON object per line. */
export function printJsonLines(io: CommandIO, rows: readonly unknown[]): void {
  for (const row of rows) io.stdout(JSON.stringify(row) + '\n');
}
