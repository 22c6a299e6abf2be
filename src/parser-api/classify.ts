/**
 * The MinerU error classifier (CONTRACT §12.4): first matching rule wins; codes may be numbers or strings. One copy
 * for the server's conversions and the client's `contrib parser`.
 */

export type ParserErrorClass = 'daily_limit' | 'retryable' | 'fatal' | 'unclassified';

const DAILY_LIMIT_CODES = new Set(['-60018', '-60019']);
const RETRYABLE_CODES = new Set([
  '-10001',
  '-60001',
  '-60007',
  '-60008',
  '-60009',
  '-60010',
  '-60020',
  '-60021',
  '-60022',
]);
const FATAL_CODES = new Set(['A0202', 'A0211', '-500', '-10002', ...range(60002, 60006), ...range(60011, 60017)]);

function range(from: number, to: number): string[] {
  const out: string[] = [];
  for (let n = from; n <= to; n++) out.push(`-${n}`);
  return out;
}

const FATAL_TEXTS = [
  'number of pages exceeds',
  'exceeds limit (200 pages)',
  'exceeds the page limit',
  'exceeds page limit',
  'split the file',
  '页数超过',
  '页数超出',
  '页数已超',
  'file size exceeds',
  'exceeds 200mb',
  'exceeds 200 mb',
  '文件大小超出',
  '文件大小超过',
  '文件过大',
];
const DAILY_LIMIT_TEXTS = [
  'quota',
  '5000',
  'restricted',
  'tomorrow',
  'next day',
  'daily',
  'today',
  '额度',
  '上限',
  '次日',
  '明日',
  '明天',
];

export interface ParserErrorFacts {
  /** HTTP status, `null` for a network error or timeout. */
  readonly httpStatus: number | null;
  /** The envelope's `code`, when there was one. */
  readonly code?: number | string | null;
  /** The error text (`msg`, or `err_msg` of a failed task). */
  readonly message: string;
  /** No answer: connection error or timeout. */
  readonly network?: boolean;
}

/** Rules 6a–8 on a text alone (also used for `err_msg` of `failed` tasks). */
export function classifyParserText(text: string, httpStatus: number | null = null, network = false): ParserErrorClass {
  const lower = text.toLowerCase();
  if (FATAL_TEXTS.some((t) => lower.includes(t))) return 'fatal';
  if (DAILY_LIMIT_TEXTS.some((t) => lower.includes(t))) return 'daily_limit';
  if (network || (httpStatus !== null && (httpStatus >= 500 || httpStatus === 408))) return 'retryable';
  return 'unclassified';
}

/** The whole table: HTTP status, envelope code, message. */
export function classifyParserError(facts: ParserErrorFacts): ParserErrorClass {
  const code = facts.code === undefined || facts.code === null ? null : String(facts.code).trim();
  if (facts.httpStatus === 429) return 'daily_limit';
  if (code !== null) {
    if (DAILY_LIMIT_CODES.has(code)) return 'daily_limit';
    if (RETRYABLE_CODES.has(code)) return 'retryable';
    if (FATAL_CODES.has(code)) return 'fatal';
  }
  if (facts.httpStatus === 401 || facts.httpStatus === 403) return 'fatal';
  return classifyParserText(facts.message, facts.httpStatus, facts.network ?? false);
}
