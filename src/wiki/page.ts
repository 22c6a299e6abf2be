/** One candidate file → `PageFile` (and `WikiPage` when it meets the served conditions of CONTRACT §13.1). */
import { parseWikiDate } from './dates.js';
import { parseFrontmatterYaml, splitFrontmatter } from './frontmatter.js';
import { isSafePageId } from './ids.js';
import { extractWikilinks } from './links.js';
import { MAX_PAGE_FILE_BYTES } from './limits.js';
import {
  DATE_FIELDS,
  PAGE_TYPES,
  type ExternalLink,
  type FileProblem,
  type FrontmatterMap,
  type FrontmatterValue,
  type PageFile,
  type PageType,
  type WikiPage,
} from './types.js';

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** A file that could not be turned into text: `PageFile` carrying only the problem. */
export function problemFile(path: string, size: number, problem: FileProblem): PageFile {
  return {
    path,
    size,
    problem,
    frontmatter: null,
    body: '',
    links: [],
    id: null,
    page: null,
    invalidReason: problem.message,
  };
}

/** Decode and parse raw file bytes; refuses oversized, NUL-containing and non-UTF-8 content. */
export function parsePageBytes(path: string, bytes: Uint8Array): PageFile {
  if (bytes.byteLength > MAX_PAGE_FILE_BYTES) {
    return problemFile(path, bytes.byteLength, tooLarge(bytes.byteLength));
  }
  if (bytes.indexOf(0) !== -1) {
    return problemFile(path, bytes.byteLength, { kind: 'binary', message: 'file contains NUL bytes' });
  }
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    return problemFile(path, bytes.byteLength, { kind: 'not_utf8', message: 'file is not valid UTF-8' });
  }
  return parsePageText(path, text, bytes.byteLength);
}

export function tooLarge(size: number): FileProblem {
  return { kind: 'too_large', message: `file is ${size} bytes, over the ${MAX_PAGE_FILE_BYTES}-byte limit` };
}

/** Parse page text (any line endings; a leading BOM is dropped). */
export function parsePageText(path: string, rawText: string, size = Buffer.byteLength(rawText, 'utf8')): PageFile {
  if (rawText.includes('\u0000')) {
    return problemFile(path, size, { kind: 'binary', message: 'file contains NUL bytes' });
  }
  const unmarked = rawText.charCodeAt(0) === 0xfeff ? rawText.slice(1) : rawText;
  // Most texts have no CR: one native search instead of a regular-expression pass over the text.
  const text = unmarked.includes('\r') ? unmarked.replace(/\r\n?/g, '\n') : unmarked;
  const split = splitFrontmatter(text);
  if (!split.ok) {
    const links = extractWikilinks(split.body);
    return {
      path,
      size,
      problem: split.problem,
      frontmatter: null,
      body: split.body,
      links,
      id: null,
      page: null,
      invalidReason: split.problem.message,
    };
  }
  const links = extractWikilinks(split.body);
  const parsed = parseFrontmatterYaml(split.yaml);
  if (!parsed.ok) {
    return {
      path,
      size,
      problem: parsed.problem,
      frontmatter: null,
      body: split.body,
      links,
      id: null,
      page: null,
      invalidReason: parsed.problem.message,
    };
  }
  const frontmatter = normaliseDates(parsed.data);
  const rawId = frontmatter.id;
  const id = typeof rawId === 'string' && rawId.trim() !== '' ? rawId.trim() : null;
  const built = buildPage(path, frontmatter, split.body, links);
  return {
    path,
    size,
    problem: null,
    frontmatter,
    body: split.body,
    links,
    id,
    page: built.page,
    invalidReason: built.reason,
  };
}

/** Date fields as `YYYY-MM-DD` when valid; everything else untouched. */
function normaliseDates(data: FrontmatterMap): FrontmatterMap {
  for (const field of DATE_FIELDS) {
    if (!Object.hasOwn(data, field)) continue;
    const date = parseWikiDate(data[field]);
    if (date !== null) data[field] = date;
  }
  return data;
}

function buildPage(
  path: string,
  fm: FrontmatterMap,
  body: string,
  links: WikiPage['links'],
): { page: WikiPage; reason: null } | { page: null; reason: string } {
  const id = nonEmptyString(get(fm, 'id'));
  if (id === null) return { page: null, reason: 'id is missing or not a non-empty string' };
  if (!isSafePageId(id)) return { page: null, reason: `id '${printable(id)}' is not a valid page id` };
  const title = nonEmptyString(get(fm, 'title'));
  if (title === null) return { page: null, reason: 'title is missing or not a non-empty string' };
  const type = get(fm, 'type');
  if (typeof type !== 'string' || !(PAGE_TYPES as readonly string[]).includes(type)) {
    return { page: null, reason: `type ${JSON.stringify(type ?? null)} is not one of ${PAGE_TYPES.join(', ')}` };
  }
  const status = get(fm, 'status');
  const page: WikiPage = {
    id,
    title,
    type: type as PageType,
    category: nonEmptyString(get(fm, 'category')),
    tags: stringList(get(fm, 'tags')),
    created_at: parseWikiDate(get(fm, 'created_at')),
    updated_at: parseWikiDate(get(fm, 'updated_at')),
    status: typeof status === 'string' && status.trim() !== '' ? status.trim() : 'draft',
    related: stringList(get(fm, 'related')),
    prerequisites: stringList(get(fm, 'prerequisites')),
    graph_synced: graphSynced(fm) === true,
    graph_node_id: nonEmptyString(get(fm, 'graph_node_id') ?? get(fm, 'neo4j_id')),
    doi: nonEmptyString(get(fm, 'doi')),
    doi_source: nonEmptyString(get(fm, 'doi_source')),
    doi_confidence: nonEmptyString(get(fm, 'doi_confidence')),
    doi_resolved_at: parseWikiDate(get(fm, 'doi_resolved_at')),
    external_links: externalLinks(get(fm, 'external_links')),
    version: integer(get(fm, 'version')),
    body,
    path,
    frontmatter: fm,
    links,
  };
  return { page, reason: null };
}

/** Own property of the mapping (never inherited), `undefined` when absent. */
export function get(fm: FrontmatterMap, key: string): FrontmatterValue | undefined {
  return Object.hasOwn(fm, key) ? fm[key] : undefined;
}

/** The graph-synced flag: `graph_synced`, else its alias `neo4j_synced`. */
export function graphSynced(fm: FrontmatterMap): FrontmatterValue | undefined {
  const value = get(fm, 'graph_synced');
  return value === undefined || value === null ? get(fm, 'neo4j_synced') : value;
}

function nonEmptyString(value: FrontmatterValue | undefined): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

function stringList(value: FrontmatterValue | undefined): string[] {
  if (!Array.isArray(value)) return [];
  const out: string[] = [];
  for (const item of value) {
    if (typeof item === 'string' && item.trim() !== '') out.push(item.trim());
  }
  return out;
}

function integer(value: FrontmatterValue | undefined): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) ? value : null;
}

function externalLinks(value: FrontmatterValue | undefined): ExternalLink[] {
  if (!Array.isArray(value)) return [];
  const out: ExternalLink[] = [];
  for (const item of value) {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) continue;
    const label = nonEmptyString(get(item, 'label'));
    const url = nonEmptyString(get(item, 'url'));
    if (label === null || url === null) continue;
    const link: ExternalLink = { label, url };
    const kind = nonEmptyString(get(item, 'kind'));
    const note = nonEmptyString(get(item, 'note'));
    if (kind !== null) link.kind = kind;
    if (note !== null) link.note = note;
    out.push(link);
  }
  return out;
}

/** A string safe to put in a message: control characters escaped, at most 120 characters. */
export function printable(value: string): string {
  // eslint-disable-next-line no-control-regex
  const escaped = value.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return escaped.length > 120 ? `${escaped.slice(0, 117)}...` : escaped;
}
