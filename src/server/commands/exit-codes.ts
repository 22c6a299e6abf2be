/**
 * `pksd` exit codes for the domain errors (CONTRACT §15): the CLI's counterpart of `src/server/http/errors.ts`.
 * 0 success; 1 runtime failure; 2 usage or configuration error (bad input is a usage error).
 */
import { DomainError, type DomainErrorKind } from '../../shared/domain-errors.js';
import { ExitError, type CommandIO } from './io.js';

export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

const EXIT_CODES: Readonly<Record<DomainErrorKind, number>> = {
  invalid_input: EXIT_USAGE,
  unauthenticated: EXIT_FAILURE,
  forbidden: EXIT_FAILURE,
  not_found: EXIT_FAILURE,
  conflict: EXIT_FAILURE,
  gone: EXIT_FAILURE,
  too_large: EXIT_USAGE,
  unsupported_media_type: EXIT_USAGE,
  rate_limited: EXIT_FAILURE,
  upstream_failure: EXIT_FAILURE,
  unavailable: EXIT_FAILURE,
};

/** The exit code of an error: by kind for a domain error, 1 for anything else. */
export function exitCodeOf(err: unknown): number {
  return err instanceof DomainError ? EXIT_CODES[err.kind] : EXIT_FAILURE;
}

/**
 * Ends a command on `err`: prints `pksd: [<context>: ]<message>` on stderr and throws the `ExitError` of its
 * exit code. An `ExitError` (already reported) passes through.
 */
export function exitWith(io: CommandIO, err: unknown, context?: string): never {
  if (err instanceof ExitError) throw err;
  const message = err instanceof Error ? err.message : String(err);
  io.stderr(`pksd: ${context ? `${context}: ` : ''}${message}\n`);
  throw new ExitError(exitCodeOf(err));
}
