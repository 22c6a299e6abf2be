/**
 * The one place that maps what went wrong to an exit code and a message (CONTRACT §16.7): domain errors of
 * `src/shared/domain-errors.ts`, the client's own errors, commander's parse errors and anything unexpected.
 */
import { CommanderError } from 'commander';
import { isDomainError } from '../shared/domain-errors.js';
import {
  CliExit,
  ConfigFileError,
  EXIT,
  HttpStatusError,
  InterruptedError,
  QuotaExhaustedError,
  TransportError,
  UnexpectedBodyError,
  UsageError,
  VersionRefusedError,
} from './errors.js';

/** The exit code for `err` and the text to print on stderr (empty when the command already printed it). */
export function exitFor(err: unknown): { code: number; message: string } {
  if (err instanceof CliExit) return { code: err.code, message: line(err.message) };
  if (err instanceof CommanderError) {
    // commander already printed its message; help and version end with 0.
    return { code: err.exitCode === 0 ? EXIT.ok : EXIT.usage, message: '' };
  }
  if (err instanceof UsageError) return { code: EXIT.usage, message: line(`Error: ${err.message}`) };
  if (err instanceof TransportError || err instanceof HttpStatusError || err instanceof UnexpectedBodyError) {
    return { code: EXIT.failure, message: line(`Request failed: ${err.message}`) };
  }
  if (err instanceof VersionRefusedError) return { code: EXIT.versionRefused, message: line(err.message) };
  if (err instanceof QuotaExhaustedError) return { code: EXIT.quotaExhausted, message: line(err.message) };
  if (err instanceof InterruptedError) return { code: EXIT.interrupted, message: line(err.message) };
  if (err instanceof ConfigFileError) return { code: EXIT.failure, message: line(`Error: ${err.message}`) };
  if (isDomainError(err)) {
    return err.kind === 'invalid_input'
      ? { code: EXIT.usage, message: line(`Invalid input: ${err.message}`) }
      : { code: EXIT.failure, message: line(`Error: ${err.message}`) };
  }
  const e = err as NodeJS.ErrnoException;
  if (e && typeof e.code === 'string' && typeof e.message === 'string') {
    return { code: EXIT.failure, message: line(`Error: ${e.message}`) }; // file system errors
  }
  return { code: EXIT.failure, message: line(`pks: ${(err as Error)?.stack ?? String(err)}`) };
}

const line = (text: string) => (text === '' || text.endsWith('\n') ? text : `${text}\n`);
