/**
 * Frontmatter dates (CONTRACT §13.1): `YYYY-MM-DD`, RFC 3339, `YYYY-MM-DD HH:MM:SS`, and YAML timestamps.
 * Every accepted form is reduced to its calendar date `YYYY-MM-DD` as written (no time-zone shift).
 */

const DATE_RE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:[Zz]|([+-])(\d{2}):(\d{2}))?)?$/;

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** `YYYY-MM-DD` of a string when it is one of the accepted forms and a real calendar date, else `null`. */
export function parseDateString(value: string): string | null {
  const trimmed = value.trim();
  if (trimmed.length === 10) return plainDate(trimmed);
  const m = DATE_RE.exec(trimmed);
  if (!m) return null;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  // A date alone is its own calendar date: the string as given, not a new one.
  if (m[4] === undefined) return trimmed;
  if (Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6]) > 60) return null;
  if (m[7] !== undefined && (Number(m[8]) > 23 || Number(m[9]) > 59)) return null;
  return `${m[1]}-${m[2]}-${m[3]}`;
}

/**
 * `parseDateString` of a 10-character string, the usual `YYYY-MM-DD`, read without the regular expression and its
 * match array (a load parses every page's dates twice).
 */
function plainDate(text: string): string | null {
  for (let i = 0; i < 10; i++) {
    const c = text.charCodeAt(i);
    if (i === 4 || i === 7 ? c !== 0x2d /* - */ : c < 0x30 || c > 0x39) return null;
  }
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 7);
  const day = digits(text, 8, 10);
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  return text;
}

/** The number written by the ASCII digits `text[start, end)`. */
function digits(text: string, start: number, end: number): number {
  let n = 0;
  for (let i = start; i < end; i++) n = n * 10 + text.charCodeAt(i) - 0x30;
  return n;
}

/** `YYYY-MM-DD` (UTC) of a valid `Date`, else `null`. */
export function formatUtcDate(date: Date): string | null {
  const t = date.getTime();
  if (Number.isNaN(t)) return null;
  const y = date.getUTCFullYear();
  if (y < 1 || y > 9999) return null;
  return `${pad(y, 4)}-${pad(date.getUTCMonth() + 1, 2)}-${pad(date.getUTCDate(), 2)}`;
}

/** The calendar date of a frontmatter value, or `null` when it is not a valid date. */
export function parseWikiDate(value: unknown): string | null {
  if (typeof value === 'string') return parseDateString(value);
  if (value instanceof Date) return formatUtcDate(value);
  return null;
}

/** Local calendar date of `now` as `YYYY-MM-DD` ("today" for lint and `--fix`). */
export function localDate(now: Date): string {
  return `${pad(now.getFullYear(), 4)}-${pad(now.getMonth() + 1, 2)}-${pad(now.getDate(), 2)}`;
}

/** Whole days from calendar date `from` to calendar date `to` (both `YYYY-MM-DD`); negative when `to` is earlier. */
export function daysBetween(from: string, to: string): number {
  const a = Date.UTC(Number(from.slice(0, 4)), Number(from.slice(5, 7)) - 1, Number(from.slice(8, 10)));
  const b = Date.UTC(Number(to.slice(0, 4)), Number(to.slice(5, 7)) - 1, Number(to.slice(8, 10)));
  return Math.round((b - a) / 86_400_000);
}

/** RFC 3339 timestamp at midnight UTC for a `YYYY-MM-DD` date (API responses, CONTRACT §13.4). */
export function dateToRfc3339(date: string | null): string | null {
  return date === null ? null : `${date}T00:00:00Z`;
}
