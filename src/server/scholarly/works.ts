/**
 * OpenAlex work objects of the snapshot (CONTRACT §12.2, §12.3): the fields the bootstrap decides and loads by.
 */
import { normaliseDoi } from '../../shared/doi.js';
import { arxivIdOfWork } from '../access/openalex-client.js';
import type { ScholarlyPaper } from '../graph/scholarly.js';

export type Work = Readonly<Record<string, unknown>>;

/** Seed selection of pass 1 (§15.8). */
export interface SeedRules {
  /** `--seed-pattern`, case-insensitive (default `\bquantum\b`). */
  readonly pattern: RegExp;
  /** Whether a versionless arXiv id has a row in the metadata index. */
  readonly inIndex: (versionless: string) => boolean;
}

/** Concepts count for the seed pattern from this score on (topics count whatever their score). */
export const CONCEPT_MIN_SCORE = 0.3;

const WORK_URL = /^https?:\/\/openalex\.org\/W(\d+)$/;

/** `https://openalex.org/W2741809807` → 2741809807; `null` for anything else. */
export function workIdOf(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const m = WORK_URL.exec(value);
  return m ? Number(m[1]) : null;
}

/** Parses one snapshot line; throws `SyntaxError` when it is not a JSON object. */
export function parseWork(line: Buffer): Work {
  const value: unknown = JSON.parse(line.toString('utf8'));
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new SyntaxError('the line is not a JSON object');
  }
  return value as Work;
}

/** The versionless arXiv id (§12.2: the first location URL on arxiv.org), or `null`. */
export const arxivIdOf = (work: Work): string | null => arxivIdOfWork(work);

/** The work ids of `referenced_works` (entries that are no work URL are ignored). */
export function referencedWorkIds(work: Work): number[] {
  const refs = work['referenced_works'];
  if (!Array.isArray(refs)) return [];
  const out: number[] = [];
  for (const ref of refs) {
    const id = workIdOf(ref);
    if (id !== null) out.push(id);
  }
  return out;
}

const list = (value: unknown): readonly unknown[] => (Array.isArray(value) ? value : []);
const field = (value: unknown, key: string): unknown =>
  value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;

/** Whether a topic or concept name matches the seed pattern (§15.8 pass 1). */
function matchesSubject(work: Work, pattern: RegExp): boolean {
  const matches = (name: unknown): boolean => typeof name === 'string' && pattern.test(name);
  for (const topic of list(work['topics'])) {
    if (
      matches(field(topic, 'display_name')) ||
      matches(field(field(topic, 'subfield'), 'display_name')) ||
      matches(field(field(topic, 'field'), 'display_name'))
    ) {
      return true;
    }
  }
  for (const concept of list(work['concepts'])) {
    const score = field(concept, 'score');
    if (typeof score === 'number' && score >= CONCEPT_MIN_SCORE && matches(field(concept, 'display_name'))) return true;
  }
  return false;
}

/**
 * A work is a seed iff it has an arXiv id and (the id is old-style `quant-ph/…`, or a topic/concept name matches
 * the seed pattern, or the id is in the metadata index).
 */
export function isSeed(work: Work, arxivId: string | null, rules: SeedRules): boolean {
  if (arxivId === null) return false;
  return arxivId.startsWith('quant-ph/') || matchesSubject(work, rules.pattern) || rules.inIndex(arxivId);
}

function doiOf(work: Work): string | null {
  for (const raw of [work['doi'], field(work['ids'], 'doi')]) {
    if (typeof raw !== 'string') continue;
    const doi = normaliseDoi(raw);
    if (doi.ok) return doi.doi;
  }
  return null;
}

function authorsOf(work: Work): string[] {
  const out: string[] = [];
  for (const authorship of list(work['authorships'])) {
    const name = field(field(authorship, 'author'), 'display_name') ?? field(authorship, 'raw_author_name');
    if (typeof name === 'string' && name.trim() !== '') out.push(name);
  }
  return out;
}

const stringOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** §12.2's field rules: title (fallback `display_name`), DOI (fallback `ids.doi`), authors' display names. */
export function paperMetadata(work: Work, workId: number, arxivId: string): ScholarlyPaper {
  const cited = work['cited_by_count'];
  return {
    preprint_id: arxivId,
    openalex_id: `W${workId}`,
    doi: doiOf(work),
    title: stringOrNull(work['title']) ?? stringOrNull(work['display_name']),
    authors: authorsOf(work),
    publication_date: stringOrNull(work['publication_date']),
    cited_by_count: typeof cited === 'number' && Number.isInteger(cited) ? cited : null,
  };
}
