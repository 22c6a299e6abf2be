/**
 * DOIs (CONTRACT §2.3): normalisation, detection and validation.
 */
import { InvalidInputError } from './domain-errors.js';
import { parsePreprintId, type PreprintId } from './ids.js';

export const MAX_DOI_LENGTH = 256;

const DOI_PREFIXES = [
  'https://doi.org/',
  'http://doi.org/',
  'https://dx.doi.org/',
  'http://dx.doi.org/',
  'doi.org/',
  'dx.doi.org/',
  'doi:',
] as const;

const DOI_SHAPE = /^10\.\d{4,9}\/\S+$/;

export type DoiResult = { readonly ok: true; readonly doi: string } | { readonly ok: false; readonly reason: string };

/** Strips one known DOI prefix (case-insensitive) after trimming; does not validate. */
export function stripDoiPrefix(raw: string): string {
  const s = raw.trim();
  const lower = s.toLowerCase();
  for (const p of DOI_PREFIXES) {
    if (lower.startsWith(p)) return s.slice(p.length);
  }
  return s;
}

/** Whether the (prefix-stripped) input is to be treated as a DOI: it starts with `10.`. */
export function looksLikeDoi(raw: string): boolean {
  return stripDoiPrefix(raw).startsWith('10.');
}

/**
 * Normalises a DOI: trim; reject > 256 chars (first), control or non-ASCII characters; lower-case; strip one
 * prefix; then the shape `10.<4–9 digits>/<non-space>`.
 */
export function normaliseDoi(raw: string): DoiResult {
  const s = raw.trim();
  if (s.length > MAX_DOI_LENGTH) return { ok: false, reason: `longer than ${MAX_DOI_LENGTH} characters` };
  if ([...s].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)) {
    return { ok: false, reason: 'contains a control character' };
  }
  if ([...s].some((c) => c.charCodeAt(0) > 0x7f)) return { ok: false, reason: 'contains a non-ASCII character' };
  const doi = stripDoiPrefix(s.toLowerCase());
  if (!DOI_SHAPE.test(doi)) return { ok: false, reason: 'expected 10.<4-9 digits>/<suffix>' };
  return { ok: true, doi };
}

/** The route-level 400 for an invalid DOI: `{"detail":"invalid DOI: <reason>","doi":"<raw>"}`. */
export function invalidDoiError(raw: string, reason: string): InvalidInputError {
  return new InvalidInputError(`invalid DOI: ${reason}`, { fields: { doi: raw } });
}

/** Paper-access inputs (`{id_or_doi}`): a preprint id in any accepted form, or a DOI. */
export type IdOrDoi = { readonly type: 'id'; readonly id: PreprintId } | { readonly type: 'doi'; readonly doi: string };

/**
 * Classifies a paper-access path value (CONTRACT §2.2/§2.3): DOI when it starts with `10.` after prefix stripping
 * (400 `invalid DOI` if malformed), else a preprint id (400 `invalid preprint id or DOI`).
 */
export function parseIdOrDoi(raw: string): IdOrDoi {
  if (looksLikeDoi(raw)) {
    const r = normaliseDoi(raw);
    if (!r.ok) throw invalidDoiError(raw, r.reason);
    return { type: 'doi', doi: r.doi };
  }
  const id = parsePreprintId(raw);
  if (id === null) throw new InvalidInputError(`invalid preprint id or DOI: ${JSON.stringify(raw)}`);
  return { type: 'id', id };
}
