/**
 * Reading a long markdown in pieces (CONTRACT §20): offsets and lengths count Unicode code points (what Python's
 * `len` counts, and never half of a surrogate pair); a piece ends at a line end within its budget, and the
 * continuation hint tells where the next one starts. Pure: no I/O.
 */
import { isUtf8 } from 'node:buffer';

/** Code-point positions of a text, with its astral characters (two UTF-16 units) indexed once. */
export class CodePoints {
  /** UTF-16 index of every astral character, ascending. */
  private readonly astral: number[] = [];
  readonly length: number;

  constructor(readonly text: string) {
    for (const match of text.matchAll(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g)) this.astral.push(match.index);
    this.length = text.length - this.astral.length;
  }

  /** The UTF-16 index of code point `cp` (0..length). */
  toUnit(cp: number): number {
    // Astral characters before code point `cp`: the k-th (0-based) sits at code point `astral[k] - k`.
    let lo = 0;
    let hi = this.astral.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.astral[mid]! - mid < cp) lo = mid + 1;
      else hi = mid;
    }
    return cp + lo;
  }

  /** The code point at UTF-16 index `unit` (a character boundary). */
  toCodePoint(unit: number): number {
    let lo = 0;
    let hi = this.astral.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.astral[mid]! < unit) lo = mid + 1;
      else hi = mid;
    }
    return unit - lo;
  }
}

/** `[… N more characters; call again with offset=M]` (CONTRACT §20). */
export const continuationHint = (more: number, next: number): string =>
  `[… ${more} more characters; call again with offset=${next}]`;

export interface MarkdownWindow {
  /** The piece, exactly as stored. */
  readonly text: string;
  /** The continuation hint when the piece does not reach the end, else `null`. */
  readonly hint: string | null;
  readonly offset: number;
  /** Where the next piece starts (the end when `hint` is null). */
  readonly nextOffset: number;
  readonly total: number;
}

/** Characters a window of `maxChars` needs at least: a hint and some text. */
export const MIN_WINDOW_CHARS = 200;

const isContinuation = (byte: number): boolean => (byte & 0xc0) === 0x80;

/** The four byte lanes of `acc` summed (each lane below 256). */
const laneSum = (acc: number): number => (acc & 0xff) + ((acc >>> 8) & 0xff) + ((acc >>> 16) & 0xff) + (acc >>> 24);

/**
 * Code points in `bytes[from, to)`: the bytes less the UTF-8 continuation bytes (`10xxxxxx`), counted four at a time
 * on aligned words (a 2 MB paper in about a millisecond).
 */
function countCodePoints(bytes: Uint8Array, from: number, to: number): number {
  let continuations = 0;
  let i = from;
  for (; i < to && ((bytes.byteOffset + i) & 3) !== 0; i++) if (isContinuation(bytes[i]!)) continuations++;
  const words = (to - i) >>> 2;
  if (words > 0) {
    const view = new Uint32Array(bytes.buffer, bytes.byteOffset + i, words);
    let acc = 0;
    for (let w = 0; w < words; w++) {
      const x = view[w]!;
      // Per byte lane: bit 7 set and bit 6 clear.
      acc += (x >>> 7) & ~(x >>> 6) & 0x01010101;
      if ((w & 127) === 127) {
        continuations += laneSum(acc);
        acc = 0;
      }
    }
    continuations += laneSum(acc);
    i += words * 4;
  }
  for (; i < to; i++) if (isContinuation(bytes[i]!)) continuations++;
  return to - from - continuations;
}

/** The byte index where code point `count` after `from` starts (`bytes.length` when there are fewer). */
function advance(bytes: Uint8Array, from: number, count: number): number {
  let i = from;
  // Each code point takes at least one byte: step by what is still missing until none is.
  for (let missing = count; missing > 0 && i < bytes.length;) {
    const next = Math.min(bytes.length, i + missing);
    missing -= countCodePoints(bytes, i, next);
    i = next;
  }
  while (i < bytes.length && isContinuation(bytes[i]!)) i++;
  return i;
}

/**
 * The piece of the UTF-8 `bytes` from code point `offset` whose length plus its hint is at most `maxChars`, cut
 * after the last line end that fits (a single longer line is cut where the budget ends). `offset` past the end is
 * `null`. Works on the bytes as stored and decodes only the piece: a 2 MB paper is never decoded whole.
 */
export function markdownWindow(bytes: Buffer, offset: number, maxChars: number): MarkdownWindow | null {
  const total = countCodePoints(bytes, 0, bytes.length);
  return sliceWindow({ bytes, firstPoint: 0, total, toEnd: true }, offset, maxChars);
}

/** Bytes of a stored text read from some byte on: enough for a window when `windowBytes` chose them. */
export interface TextSlice {
  readonly bytes: Buffer;
  /** Code points of the whole text that start before `bytes` (whose first bytes may end the one before). */
  readonly firstPoint: number;
  /** Code points of the whole text. */
  readonly total: number;
  /** `bytes` reach the end of the text. */
  readonly toEnd: boolean;
}

/** `markdownWindow` of the whole text, computed from a slice of its bytes: the same piece, hint and numbers. */
export function sliceWindow(slice: TextSlice, offset: number, maxChars: number): MarkdownWindow | null {
  const { bytes, firstPoint, total } = slice;
  if (offset > total) return null;
  const start = advance(bytes, 0, offset - firstPoint);
  const needs = (enough: boolean): void => {
    // `windowBytes` reads enough bytes for any window; this guards the arithmetic, it is not a fallback.
    if (!enough) throw new Error(`the bytes read for the piece at ${offset} do not hold it`);
  };
  needs(offset >= firstPoint);
  if (total - offset <= maxChars) {
    needs(slice.toEnd);
    return { text: bytes.toString('utf8', start), hint: null, offset, nextOffset: total, total };
  }
  // The longest hint this text can need: both numbers at most `total`.
  const budget = maxChars - continuationHint(total, total).length;
  const limit = advance(bytes, start, budget);
  needs(slice.toEnd || limit < bytes.length);
  const newline = bytes.lastIndexOf(0x0a, limit - 1);
  const end = newline >= start ? newline + 1 : limit;
  const nextOffset = offset + countCodePoints(bytes, start, end);
  return {
    text: bytes.toString('utf8', start, end),
    hint: continuationHint(total - nextOffset, nextOffset),
    offset,
    nextOffset,
    total,
  };
}

/** Bytes between two checkpoints of a `TextIndex`. */
export const CHECKPOINT_BYTES = 16 * 1024;

/** What a stored text's pieces can be cut from without reading it whole: its length, and code points by byte. */
export interface TextIndex {
  /** Bytes of the text. */
  readonly size: number;
  /** Code points of the text. */
  readonly total: number;
  /** `checkpoints[k]`: the code points that start before byte `k · CHECKPOINT_BYTES`. */
  readonly checkpoints: readonly number[];
}

/** The index of a stored text, `null` when it is not valid UTF-8 (its pieces are then cut from the whole bytes). */
export function indexText(bytes: Buffer): TextIndex | null {
  if (!isUtf8(bytes)) return null;
  const checkpoints = [0];
  let total = 0;
  for (let from = 0; from < bytes.length; from += CHECKPOINT_BYTES) {
    total += countCodePoints(bytes, from, Math.min(bytes.length, from + CHECKPOINT_BYTES));
    checkpoints.push(total);
  }
  return { size: bytes.length, total, checkpoints };
}

/**
 * The bytes `[start, end)` of an indexed text that hold the window at `offset` of at most `maxChars` (an offset
 * past the end: the first byte, to learn that the text is unchanged), and the code points before `start`. From
 * the checkpoint at or before `offset` to the first checkpoint past `offset + maxChars`, and never more than 4
 * bytes a code point (the first may be preceded by at most 3 bytes of the one before).
 */
export function windowBytes(
  index: TextIndex,
  offset: number,
  maxChars: number,
): { start: number; end: number; firstPoint: number } {
  if (offset > index.total) return { start: 0, end: Math.min(1, index.size), firstPoint: 0 };
  // The last checkpoint inside the text (a range must hold a byte) at or before `offset`.
  let k = index.checkpoints.length - 1;
  while (k > 0 && (index.checkpoints[k]! > offset || k * CHECKPOINT_BYTES >= index.size)) k--;
  const start = k * CHECKPOINT_BYTES;
  const firstPoint = index.checkpoints[k]!;
  // Code point `offset + maxChars` starts before the first checkpoint past it: no later byte is needed.
  let past = k + 1;
  while (past < index.checkpoints.length && index.checkpoints[past]! <= offset + maxChars) past++;
  const end = Math.min(
    start + 4 * (offset - firstPoint + maxChars) + 4,
    start + CHECKPOINT_BYTES + 4 * maxChars,
    past * CHECKPOINT_BYTES,
  );
  return { start, end: Math.min(index.size, end), firstPoint };
}

export interface Heading {
  readonly level: number;
  readonly text: string;
  /** Code point where the heading line starts. */
  readonly offset: number;
  /** Code points up to the next heading of the same or a higher level (or the end). */
  readonly length: number;
}

const ATX_HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** Characters of a heading's text an outline shows (a heading is a title, not a paragraph). */
export const MAX_HEADING_CHARS = 200;

function headingText(raw: string): string {
  const chars = [...raw.trim()];
  return chars.length > MAX_HEADING_CHARS ? `${chars.slice(0, MAX_HEADING_CHARS - 1).join('')}…` : chars.join('');
}

/** The ATX headings of a markdown outside fenced code blocks, with the span of each section. */
export function outline(points: CodePoints): Heading[] {
  const { text } = points;
  const found: { level: number; text: string; offset: number }[] = [];
  let fence: string | null = null;
  let unit = 0;
  for (const line of text.split('\n')) {
    const lineStart = unit;
    unit += line.length + 1;
    const opening = FENCE.exec(line)?.[1];
    if (fence !== null) {
      if (opening !== undefined && opening[0] === fence[0] && opening.length >= fence.length) fence = null;
      continue;
    }
    if (opening !== undefined) {
      fence = opening;
      continue;
    }
    const match = ATX_HEADING.exec(line.replace(/\r$/, ''));
    if (match) {
      found.push({ level: match[1]!.length, text: headingText(match[2] ?? ''), offset: points.toCodePoint(lineStart) });
    }
  }
  // A section ends where the next heading of the same or a higher level starts.
  const ends = found.map(() => points.length);
  const open: number[] = [];
  found.forEach((h, i) => {
    while (open.length > 0 && found[open.at(-1)!]!.level >= h.level) ends[open.pop()!] = h.offset;
    open.push(i);
  });
  return found.map((h, i) => ({ ...h, length: ends[i]! - h.offset }));
}
