/**
 * Byte-level pre-checks that let the filter skip the JSON parse of lines that cannot be kept. They are sound: a
 * line they reject provably yields no seed (pass 1) or no kept work (pass 2); every other line is parsed and
 * decided exactly.
 *
 * Why they are sound: every decision needs ASCII text of the line's strings — an arXiv URL (`arxiv.org`) for a
 * seed, work URLs (`https://openalex.org/W<digits>`) for the ids and references. In JSON such text is either raw
 * in the line's bytes or written with an ASCII `\u00XX` escape (`\/` cannot hide a letter or a digit). So a line
 * without `\u00[0-7]` escapes that lacks the raw text cannot match.
 */
import type { IdSet } from './id-set.js';

const ARXIV_HOST = Buffer.from('arxiv.org');
const ESCAPE = Buffer.from('\\u00');
const WORK_MARK = Buffer.from('/W');
const ZERO = 0x30;
const NINE = 0x39;

/** Whether the line holds a `\u00XX` escape of an ASCII character (`XX` < 0x80). */
function hasAsciiEscape(line: Buffer): boolean {
  for (let at = line.indexOf(ESCAPE); at >= 0; at = line.indexOf(ESCAPE, at + 4)) {
    const c = line[at + 4];
    if (c !== undefined && c >= ZERO && c <= 0x37) return true;
  }
  return false;
}

/** Pass 1: `false` only for lines that cannot have an arXiv id (so cannot be seeds). */
export function mayBeSeed(line: Buffer): boolean {
  return line.includes(ARXIV_HOST) || hasAsciiEscape(line);
}

/**
 * Pass 2: `false` only for lines in which no `/W<digits>` number is in `ids` (the line's own id and its references
 * are such numbers).
 */
export function mentionsAny(line: Buffer, ids: readonly IdSet[]): boolean {
  for (let at = line.indexOf(WORK_MARK); at >= 0; at = line.indexOf(WORK_MARK, at + 2)) {
    let i = at + 2;
    let n = 0;
    let digits = 0;
    for (let c = line[i]; c !== undefined && c >= ZERO && c <= NINE; c = line[++i]) {
      n = n * 10 + (c - ZERO);
      digits++;
    }
    // Beyond 15 digits the arithmetic here could round differently from the parser's: decide by parsing.
    if (digits > 15 || (digits > 0 && ids.some((set) => set.has(n)))) return true;
  }
  return hasAsciiEscape(line);
}
