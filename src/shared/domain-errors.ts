/**
 * The domain's error catalogue. Domain code (shared, wiki, storage, papers, auth, graph, access, ingest, quantum)
 * throws these and nothing HTTP-shaped; the HTTP layer maps `kind` to a status in one place
 * (`src/server/http/errors.ts`) and `pksd` maps it to an exit code (`src/server/commands/exit-codes.ts`).
 * `message` is the contract's text, sent as `detail`; `fields` are extra body fields the contract names (e.g.
 * `existing_sha256`), sent beside it.
 */
export type DomainErrorKind =
  | 'invalid_input'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'gone'
  | 'too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'upstream_failure'
  | 'unavailable';

export type ErrorFields = Readonly<Record<string, unknown>>;

export interface DomainErrorOptions {
  /** Extra fields of the error body, next to `detail`. */
  readonly fields?: ErrorFields;
  /** The underlying error, logged with its stack for failures (never sent to the client). */
  readonly cause?: unknown;
  /** Seconds the caller should wait before trying again (`Retry-After`). */
  readonly retryAfterSeconds?: number;
}

export abstract class DomainError extends Error {
  abstract readonly kind: DomainErrorKind;
  readonly fields: ErrorFields;
  readonly retryAfterSeconds: number | undefined;

  constructor(message: string, options: DomainErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.fields = options.fields ?? {};
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

/** The caller's input is malformed or breaks a rule (HTTP 400, CLI exit 2). */
export class InvalidInputError extends DomainError {
  readonly kind = 'invalid_input' as const;
}

/** No credential, or one that is unknown, expired or revoked (HTTP 401 with `WWW-Authenticate: Bearer`). */
export class UnauthenticatedError extends DomainError {
  readonly kind = 'unauthenticated' as const;
}

/** A valid credential that may not do this: a missing scope, a PAT on a session-only route, a refused login (HTTP 403). */
export class ForbiddenError extends DomainError {
  readonly kind = 'forbidden' as const;
}

/** The thing asked for does not exist (HTTP 404). */
export class NotFoundError extends DomainError {
  readonly kind = 'not_found' as const;
  constructor(message = 'not found', options?: DomainErrorOptions) {
    super(message, options);
  }
}

/** The request collides with the current state: different bytes, a held claim, a dirty checkout (HTTP 409). */
export class ConflictError extends DomainError {
  readonly kind = 'conflict' as const;
}

/** The thing existed but its time is over, e.g. an expired device code (HTTP 410). */
export class GoneError extends DomainError {
  readonly kind = 'gone' as const;
}

/** A payload over its cap (HTTP 413). */
export class TooLargeError extends DomainError {
  readonly kind = 'too_large' as const;
}

/** A payload of a kind the operation does not take (HTTP 415). */
export class UnsupportedMediaTypeError extends DomainError {
  readonly kind = 'unsupported_media_type' as const;
}

/** The caller exceeded a rate limit (HTTP 429 with `Retry-After`). */
export class RateLimitedError extends DomainError {
  readonly kind = 'rate_limited' as const;
}

/** Services the domain depends on; the HTTP layer answers a failing object store with 500 (SPEC), others 502. */
export type Upstream =
  'object_store' | 'git' | 'graph' | 'scholarly' | 'preprint' | 'parser' | 'vectordb' | 'embed' | 'llm';

/** A dependency answered with an error or could not be reached (HTTP 500 for the object store, else 502). */
export class UpstreamError extends DomainError {
  readonly kind = 'upstream_failure' as const;
  readonly upstream: Upstream;
  constructor(upstream: Upstream, message: string, options?: DomainErrorOptions) {
    super(message, options);
    this.upstream = upstream;
  }
}

/** A failure of the object store itself (every store backend throws these; HTTP 500 with the message). */
export const isObjectStoreError = (err: unknown): err is UpstreamError =>
  err instanceof UpstreamError && err.upstream === 'object_store';

/** The operation cannot run now or is not configured here (HTTP 503, with `Retry-After` when known). */
export class UnavailableError extends DomainError {
  readonly kind = 'unavailable' as const;
}

export const isDomainError = (err: unknown): err is DomainError => err instanceof DomainError;
