/**
 * Preprint identifiers (CONTRACT §2.1–2.2) and the object keys derived from them (§3.1–3.2).
 *
 * Pure functions, no I/O: shared by the server, the client and the tools.
 */
import { InvalidInputError } from './domain-errors.js';

/** The category a bare old-style number gets everywhere (CONTRACT §2.2). */
export const DEFAULT_OLD_STYLE_CATEGORY = 'quant-ph';

export type IdStyle = 'new' | 'old';

/** A parsed, canonical preprint id (version optional). */
export interface PreprintId {
  /** Canonical id, with the version when one was given: `2501.00010v1`, `quant-ph/9508027v1`. */
  readonly id: string;
  /** Canonical id without version. */
  readonly versionless: string;
  /** Version number (≥ 1), or `null` for a versionless id. */
  readonly version: number | null;
  readonly style: IdStyle;
  /** Shard `yymm`: first four digits of the id (new style) or of the 7-digit number (old style). */
  readonly yymm: string;
  /** `id` with `/` replaced by `_` (carries the version when `id` does). */
  readonly stem: string;
  /** Old style: `<archive>[.<subject>]` (`quant-ph`, `cond-mat.stat-mech`); new style: `null`. */
  readonly category: string | null;
  /** Old style: the 7-digit number; new style: `YYMM.NNNNN`. */
  readonly number: string;
  /** The input was a bare old-style number and the default category was applied. */
  readonly categoryDefaulted: boolean;
}

/** A canonical id that carries a version (everything that addresses objects). */
export interface VersionedPreprintId extends PreprintId {
  readonly version: number;
}

// The grammar of CONTRACT §2.1, one piece per form; the parsers and the OpenAPI patterns are built from it.
const NEW_STYLE_SOURCE = '(\\d{2}(?:0[1-9]|1[0-2]))\\.(\\d{4,5})';
const OLD_STYLE_SOURCE = '([a-z]+(?:-[a-z]+)*(?:\\.[A-Za-z]+(?:-[A-Za-z]+)*)?)/(\\d{7})';
const BARE_OLD_STYLE_SOURCE = '(\\d{7})';
const VERSION_SOURCE = 'v([1-9]\\d*)';

const withOptionalVersion = (form: string) => new RegExp(`^${form}(?:${VERSION_SOURCE})?$`);
const NEW_STYLE = withOptionalVersion(NEW_STYLE_SOURCE);
const OLD_STYLE = withOptionalVersion(OLD_STYLE_SOURCE);
const BARE_OLD_STYLE = withOptionalVersion(BARE_OLD_STYLE_SOURCE);
const ARXIV_PREFIX = /^arxiv:\s*/i;
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

const ANY_FORM = `(?:${NEW_STYLE_SOURCE}|${OLD_STYLE_SOURCE}|${BARE_OLD_STYLE_SOURCE})`.replace(/\((?!\?)/g, '(?:');
/** A canonical or bare old-style id with its version `vN`, as an ECMAScript pattern (OpenAPI documents). */
export const VERSIONED_ID_PATTERN = `^${ANY_FORM}v[1-9]\\d*$`;
/** A canonical or bare old-style id, version optional, as an ECMAScript pattern (OpenAPI documents). */
export const PREPRINT_ID_PATTERN = `^${ANY_FORM}(?:v[1-9]\\d*)?$`;

/**
 * Trims, removes a leading case-insensitive `arXiv:` (plus spaces) and lower-cases the version `V`; `null` when
 * the input holds a control character (a CR or LF inside a path segment is not an id, even at its end).
 */
function clean(raw: string): string | null {
  if (CONTROL_CHARACTER.test(raw)) return null;
  return raw
    .trim()
    .replace(ARXIV_PREFIX, '')
    .replace(/V(\d+)$/, 'v$1');
}

function build(
  style: IdStyle,
  category: string | null,
  number: string,
  versionText: string | undefined,
  categoryDefaulted: boolean,
): PreprintId {
  const versionless = category === null ? number : `${category}/${number}`;
  const version = versionText === undefined ? null : Number(versionText);
  const id = version === null ? versionless : `${versionless}v${version}`;
  return {
    id,
    versionless,
    version,
    style,
    yymm: number.slice(0, 4),
    stem: id.replace('/', '_'),
    category,
    number,
    categoryDefaulted,
  };
}

/**
 * Parses any accepted spelling of a preprint id (canonical, versionless, bare old-style, `arXiv:` prefix).
 * Returns `null` when the input is not an id. DOIs are not handled here (see `doi.ts`).
 */
export function parsePreprintId(raw: string): PreprintId | null {
  const s = clean(raw);
  if (s === null) return null;
  let m = NEW_STYLE.exec(s);
  if (m) return build('new', null, `${m[1]!}.${m[2]!}`, m[3], false);
  m = OLD_STYLE.exec(s);
  if (m) return build('old', m[1]!, m[2]!, m[3], false);
  m = BARE_OLD_STYLE.exec(s);
  if (m) return build('old', DEFAULT_OLD_STYLE_CATEGORY, m[1]!, m[2], true);
  return null;
}

export function hasVersion(id: PreprintId): id is VersionedPreprintId {
  return id.version !== null;
}

/** Parses an id that must carry a version; `null` otherwise. */
export function parseVersionedId(raw: string): VersionedPreprintId | null {
  const id = parsePreprintId(raw);
  return id !== null && hasVersion(id) ? id : null;
}

/** The exact 400 of CONTRACT §2.2 for upload, upload-parser and parser-claim routes. */
export function uploadIdError(raw: string): InvalidInputError {
  return new InvalidInputError(`invalid preprint_id: ${JSON.stringify(raw)} (version suffix vN required)`);
}

/** Upload/claim routes: canonical or bare old-style id **with** version, else the §2.2 400. */
export function requireUploadId(raw: string): VersionedPreprintId {
  const id = parseVersionedId(raw);
  if (id === null) throw uploadIdError(raw);
  return id;
}

/** Ingest route: any accepted id form, else `400 invalid preprint_id: "<raw>"`. */
export function requireIngestId(raw: string): PreprintId {
  const id = parsePreprintId(raw);
  if (id === null) throw new InvalidInputError(`invalid preprint_id: ${JSON.stringify(raw)}`);
  return id;
}

/** Returns the id for a version (keeps category and number). */
export function withVersion(id: PreprintId, version: number): VersionedPreprintId {
  return build(id.style, id.category, id.number, String(version), id.categoryDefaulted) as VersionedPreprintId;
}

// ---------------------------------------------------------------------------------------------------------------
// Object keys (CONTRACT §3.1, §3.2)
// ---------------------------------------------------------------------------------------------------------------

export type AssetKind = 'pdf' | 'markdown' | 'images';
export const ASSET_KINDS: readonly AssetKind[] = ['pdf', 'markdown', 'images'];

/** App keys of one versioned paper. */
export interface PaperKeys {
  /** `pdf/<yymm>/<stem>.pdf` */
  readonly pdf: string;
  /** `markdown/<yymm>/<stem>.md` */
  readonly markdown: string;
  /** `images/<yymm>/<stem>/` (trailing slash) */
  readonly imagesPrefix: string;
}

export function paperKeys(id: VersionedPreprintId): PaperKeys {
  return {
    pdf: `pdf/${id.yymm}/${id.stem}.pdf`,
    markdown: `markdown/${id.yymm}/${id.stem}.md`,
    imagesPrefix: `images/${id.yymm}/${id.stem}/`,
  };
}

/**
 * The legacy read-only keys of an old-style id: the category dropped (`pdf/<yymm>/<7 digits>v<N>.pdf`).
 * `null` for new-style ids, which never probe a legacy key.
 */
export function legacyPaperKeys(id: VersionedPreprintId): PaperKeys | null {
  if (id.style !== 'old') return null;
  const stem = `${id.number}v${id.version}`;
  return {
    pdf: `pdf/${id.yymm}/${stem}.pdf`,
    markdown: `markdown/${id.yymm}/${stem}.md`,
    imagesPrefix: `images/${id.yymm}/${stem}/`,
  };
}

/** `images/<yymm>/<stem>/<file>` */
export function imageKey(id: VersionedPreprintId, file: string): string {
  return `${paperKeys(id).imagesPrefix}${file}`;
}

/** The canonical id of a stem (`quant-ph_9508027v1` → `quant-ph/9508027v1`); `null` if not a versioned stem. */
export function idFromStem(stem: string): VersionedPreprintId | null {
  const m = /^(.+)_(\d{7}(?:v\d+)?)$/.exec(stem);
  const candidate = m ? `${m[1]!}/${m[2]!}` : stem;
  if (/^\d{7}/.test(candidate)) return null; // a bare number is a legacy key, not a stem
  const id = parseVersionedId(candidate);
  // Only accept exact canonical spellings: a stem must round-trip.
  return id !== null && id.stem === stem ? id : null;
}

/** What an app key of the asset layout denotes (used by rebuilds and listings). */
export interface ParsedAssetKey {
  readonly kind: AssetKind;
  readonly id: VersionedPreprintId;
  /** The key is of the legacy form (category dropped; mapped to `quant-ph`). */
  readonly legacy: boolean;
  /** Images only: the file path below the paper's images prefix. */
  readonly file: string | null;
}

/**
 * Maps an app key back to its paper (CONTRACT §15.6 step 1): app form → canonical id; legacy form → `quant-ph/…`;
 * anything else → `null` (reported as skipped).
 */
export function parseAssetKey(appKey: string): ParsedAssetKey | null {
  const m = /^(pdf|markdown|images)\/(\d{4})\/(.+)$/.exec(appKey);
  if (!m) return null;
  const kind = m[1] as AssetKind;
  const yymm = m[2]!;
  const rest = m[3]!;
  let stem: string;
  let file: string | null = null;
  if (kind === 'images') {
    const slash = rest.indexOf('/');
    if (slash <= 0 || slash === rest.length - 1) return null;
    stem = rest.slice(0, slash);
    file = rest.slice(slash + 1);
  } else {
    const ext = kind === 'pdf' ? '.pdf' : '.md';
    if (!rest.endsWith(ext)) return null;
    stem = rest.slice(0, -ext.length);
  }
  const legacy = /^(\d{7})v([1-9]\d*)$/.exec(stem);
  let id: VersionedPreprintId | null;
  if (legacy) {
    id = parseVersionedId(`${DEFAULT_OLD_STYLE_CATEGORY}/${stem}`);
  } else {
    id = idFromStem(stem);
  }
  if (id === null || id.yymm !== yymm) return null;
  return { kind, id, legacy: legacy !== null, file };
}

/** `<SVC_PREPRINT_BASE_URL>/pdf/<canonical id with version>` (CONTRACT §5.2). */
export function preprintPdfUrl(baseUrl: string, id: VersionedPreprintId): string {
  return `${baseUrl.replace(/\/+$/, '')}/pdf/${id.id}`;
}
