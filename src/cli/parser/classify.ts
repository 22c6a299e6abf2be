/** Classification of MinerU errors (CONTRACT §12.4 "Error classification"; first matching rule wins). */
export type ParserErrorKind = 'daily_limit' | 'retryable' | 'fatal' | 'unclassified';

export interface ParserFailure {
  /** HTTP status of the answer; `null` for a network error or a task's `err_msg`. */
  readonly httpStatus: number | null;
  /** The envelope `code`, when there was one. */
  readonly code: number | string | null;
  readonly message: string;
  /** Network error or timeout. */
  readonly network?: boolean;
}

const DAILY_CODES = new Set(['-60018', '-60019']);
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
const FATAL_CODES = new Set(['A0202', 'A0211', '-500', '-10002', ...range(-60006, -60002), ...range(-60017, -60011)]);

const FATAL_TEXT = [
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
const DAILY_TEXT = [
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

function range(from: number, to: number): string[] {
  const out: string[] = [];
  for (let n = from; n <= to; n++) out.push(String(n));
  return out;
}

export function classifyParserFailure(f: ParserFailure): ParserErrorKind {
  const code = f.code === null ? null : String(f.code).trim();
  if (f.httpStatus === 429) return 'daily_limit';
  if (code !== null && DAILY_CODES.has(code)) return 'daily_limit';
  if (code !== null && RETRYABLE_CODES.has(code)) return 'retryable';
  if (code !== null && FATAL_CODES.has(code)) return 'fatal';
  if (f.httpStatus === 401 || f.httpStatus === 403) return 'fatal';
  return classifyText(f.message, f.httpStatus, f.network === true);
}

/** Rules 6a–8 on a text (also used for the `err_msg` of failed tasks). */
export function classifyText(message: string, httpStatus: number | null = null, network = false): ParserErrorKind {
  const lower = message.toLowerCase();
  if (FATAL_TEXT.some((t) => lower.includes(t))) return 'fatal';
  if (DAILY_TEXT.some((t) => lower.includes(t))) return 'daily_limit';
  if (network || (httpStatus !== null && (httpStatus >= 500 || httpStatus === 408))) return 'retryable';
  return 'unclassified';
}
