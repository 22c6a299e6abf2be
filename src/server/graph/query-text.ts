/**
 * Textual rules of `POST /api/graph/query` (CONTRACT §14): the refusal of `LOAD CSV` and of the `apoc.load.*`,
 * `apoc.import.*`, `apoc.export.*` procedures outside string literals and comments, and the `LIMIT` rule. Writes
 * are not judged here at all: the database refuses them in the read transaction the query runs in.
 *
 * A small Cypher lexer splits the query into code, string literals (`'…'`, `"…"`, backslash escapes), quoted
 * identifiers (`` `…` ``, a doubled backtick escapes one) and comments (`// …` to the end of the line, `/* … *\/`).
 */
import { InvalidInputError } from '../../shared/domain-errors.js';

export const DEFAULT_QUERY_LIMIT = 50;
export const MAX_QUERY_RECORDS = 10_000;

export interface LexedQuery {
  /** The code with each comment replaced by a space, each string literal by `''` and each quoted identifier by `_`. */
  readonly code: string;
  /** The same, but quoted identifiers keep their (unescaped) name: `` `apoc.load`.json `` reads `apoc.load.json`. */
  readonly names: string;
  /** The query ends inside a `//` comment (text appended on the same line would be commented out). */
  readonly endsInLineComment: boolean;
}

/** Where the next comment, literal or quoted identifier may start. */
const SPECIAL = /[/'"`]/g;

export function lexQuery(query: string): LexedQuery {
  const code: string[] = [];
  const names: string[] = [];
  const both = (text: string): void => {
    code.push(text);
    names.push(text);
  };
  const n = query.length;
  let endsInLineComment = false;
  let i = 0;
  while (i < n) {
    SPECIAL.lastIndex = i;
    const found = SPECIAL.exec(query);
    const at = found ? found.index : n;
    if (at > i) both(query.slice(i, at));
    i = at;
    if (i >= n) break;
    const c = query[i]!;
    const next = query[i + 1];
    if (c === '/' && next === '/') {
      const end = query.indexOf('\n', i + 2);
      endsInLineComment = end < 0;
      i = end < 0 ? n : end;
      both(' ');
    } else if (c === '/' && next === '*') {
      const end = query.indexOf('*/', i + 2);
      i = end < 0 ? n : end + 2;
      both(' ');
    } else if (c === '/') {
      both('/');
      i++;
    } else if (c === "'" || c === '"') {
      i++;
      while (i < n && query[i] !== c) i += query[i] === '\\' ? 2 : 1;
      i++;
      both("''");
    } else {
      let name = '';
      i++;
      while (i < n) {
        if (query[i] === '`') {
          if (query[i + 1] !== '`') break;
          name += '`';
          i += 2;
        } else name += query[i++];
      }
      i++;
      code.push('_');
      names.push(name);
    }
  }
  return { code: code.join(''), names: names.join(''), endsInLineComment };
}

const LOAD_CSV = /\bLOAD\s+CSV\b/i;
const APOC_FAMILY = /\bapoc\s*\.\s*(load|import|export)\s*\./i;
/** The keyword, not a property (`n.limit`), parameter (`$limit`), label (`:Limit`) or map key (`{limit: 1}`). */
const LIMIT_KEYWORD = /(?<![.$:]\s*)\bLIMIT\b(?!\s*:)/i;

/** Throws `InvalidInputError` for a query the endpoint refuses before it reaches the database. */
export function checkQueryText(lexed: LexedQuery): void {
  if (LOAD_CSV.test(lexed.code)) throw new InvalidInputError('LOAD CSV is not allowed in graph queries');
  const apoc = APOC_FAMILY.exec(lexed.names);
  if (apoc) throw new InvalidInputError(`apoc.${apoc[1]!.toLowerCase()}.* is not allowed in graph queries`);
}

/** `limit` ≤ 0 or absent → 50; clamped to 10,000. */
export function effectiveLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit) || limit <= 0) return DEFAULT_QUERY_LIMIT;
  return Math.min(MAX_QUERY_RECORDS, Math.floor(limit));
}

/**
 * The query as run: unchanged when it has a `LIMIT` keyword; else without trailing whitespace and `;`, with
 * ` LIMIT <limit>` appended (on a new line when the query ends in a `//` comment).
 */
export function withLimit(query: string, lexed: LexedQuery, limit: number): string {
  if (LIMIT_KEYWORD.test(lexed.code)) return query;
  const trimmed = query.replace(/[\s;]+$/, '');
  return lexQuery(trimmed).endsInLineComment ? `${trimmed}\nLIMIT ${limit}` : `${trimmed} LIMIT ${limit}`;
}

/** Validates a query (400s of §14) and returns the text to run. */
export function prepareQuery(query: string, limit: number | undefined): string {
  if (query.trim() === '') throw new InvalidInputError('query required');
  const lexed = lexQuery(query);
  checkQueryText(lexed);
  return withLimit(query, lexed, effectiveLimit(limit));
}
