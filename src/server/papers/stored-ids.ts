/**
 * Ids resolved against what is stored (CONTRACT §18: the registry's `{id}` with paper access off, and
 * `status/batch` always): never upstream. A versioned id is taken as it is; a versionless id (or bare old-style
 * number) is the newest stored version; a DOI is the newest stored version of the paper whose index row carries
 * it (the `doi` column).
 */
import { looksLikeDoi, normaliseDoi, invalidDoiError } from '../../shared/doi.js';
import { InvalidInputError, UnavailableError } from '../../shared/domain-errors.js';
import { hasVersion, parsePreprintId, parseVersionedId, type VersionedPreprintId } from '../../shared/ids.js';
import type { PaperIndex } from './paper-index.js';

/**
 * 503 while the index cannot be read (§4.2 retries every 60 s): an empty answer would claim that nothing is stored.
 */
export function requireIndex(index: PaperIndex): void {
  if (!index.available) {
    throw new UnavailableError('metadata index unavailable (the server retries loading it every 60 s)', {
      retryAfterSeconds: 60,
    });
  }
}

export type StoredLookup =
  | { readonly kind: 'found'; readonly id: VersionedPreprintId }
  /** A versionless id or DOI that no stored version resolves. */
  | { readonly kind: 'not_found' }
  /** Not an id or DOI: the error carries the §2.2/§2.3 message of paper access. */
  | { readonly kind: 'invalid'; readonly error: InvalidInputError };

export function resolveStored(index: PaperIndex, raw: string): StoredLookup {
  if (looksLikeDoi(raw)) {
    const normal = normaliseDoi(raw);
    if (!normal.ok) return { kind: 'invalid', error: invalidDoiError(raw, normal.reason) };
    const rows = index.rowsByDoi(normal.doi);
    if (rows.length === 0) return { kind: 'not_found' };
    // The newest version of the first paper (by id) that carries the DOI.
    const first = parseVersionedId(rows[0]!.preprint_id);
    const newest = first ? index.newestVersion(first.versionless) : undefined;
    const id = newest ? parseVersionedId(newest.preprint_id) : null;
    return id ? { kind: 'found', id } : { kind: 'not_found' };
  }
  const parsed = parsePreprintId(raw);
  if (parsed === null) {
    return { kind: 'invalid', error: new InvalidInputError(`invalid preprint id or DOI: ${JSON.stringify(raw)}`) };
  }
  if (hasVersion(parsed)) return { kind: 'found', id: parsed };
  const newest = index.newestVersion(parsed.versionless);
  const id = newest ? parseVersionedId(newest.preprint_id) : null;
  return id ? { kind: 'found', id } : { kind: 'not_found' };
}
