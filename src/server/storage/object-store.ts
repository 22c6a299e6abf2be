/**
 * The object store: one interface over the S3 router (three buckets) and the local directory backend
 * (CONTRACT §3). Keys are app keys (`pdf/…`, `markdown/…`, `images/…`).
 */
import type { Readable } from 'node:stream';
import { UpstreamError } from '../../shared/domain-errors.js';

export interface ObjectInfo {
  /** App key. */
  readonly key: string;
  readonly size: number;
  /** Store ETag (S3: quoted MD5-ish; local: derived from the file identity), or `null` if unknown. */
  readonly etag: string | null;
  readonly lastModified: Date | null;
  readonly contentType: string | null;
  /** User metadata with lower-case names (`sha256`, `created-at`, `uploaded-by`, `source`). */
  readonly metadata: Readonly<Record<string, string>>;
}

/** Bytes `start`..`end` (inclusive; `end` `null`: to the last byte) of an object: an HTTP `Range` of one part. */
export interface ByteRange {
  readonly start: number;
  readonly end: number | null;
}

/**
 * An opened object; `range` when one was asked and served: the bytes `body` holds, or `unsatisfiable` (`start` ≥
 * size).
 */
export interface GotObject {
  /** `size` is the whole object's. */
  readonly info: ObjectInfo;
  readonly body: Readable;
  readonly range?: { readonly start: number; readonly end: number } | 'unsatisfiable';
}

export interface ListedObject {
  readonly key: string;
  readonly size: number;
  readonly etag: string | null;
  readonly lastModified: Date | null;
}

/** Content to write: bytes in memory, or a file on disk (re-readable, so a write can be retried). */
export type ObjectBody = Buffer | { readonly path: string; readonly size: number };

export interface PutOptions {
  readonly contentType: string;
  readonly metadata: Readonly<Record<string, string>>;
}

/**
 * Per-call options: a bound on the time to the store's answer (response headers; a body that is streaming may
 * take longer) for calls that must not hang on a dead store (start-up, periodic index work).
 */
export interface CallOptions {
  readonly timeoutMs?: number;
}

export interface PutResult {
  /** ETag of the new object, when the store reports one. */
  readonly etag: string | null;
}

export interface ObjectVersion {
  /** App key. */
  readonly key: string;
  readonly versionId: string;
  readonly size: number;
  readonly lastModified: Date;
  readonly isLatest: boolean;
  readonly deleteMarker: boolean;
}

/** Raw index object access (CONTRACT §4): not an app key. */
export interface IndexObject {
  readonly bytes: Buffer;
  /** S3 ETag, local: sha256 of the file. */
  readonly etag: string;
}

/**
 * The index object opened for reading by byte ranges: a file descriptor the caller owns (and closes), the file's
 * size and the object's ETag. The bytes under the descriptor never change (a later write replaces the file).
 */
export interface OpenedIndex {
  readonly fd: number;
  readonly size: number;
  readonly etag: string;
}

/**
 * An index file written in the store's temp area (`indexTempPath`), to publish with `writeIndexFile`: its size and
 * the sha256 of its bytes, computed as it was written.
 */
export interface IndexFile {
  readonly path: string;
  readonly size: number;
  readonly sha256: string;
}

/**
 * Any failure of the store itself: the domain's `UpstreamError('object_store')` with the message
 * `object store error: <op> <key>: <reason>`, answered 500 with that message (SPEC "Errors").
 */
export function objectStoreError(detail: string, cause?: unknown): UpstreamError {
  return new UpstreamError('object_store', `object store error: ${detail}`, cause === undefined ? {} : { cause });
}

export interface ObjectStore {
  readonly backend: 's3' | 'local';
  /** Start-time work: S3 enables bucket versioning (warn on failure); local removes stale temp files. */
  start(): Promise<void>;
  head(key: string): Promise<ObjectInfo | null>;
  /** Opens a read stream, of `range` only when given; `null` when absent. */
  get(key: string, range?: ByteRange): Promise<GotObject | null>;
  /** Create-if-absent primitive (`If-None-Match: *` / `link()`): `null` when the precondition failed. */
  putIfAbsent(key: string, body: ObjectBody, options: PutOptions): Promise<PutResult | null>;
  /**
   * Create-if-absent of exactly `size` bytes read from `body` as they arrive (S3 only: the local backend links a
   * staged file). Aborting `signal` before `body` ended leaves no object: the store never receives the whole
   * length. `null` when the precondition failed; any other failure rejects.
   */
  putStreamIfAbsent?(
    key: string,
    body: Readable,
    size: number,
    options: PutOptions,
    signal: AbortSignal,
  ): Promise<PutResult | null>;
  /** Unconditional write; the prior object (if any) becomes a noncurrent version. */
  put(key: string, body: ObjectBody, options: PutOptions): Promise<PutResult>;
  /** Deletes the current object (idempotent); versioned stores keep it as noncurrent. */
  delete(key: string): Promise<void>;
  /** Every object whose app key starts with `prefix` (which must start with a kind), paginated internally. */
  list(prefix: string): AsyncIterable<ListedObject>;
  /** Every version (current and noncurrent) under `prefix` (same prefix rules as `list`). */
  listVersions(prefix: string): AsyncIterable<ObjectVersion>;
  deleteVersion(key: string, versionId: string): Promise<void>;
  /** The metadata index object, or `null` when absent. */
  readIndex(options?: CallOptions): Promise<IndexObject | null>;
  /**
   * The index object as an open file (`null` when absent): local, the index file itself; S3, a downloaded copy in
   * the temp area, unlinked once open.
   */
  openIndex(options?: CallOptions): Promise<OpenedIndex | null>;
  /** The index object's current ETag without downloading it (`null` when absent). */
  indexEtag(options?: CallOptions): Promise<string | null>;
  /**
   * A fresh path in the store's temp area for an index file to publish with `writeIndexFile` (its directory exists;
   * the file does not). Local: beside the index, so publishing is a rename.
   */
  indexTempPath(): Promise<string>;
  /**
   * Publishes `file` as the index with compare-and-swap: `expectedEtag` `null` = create only when absent. Returns
   * the new ETag, or `null` when the precondition failed. The file is the store's from the call on: moved into
   * place, or removed whatever the outcome (412, store error).
   */
  writeIndexFile(file: IndexFile, expectedEtag: string | null, options?: CallOptions): Promise<string | null>;
  /**
   * A time-limited GET URL of an object for an outside party (the parser provider, CONTRACT §3.4, §11.6), signed
   * for `SVC_OBJ_PUBLIC_ENDPOINT`. `null` when this store cannot hand out such URLs: the S3 backend without a
   * public endpoint, and the local backend (its files have no address outside the server).
   */
  presignGet(key: string, ttlSeconds: number): Promise<string | null>;
}

export function bodySize(body: ObjectBody): number {
  return Buffer.isBuffer(body) ? body.length : body.size;
}

/** Drains an async iterable into an array (tests and small listings). */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}
