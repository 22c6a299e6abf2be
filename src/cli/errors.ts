/** Errors the client's commands throw; `exit-codes.ts` turns every error into a message and an exit code. */

/** The exit codes of CONTRACT §16.7. */
export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  versionRefused: 4,
  quotaExhausted: 75,
  interrupted: 130,
} as const;

/** Ends a command with an exit code; `message` (when set) is printed to stderr as is. */
export class CliExit extends Error {
  override readonly name = 'CliExit';
  constructor(
    readonly code: number,
    message = '',
  ) {
    super(message);
  }
}

/** A config file that cannot be used: unparseable, not a mapping, or a value of the wrong type (exit 1). */
export class ConfigFileError extends Error {
  override readonly name = 'ConfigFileError';
}

/** A usage problem found before any I/O (bad flag value, missing argument): `Error: <message>`, exit 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The server could not be reached or the connection broke: `Request failed: <message>`, exit 1. */
export class TransportError extends Error {
  override readonly name = 'TransportError';
}

/** A server answer the command does not handle itself: `Request failed: HTTP <status> <reason>: <detail>`, exit 1. */
export class HttpStatusError extends Error {
  override readonly name = 'HttpStatusError';
  constructor(
    readonly status: number,
    readonly reason: string,
    readonly body: string,
  ) {
    super(`HTTP ${status} ${reason}${detailOf(body)}`);
  }
}

/** A write call to a server whose (major, minor) is newer than the client's (CONTRACT §16.2): exit 4. */
export class VersionRefusedError extends Error {
  override readonly name = 'VersionRefusedError';
}

/** The parser's daily quota is exhausted on every key (`contrib parser`): exit 75. */
export class QuotaExhaustedError extends Error {
  override readonly name = 'QuotaExhaustedError';
}

/** SIGINT/SIGTERM ended the command: exit 130. */
export class InterruptedError extends Error {
  override readonly name = 'InterruptedError';
}

/** `: <detail>` of a JSON error body, else `: <first 300 chars of the text>`, else nothing. */
export function detailOf(body: string): string {
  const text = body.trim();
  if (text === '') return '';
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed && typeof parsed === 'object') {
      const record = parsed as Record<string, unknown>;
      for (const field of ['detail', 'error', 'message']) {
        if (typeof record[field] === 'string') return `: ${record[field]}`;
      }
    }
  } catch {
    // not JSON
  }
  return `: ${text.length > 300 ? `${text.slice(0, 300)}…` : text}`;
}
