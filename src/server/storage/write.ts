/**
 * The write policy of CONTRACT §3.3 on top of the store primitives: create-if-absent with the 412 → HEAD
 * comparison, or overwrite with a zero-write shortcut for identical content.
 */
import { rfc3339 } from '../../shared/time.js';
import type { ObjectBody, ObjectStore, PutOptions } from './object-store.js';

export type WriteOutcome =
  | { readonly status: 'written'; readonly overwritten: boolean; readonly etag: string | null }
  | { readonly status: 'unchanged' }
  | { readonly status: 'conflict'; readonly existingSha256: string | null };

export interface WriteRequest {
  readonly sha256: string;
  readonly contentType: string;
  /** Extra user metadata (`uploaded-by`, `source`); `sha256` and `created-at` are added here. */
  readonly metadata?: Readonly<Record<string, string>>;
  readonly overwrite?: boolean;
  /** Clock for `created-at` (tests). */
  readonly now?: () => Date;
}

export { rfc3339 };

/** The stored `sha256` metadata, lower-cased, or `null` when absent or malformed. */
export function storedSha256(metadata: Readonly<Record<string, string>>): string | null {
  const v = metadata['sha256']?.trim().toLowerCase();
  return v && /^[0-9a-f]{64}$/.test(v) ? v : null;
}

/** The stored content type and metadata of a write: the request's extra metadata plus `sha256` and `created-at`. */
export function putOptions(req: WriteRequest): PutOptions {
  return {
    contentType: req.contentType,
    metadata: {
      ...(req.metadata ?? {}),
      sha256: req.sha256.toLowerCase(),
      'created-at': rfc3339((req.now ?? (() => new Date()))()),
    },
  };
}

/** Writes one object per §3.3. Store failures surface as the store's errors. */
export async function writeObject(
  store: ObjectStore,
  key: string,
  body: ObjectBody,
  req: WriteRequest,
): Promise<WriteOutcome> {
  const sha256 = req.sha256.toLowerCase();
  const options = putOptions(req);

  if (req.overwrite) {
    const existing = await store.head(key);
    if (existing !== null && storedSha256(existing.metadata) === sha256) return { status: 'unchanged' };
    const { etag } = await store.put(key, body, options);
    return { status: 'written', overwritten: existing !== null, etag };
  }

  const first = await store.putIfAbsent(key, body, options);
  if (first !== null) return { status: 'written', overwritten: false, etag: first.etag };
  const existing = await store.head(key);
  if (existing === null) {
    // Gone between the PUT and the HEAD: repeat the PUT once; a second precondition failure is a conflict.
    const second = await store.putIfAbsent(key, body, options);
    if (second !== null) return { status: 'written', overwritten: false, etag: second.etag };
    const again = await store.head(key); // only to describe the conflict
    return { status: 'conflict', existingSha256: again === null ? null : storedSha256(again.metadata) };
  }
  const existingSha256 = storedSha256(existing.metadata);
  return existingSha256 === sha256 ? { status: 'unchanged' } : { status: 'conflict', existingSha256 };
}

/** Pre-check of a target without writing (upload-parser step 8). */
export type TargetState =
  | { readonly state: 'absent' }
  | { readonly state: 'same' }
  | { readonly state: 'different'; readonly existingSha256: string | null };

export async function checkTarget(store: ObjectStore, key: string, sha256: string): Promise<TargetState> {
  const existing = await store.head(key);
  if (existing === null) return { state: 'absent' };
  const existingSha256 = storedSha256(existing.metadata);
  return existingSha256 === sha256.toLowerCase() ? { state: 'same' } : { state: 'different', existingSha256 };
}

/** User metadata values must be header-safe: anything outside printable ASCII is percent-encoded. */
export function metadataValue(value: string): string {
  return /^[\x20-\x7e]*$/.test(value) ? value : encodeURIComponent(value);
}
