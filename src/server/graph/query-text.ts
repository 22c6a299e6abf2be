/**
 * Textual rules of `POST /api/graph/query` (CONTRACT §14, §14.1): control characters, administration commands by
 * their first keyword, a fast refusal of `LOAD CSV` and of the `apoc.load.*`, `apoc.import.*`, `apoc.export.*`
 * procedures outside string literals and comments, and the `LIMIT` rule. None of this decides what the query may do:
 * the plan does (query-plan.ts); these only answer early what the plan would refuse anyway. Every step is linear in
 * the query's length (no pattern here can backtrack over a run of the input).
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

const CONTROL_CHARACTERS_REFUSED = 'control characters are not allowed in graph queries';
const ADMINISTRATION_REFUSED = 'administration commands are not allowed in graph queries';
export const LOAD_CSV_REFUSED = 'LOAD CSV is not allowed in graph queries';

/**
 * U+0000–U+0008, U+000B, U+000C, U+000E–U+001F, U+007F, U+0085, U+2028, U+2029 (§14.1): characters some lexer may
 * take for whitespace where ours does not (Neo4j's treats U+001C–U+001F as whitespace; JavaScript's `\s` does not).
 */
function isControlCharacter(code: number): boolean {
  return (
    code <= 0x08 ||
    code === 0x0b ||
    code === 0x0c ||
    (code >= 0x0e && code <= 0x1f) ||
    code === 0x7f ||
    code === 0x85 ||
    code === 0x2028 ||
    code === 0x2029
  );
}

function hasControlCharacter(query: string): boolean {
  for (let i = 0; i < query.length; i++) if (isControlCharacter(query.charCodeAt(i))) return true;
  return false;
}

/** First keywords of administration commands (§14.1). */
const ADMINISTRATION_KEYWORDS = new Set([
  'SHOW',
  'TERMINATE',
  'CREATE',
  'DROP',
  'ALTER',
  'GRANT',
  'DENY',
  'REVOKE',
  'START',
  'STOP',
  'ENABLE',
  'RENAME',
]);
const FIRST_WORD = /^\s*([A-Za-z]+)/;
/**
 * `CREATE` opening a pattern (`CREATE (n)`, `CREATE p = (…)`) is the data clause, not an administration command: the
 * plan refuses it as a write, in words that say so (`the graph is read-only: CREATE is not allowed`).
 */
const CREATE_PATTERN = /^\s*CREATE\s*(?:\(|[A-Za-z_][A-Za-z0-9_]*\s*=)/i;
const LOAD_CSV = /\bLOAD\s+CSV\b/i;
const APOC_FAMILY = /\bapoc\s*\.\s*(load|import|export)\s*\./i;
const LIMIT_WORD = /\bLIMIT\b/gi;

/** What JavaScript's `\s` matches, by code (a regular expression per character costs ~15 ns each on 1 MiB). */
function isWhitespace(code: number): boolean {
  return (
    (code >= 0x09 && code <= 0x0d) ||
    code === 0x20 ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/**
 * Whether `code` holds the keyword `LIMIT`: the word, not a property (`n.limit`), parameter (`$limit`), label
 * (`:Limit`) or map key (`{limit: 1}`). Each look around a candidate crosses one run of whitespace, and every run
 * borders at most two candidates: linear.
 */
function hasLimitKeyword(code: string): boolean {
  LIMIT_WORD.lastIndex = 0;
  for (let found = LIMIT_WORD.exec(code); found; found = LIMIT_WORD.exec(code)) {
    let before = found.index - 1;
    while (before >= 0 && isWhitespace(code.charCodeAt(before))) before--;
    let after = found.index + found[0].length;
    while (after < code.length && isWhitespace(code.charCodeAt(after))) after++;
    if (!'.$:'.includes(code[before] ?? ' ') && code[after] !== ':') return true;
  }
  return false;
}

/** `query` without trailing whitespace and `;`, scanned from the end (a pattern anchored at `$` is quadratic). */
function trimTrailing(query: string): string {
  let end = query.length;
  while (end > 0 && (query.charCodeAt(end - 1) === 0x3b || isWhitespace(query.charCodeAt(end - 1)))) end--;
  return query.slice(0, end);
}

/** Throws `InvalidInputError` for a query the endpoint refuses before it reaches the database. */
export function checkQueryText(lexed: LexedQuery): void {
  const first = FIRST_WORD.exec(lexed.code)?.[1]?.toUpperCase();
  if (first !== undefined && ADMINISTRATION_KEYWORDS.has(first) && !CREATE_PATTERN.test(lexed.code)) {
    throw new InvalidInputError(ADMINISTRATION_REFUSED);
  }
  if (LOAD_CSV.test(lexed.code)) throw new InvalidInputError(LOAD_CSV_REFUSED);
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
export function withLimit(query: string, lexed: LexedQuery, limit: number): PreparedQuery {
  if (hasLimitKeyword(lexed.code)) return { run: query, sent: query, appended: null };
  const trimmed = trimTrailing(query);
  const appended = lexQuery(trimmed).endsInLineComment ? `\nLIMIT ${limit}` : ` LIMIT ${limit}`;
  return { run: trimmed + appended, sent: trimmed, appended: appended.trim() };
}

/** A query that passed the textual rules. */
export interface PreparedQuery {
  /** The query as run. */
  readonly run: string;
  /** The user's part of `run`: the query as sent, without what the LIMIT rule trimmed. */
  readonly sent: string;
  /** What the LIMIT rule appended after `sent` (`LIMIT 50`), or null. */
  readonly appended: string | null;
}

/** Validates a query (400s of §14 and §14.1 that need no database) and returns the text to run. */
export function prepareQuery(query: string, limit: number | undefined): PreparedQuery {
  if (query.trim() === '') throw new InvalidInputError('query required');
  if (hasControlCharacter(query)) throw new InvalidInputError(CONTROL_CHARACTERS_REFUSED);
  const lexed = lexQuery(query);
  checkQueryText(lexed);
  return withLimit(query, lexed, effectiveLimit(limit));
}
