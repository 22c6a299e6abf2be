/** Page ids and file names (CONTRACT §13.1 id conventions, §6.3 paper pages). */
import { parsePreprintId } from '../shared/ids.js';
import { MAX_PAGE_ID_LENGTH } from './limits.js';

/** Prefixes of the id conventions. `paper-preprint-` is the paper-page form of `paper-`. */
export const PAGE_ID_PREFIXES = ['concept-', 'algo-', 'prim-', 'person-', 'paper-preprint-', 'comp-'] as const;

const KEBAB_RE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
// eslint-disable-next-line no-control-regex
const CONTROL_RE = /[\u0000-\u001f\u007f-\u009f]/;

/** `true` for lower-case kebab-case: `a-z`, `0-9`, single `-` between runs. */
export function isKebabCase(value: string): boolean {
  return KEBAB_RE.test(value);
}

/**
 * Whether a string can be a page id at all: non-empty, at most 200 characters, no surrounding whitespace, no
 * control character (NUL included), no `/` or `\`, no `..`, none of the wikilink syntax characters `[ ] | #`.
 * Ids failing this cannot be addressed by `GET /api/pages/{page_id}` or by a wikilink, so such pages are not served.
 */
export function isSafePageId(value: string): boolean {
  return (
    value.length > 0 &&
    value.length <= MAX_PAGE_ID_LENGTH &&
    value === value.trim() &&
    !CONTROL_RE.test(value) &&
    !value.includes('/') &&
    !value.includes('\\') &&
    !value.includes('..') &&
    !/[[\]|#]/.test(value)
  );
}

/** Advisory notes about an id and its file name against the conventions (not lint findings). */
export function namingNotes(id: string, path: string): string[] {
  const notes: string[] = [];
  if (!isKebabCase(id)) notes.push(`id '${id}' is not kebab-case`);
  if (!PAGE_ID_PREFIXES.some((p) => id.startsWith(p))) {
    notes.push(`id '${id}' has none of the prefixes ${PAGE_ID_PREFIXES.join(', ')}`);
  }
  const base = path.slice(path.lastIndexOf('/') + 1).replace(/\.md$/, '');
  if (!isKebabCase(base)) notes.push(`file name '${base}.md' is not kebab-case`);
  else if (base !== id) notes.push(`file name '${base}.md' does not match id '${id}'`);
  return notes;
}

/** Canonical preprint id (CONTRACT §2.1): the one grammar of `src/shared/ids.ts`. */
export { parsePreprintId } from '../shared/ids.js';

/** Page id of the source page of a preprint: `paper-preprint-<id with / → ->`. */
export function paperPageIdFor(preprintId: string): string {
  return `paper-preprint-${preprintId.replace(/\//g, '-')}`;
}

/**
 * Versionless preprint id encoded in a paper page id (CONTRACT §6.3): `paper-preprint-quant-ph-9605043v3` →
 * `quant-ph/9605043`, `paper-preprint-2501.00010v1` → `2501.00010`. `null` when the id yields no valid id.
 */
export function preprintIdFromPageId(pageId: string): string | null {
  const prefix = 'paper-preprint-';
  if (!pageId.startsWith(prefix)) return null;
  const rest = pageId.slice(prefix.length);
  const restored = rest.replace(/-(\d{7}(?:[vV][1-9]\d*)?)$/, '/$1');
  return parsePreprintId(restored)?.versionless ?? null;
}
