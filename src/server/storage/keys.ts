/**
 * App keys → (kind, key in bucket) routing and content types (CONTRACT §3.1).
 */
import { UpstreamError } from '../../shared/domain-errors.js';
import { ASSET_KINDS, type AssetKind } from '../../shared/ids.js';

export type { AssetKind };

/** The metadata index: not an app key; lives in the pdf bucket (local: `<raw>/index/papers.parquet`). */
export const INDEX_BUCKET_KEY = 'index/papers.parquet';
export const INDEX_CONTENT_TYPE = 'application/vnd.apache.parquet';

/** A key the layout refuses: a server fault, answered like any object store failure (500). */
export class InvalidKeyError extends UpstreamError {
  constructor(key: string, reason: string) {
    super('object_store', `object store error: invalid object key ${JSON.stringify(key)}: ${reason}`);
  }
}

export interface RoutedKey {
  readonly kind: AssetKind;
  /** The key inside the kind's bucket (kind prefix stripped). */
  readonly bucketKey: string;
}

/** Refuses keys with a leading `/`, a `..` (or `.` / empty) segment, a `\` or a NUL. */
export function checkKeySafety(key: string): void {
  if (key.startsWith('/')) throw new InvalidKeyError(key, 'leading /');
  if (key.includes('\\')) throw new InvalidKeyError(key, 'contains \\');
  if (key.includes('\0')) throw new InvalidKeyError(key, 'contains NUL');
  const segments = key.split('/');
  if (segments.some((s) => s === '..')) throw new InvalidKeyError(key, 'contains a .. segment');
  if (segments.some((s) => s === '.')) throw new InvalidKeyError(key, 'contains a . segment');
}

/** Maps an app key (`pdf/2501/x.pdf`) to its kind and bucket key (`2501/x.pdf`). */
export function routeKey(appKey: string): RoutedKey {
  checkKeySafety(appKey);
  const slash = appKey.indexOf('/');
  const kind = slash < 0 ? appKey : appKey.slice(0, slash);
  if (!(ASSET_KINDS as readonly string[]).includes(kind)) throw new InvalidKeyError(appKey, 'unknown kind');
  const bucketKey = slash < 0 ? '' : appKey.slice(slash + 1);
  return { kind: kind as AssetKind, bucketKey };
}

/** Object key of an app key (must name an object, not a prefix). */
export function routeObjectKey(appKey: string): RoutedKey {
  const routed = routeKey(appKey);
  if (routed.bucketKey === '' || routed.bucketKey.endsWith('/') || routed.bucketKey.split('/').some((s) => s === '')) {
    throw new InvalidKeyError(appKey, 'empty segment');
  }
  return routed;
}

const IMAGE_TYPES: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
};

/** Content-Type per kind (§3.1); images by extension, case-insensitive. */
export function contentTypeFor(appKey: string): string {
  const { kind, bucketKey } = routeKey(appKey);
  switch (kind) {
    case 'pdf':
      return 'application/pdf';
    case 'markdown':
      return 'text/markdown; charset=utf-8';
    case 'images': {
      const base = bucketKey.slice(bucketKey.lastIndexOf('/') + 1);
      const dot = base.lastIndexOf('.');
      const ext = dot < 0 ? '' : base.slice(dot + 1).toLowerCase();
      return IMAGE_TYPES[ext] ?? 'application/octet-stream';
    }
  }
}
