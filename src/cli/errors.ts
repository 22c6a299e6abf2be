/** Errors the client's commands throw; `exit-codes.ts` turns every error into a message and an exit code. */
import { fit, oneLine } from './text.js';

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

/**
 * A server answer the command does not handle itself: `Request failed: HTTP <status> <reason>: <detail>`, exit 1;
 * a body that is not JSON makes it `Request failed: server answered <status> with a non-JSON body (<type>)`.
 */
export class HttpStatusError extends Error {
  override readonly name = 'HttpStatusError';
  constructor(
    readonly status: number,
    readonly reason: string,
    readonly body: string,
    contentType?: string,
  ) {
    super(isJsonOrEmpty(body) ? `HTTP ${status} ${reason}${detailOf(body)}` : nonJsonBodyMessage(status, contentType));
  }
}

/** A body that should be a JSON object and is not (a proxy's HTML error page, a truncated answer), exit 1. */
export class UnexpectedBodyError extends Error {
  override readonly name = 'UnexpectedBodyError';
}

/** `server answered 502 with a non-JSON body (text/html)`. */
export function nonJsonBodyMessage(status: number, contentType: string | undefined): string {
  return `server answered ${status} with a non-JSON body (${mediaType(contentType)})`;
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

/**
 * `: <detail>` of a JSON error body (on one line), else `: non-JSON body (<type>)`, else nothing. The text is
 * printed inside one-line messages (`[skip] <id>: HTTP 409: <detail>`), so line breaks are folded.
 */
export function detailOf(body: string, contentType?: string): string {
  const text = body.trim();
  if (text === '') return '';
  const parsed = parseJson(text);
  if (parsed === NOT_JSON) return `: non-JSON body (${mediaType(contentType)})`;
  if (parsed && typeof parsed === 'object') {
    const record = parsed as Record<string, unknown>;
    for (const field of ['detail', 'error', 'message']) {
      if (typeof record[field] === 'string') return `: ${oneLine(record[field])}`;
    }
  }
  return `: ${fit(oneLine(text), 300)}`;
}

/** `text/html` of `text/html; charset=utf-8`; `no content type` when absent. */
function mediaType(contentType: string | undefined): string {
  const type = contentType?.split(';')[0]?.trim().toLowerCase();
  return type ? type : 'no content type';
}

function isJsonOrEmpty(body: string): boolean {
  return body.trim() === '' || parseJson(body) !== NOT_JSON;
}

const NOT_JSON = Symbol('not JSON');

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return NOT_JSON;
  }
}
