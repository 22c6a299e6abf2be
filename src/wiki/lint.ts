/**
 * Wiki lint (SPEC lint table, CONTRACT §13.5): a pure function from candidate files to findings.
 * Every check runs over every candidate file; "parsed pages" are files whose frontmatter is a mapping with an id.
 */
import { daysBetween, localDate, parseWikiDate } from './dates.js';
import { isSafePageId } from './ids.js';
import { STALE_AFTER_DAYS } from './limits.js';
import { headings } from './markdown.js';
import { get, printable } from './page.js';
import {
  DATE_FIELDS,
  DOI_CONFIDENCES,
  DOI_SOURCES,
  PAGE_STATUSES,
  PAGE_TYPES,
  type FileProblem,
  type FrontmatterMap,
  type FrontmatterValue,
  type PageFile,
} from './types.js';

export const LINT_CODES = ['W001', 'W002', 'W003', 'W004', 'W005', 'W006', 'W007', 'W008', 'W009'] as const;
export type LintCode = (typeof LINT_CODES)[number];
export type LintSeverity = 'error' | 'warning' | 'info';

export const LINT_SEVERITY: Readonly<Record<LintCode, LintSeverity>> = {
  W001: 'error',
  W002: 'error',
  W003: 'info',
  W004: 'warning',
  W005: 'warning',
  W006: 'error',
  W007: 'info',
  W008: 'warning',
  W009: 'info',
};

export interface LintFinding {
  code: LintCode;
  severity: LintSeverity;
  /** The page id when the frontmatter has a non-empty string id, else `null`. */
  page_id: string | null;
  /** Path relative to the wiki root. */
  file: string;
  message: string;
  suggestion: string;
}

export interface LintFix {
  file: string;
  page_id: string | null;
  field: 'created_at' | 'status';
  value: string;
}

export interface LintResult {
  total_issues: number;
  errors: number;
  warnings: number;
  info: number;
  issues: LintFinding[];
  fixed: LintFix[];
}

export interface LintOptions {
  /** "Now" for W007 (today = its local date). Default: the current time. */
  now?: Date;
}

/** Required frontmatter fields, in the order W001 reports them. */
export const REQUIRED_FIELDS = ['id', 'title', 'type', 'created_at', 'status'] as const;
const LIST_FIELDS = ['tags', 'related', 'prerequisites'] as const;
const ORPHAN_EXEMPT_IDS = new Set(['index', 'log']);

/** Lint candidate files (sorted by path, as a scan gives them). */
export function lintFiles(files: readonly PageFile[], options: LintOptions = {}): LintResult {
  const today = localDate(options.now ?? new Date());
  const parsedIds = new Set<string>();
  const incoming = new Set<string>();
  for (const file of files) {
    if (file.id === null) continue;
    parsedIds.add(file.id);
    for (const link of file.links) if (link.target !== '' && link.target !== file.id) incoming.add(link.target);
  }
  const firstPathById = new Map<string, string>();
  const issues: LintFinding[] = [];
  for (const file of files) {
    const add = (code: LintCode, message: string, suggestion: string): void => {
      issues.push({ code, severity: LINT_SEVERITY[code], page_id: file.id, file: file.path, message, suggestion });
    };
    const fm = file.frontmatter;
    if (fm === null) {
      add('W001', 'Missing or unparseable frontmatter', problemSuggestion(file.problem));
      checkBrokenLinks(file, parsedIds, add);
      continue;
    }
    const type = get(fm, 'type');
    checkRequired(fm, add);
    checkValues(fm, add);
    if (file.id !== null && type !== 'source' && !ORPHAN_EXEMPT_IDS.has(file.id) && !incoming.has(file.id)) {
      add('W003', 'Orphan page: no incoming links', `Link to it from a related page with [[${file.id}]].`);
    }
    checkBrokenLinks(file, parsedIds, add);
    if (type === 'concept' && !hasDefinitionSection(file.body)) {
      add(
        'W005',
        'Missing concept definition',
        'Add a "## Definition" (or "## Summary") section with at least one line of text.',
      );
    }
    if (file.id !== null) {
      const first = firstPathById.get(file.id);
      if (first === undefined) firstPathById.set(file.id, file.path);
      else {
        add(
          'W006',
          `Duplicate page ID: ${file.id} (first occurrence: ${first})`,
          'Give this page a unique id; only the first file with an id is served.',
        );
      }
    }
    const lastTouched = parseWikiDate(get(fm, 'updated_at')) ?? parseWikiDate(get(fm, 'created_at'));
    if (lastTouched !== null && daysBetween(lastTouched, today) > STALE_AFTER_DAYS) {
      add(
        'W007',
        `Outdated page: not updated since ${lastTouched}`,
        'Review the page and set updated_at to the date of the review.',
      );
    }
    if (type === 'entity' && !hasStringItem(get(fm, 'tags'))) {
      add('W008', 'Entity page has no tags', 'Add a tags list, e.g. tags: [quantum-algorithms].');
    }
    if (
      type === 'source' &&
      isPaperPage(fm, file.id) &&
      isEmpty(get(fm, 'doi')) &&
      get(fm, 'doi_source') !== 'unresolved'
    ) {
      add(
        'W009',
        'Paper page missing DOI',
        'Add the bare DOI (doi: 10.xxxx/...), or set doi_source: unresolved when the paper has none.',
      );
    }
  }
  return summarise(issues, []);
}

/** Totals for a list of findings. */
export function summarise(issues: LintFinding[], fixed: LintFix[]): LintResult {
  let errors = 0;
  let warnings = 0;
  let info = 0;
  for (const issue of issues) {
    if (issue.severity === 'error') errors++;
    else if (issue.severity === 'warning') warnings++;
    else info++;
  }
  return { total_issues: issues.length, errors, warnings, info, issues, fixed };
}

type Add = (code: LintCode, message: string, suggestion: string) => void;

function checkRequired(fm: FrontmatterMap, add: Add): void {
  for (const field of REQUIRED_FIELDS) {
    if (isEmpty(get(fm, field))) {
      add('W001', `Missing required field: ${field}`, requiredSuggestion(field));
    }
  }
}

function checkValues(fm: FrontmatterMap, add: Add): void {
  const invalid = (field: string, value: FrontmatterValue | undefined, why: string): void => {
    add('W002', `Invalid ${field} value: ${render(value)}`, why);
  };
  const id = get(fm, 'id');
  if (!isEmpty(id) && (typeof id !== 'string' || !isSafePageId(id.trim()))) {
    invalid('id', id, 'Use a kebab-case string id without "/", "..", "#", "|", brackets or control characters.');
  }
  const title = get(fm, 'title');
  if (!isEmpty(title) && typeof title !== 'string') invalid('title', title, 'The title must be a string; quote it.');
  const type = get(fm, 'type');
  if (!isEmpty(type) && !oneOf(type, PAGE_TYPES)) invalid('type', type, `Use one of: ${PAGE_TYPES.join(', ')}.`);
  const status = get(fm, 'status');
  if (!isEmpty(status) && !oneOf(status, PAGE_STATUSES)) {
    invalid('status', status, `Use one of: ${PAGE_STATUSES.join(', ')}.`);
  }
  for (const field of DATE_FIELDS) {
    const value = get(fm, field);
    if (!isEmpty(value) && parseWikiDate(value) === null) {
      invalid(field, value, 'Use a real calendar date written YYYY-MM-DD.');
    }
  }
  for (const field of LIST_FIELDS) {
    const value = get(fm, field);
    if (value !== undefined && value !== null && !(Array.isArray(value) && value.every((v) => typeof v === 'string'))) {
      invalid(field, value, `Write ${field} as a YAML list of strings, e.g. ${field}: [a, b].`);
    }
  }
  const doiSource = get(fm, 'doi_source');
  if (!isEmpty(doiSource) && !oneOf(doiSource, DOI_SOURCES)) {
    invalid('doi_source', doiSource, `Use one of: ${DOI_SOURCES.join(', ')}.`);
  }
  const doiConfidence = get(fm, 'doi_confidence');
  if (!isEmpty(doiConfidence) && !oneOf(doiConfidence, DOI_CONFIDENCES)) {
    invalid('doi_confidence', doiConfidence, `Use one of: ${DOI_CONFIDENCES.join(', ')}.`);
  }
  for (const field of ['graph_synced', 'neo4j_synced']) {
    const value = get(fm, field);
    if (value !== undefined && value !== null && typeof value !== 'boolean') {
      invalid(field, value, 'Use true or false.');
    }
  }
  const doi = get(fm, 'doi');
  if (!isEmpty(doi) && !isBareDoi(doi)) {
    invalid('doi', doi, 'Write the bare DOI without scheme, host or spaces, e.g. 10.1137/S0097539795293172.');
  }
}

/** A bare DOI: a string with no URI scheme, no host part and no whitespace. */
export function isBareDoi(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const doi = value.trim();
  if (/\s/.test(doi)) return false;
  if (/^[a-z][a-z0-9+.-]*:/i.test(doi)) return false; // https:, doi:, urn:, ...
  const firstSegment = doi.split('/')[0] ?? '';
  // A host before the first slash (doi.org/..., www.example.com/...); a DOI starts with its `10.` prefix instead.
  if (doi.includes('/') && !firstSegment.startsWith('10.') && /\.[a-z]{2,}$/i.test(firstSegment)) return false;
  return true;
}

function checkBrokenLinks(file: PageFile, parsedIds: ReadonlySet<string>, add: Add): void {
  const reported = new Set<string>();
  for (const link of file.links) {
    if (link.target === '' || reported.has(link.target) || parsedIds.has(link.target)) continue;
    reported.add(link.target);
    add(
      'W004',
      `Broken link: [[${link.target}]]`,
      `Create a page with id '${printable(link.target)}' or correct the link target.`,
    );
  }
}

/**
 * Whether a body has a level-2 heading `Definition` or `Summary` (case-insensitive) followed by non-empty text
 * before the next heading of level 1 or 2. Headings inside code blocks do not count; a code block is text.
 */
export function hasDefinitionSection(body: string): boolean {
  const lines = body.split('\n');
  const all = headings(body);
  const headingLines = new Set(all.map((h) => h.line));
  for (let i = 0; i < all.length; i++) {
    const h = all[i]!;
    if (h.level !== 2 || !['definition', 'summary'].includes(h.text.toLowerCase())) continue;
    const next = all.slice(i + 1).find((n) => n.level <= 2);
    const end = next ? next.line : lines.length;
    for (let line = h.line + 1; line < end; line++) {
      if (!headingLines.has(line) && lines[line]!.trim() !== '') return true;
    }
  }
  return false;
}

function isPaperPage(fm: FrontmatterMap, id: string | null): boolean {
  return get(fm, 'category') === 'paper' || (id !== null && id.startsWith('paper-'));
}

/** Missing or empty: absent, null, a blank string, an empty list or an empty mapping. */
export function isEmpty(value: FrontmatterValue | undefined): boolean {
  if (value === undefined || value === null) return true;
  if (typeof value === 'string') return value.trim() === '';
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === 'object') return Object.keys(value).length === 0;
  return false;
}

function hasStringItem(value: FrontmatterValue | undefined): boolean {
  return Array.isArray(value) && value.some((v) => typeof v === 'string' && v.trim() !== '');
}

function oneOf(value: FrontmatterValue | undefined, allowed: readonly string[]): boolean {
  return typeof value === 'string' && allowed.includes(value);
}

function render(value: FrontmatterValue | undefined): string {
  if (typeof value === 'string') return printable(value);
  const json = JSON.stringify(value ?? null);
  return json.length > 120 ? `${json.slice(0, 117)}...` : json;
}

function requiredSuggestion(field: (typeof REQUIRED_FIELDS)[number]): string {
  switch (field) {
    case 'id':
      return 'Add an id, e.g. id: concept-my-topic (kebab-case, usually the file name).';
    case 'title':
      return 'Add a human-readable title, e.g. title: My Topic.';
    case 'type':
      return 'Add type: concept (new pages) plus a category.';
    case 'created_at':
      return 'Add created_at: YYYY-MM-DD (pks wiki lint --fix adds today).';
    case 'status':
      return 'Add status: draft, review or published (pks wiki lint --fix adds draft).';
  }
}

function problemSuggestion(problem: FileProblem | null): string {
  const reason = problem ? `${capitalise(problem.message)}. ` : '';
  switch (problem?.kind) {
    case 'too_large':
      return `${reason}The page is skipped; split it into smaller pages.`;
    case 'binary':
    case 'not_utf8':
    case 'unreadable':
      return `${reason}The file is skipped; pages must be UTF-8 text.`;
    case 'frontmatter_too_large':
    case 'too_many_aliases':
      return `${reason}Keep the frontmatter small and plain.`;
    default:
      return `${reason}Start the file with a --- line, a YAML mapping (id, title, type, created_at, status) and a closing --- line.`;
  }
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
