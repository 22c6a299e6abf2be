/**
 * The little markdown structure the wiki needs: where code is (fenced blocks with ``` or ~~~, inline code spans),
 * and ATX headings outside code.
 */
import { firstNonWhiteSpace } from './whitespace.js';

const FENCE_OPEN_RE = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const FENCE_CLOSE_RE = /^ {0,3}(`{3,}|~{3,})[ \t]*$/;
const BACKTICK = 0x60;
const TILDE = 0x7e;
const NEWLINE = 0x0a;

/**
 * The text with the contents of fenced code blocks (fence lines included) and of inline code spans replaced by
 * spaces. Length and line structure are preserved, so offsets into the result are offsets into the input.
 */
export function maskCode(text: string): string {
  const ranges = codeRanges(text);
  return ranges.length === 0 ? text : maskedSlice(text, ranges, 0, text.length);
}

/** `maskCode(text).slice(start, end)`, given `ranges = codeRanges(text)`. */
export function maskedSlice(text: string, ranges: readonly number[], start: number, end: number): string {
  // The first range that ends after `start` (binary search: a body can hold many links with code inside).
  let lo = 0;
  let hi = ranges.length / 2;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ranges[2 * mid + 1]! <= start) lo = mid + 1;
    else hi = mid;
  }
  let result = '';
  let at = start;
  for (let r = 2 * lo; r < ranges.length && ranges[r]! < end; r += 2) {
    const from = Math.max(at, ranges[r]!);
    const to = Math.min(end, ranges[r + 1]!);
    if (from >= to) continue;
    result += text.slice(at, from) + blank(text.slice(from, to));
    at = to;
  }
  return result + text.slice(at, end);
}

/**
 * Where `maskCode` blanks: ascending, disjoint `[start, end)` pairs, flat (`[s0, e0, s1, e1, …]`); newlines inside a
 * range stay newlines. Finds them without building a masked copy or a string per line, so callers that only need to
 * know what is code (wikilinks) allocate nothing for a body.
 */
export function codeRanges(text: string): number[] {
  const ranges: number[] = [];
  if (!text.includes('`') && !text.includes('~~~')) return ranges;
  const mask = (start: number, end: number): void => {
    const last = ranges.length - 1;
    // Ranges one newline apart merge: the newline stays a newline either way.
    if (
      last > 0 &&
      (ranges[last] === start || (ranges[last] === start - 1 && text.charCodeAt(start - 1) === NEWLINE))
    ) {
      ranges[last] = end;
    } else ranges.push(start, end);
  };
  // Where the next backtick and tilde are: asked line by line, searched again only once passed (linear in the text).
  const nextTick = nextIndexOf(text, '`');
  const nextTilde = nextIndexOf(text, '~');
  /** The open fence's character (`` ` `` or `~`), `''` outside a fence. */
  let fence = '';
  let fenceLength = 0;
  /** Offset where the open paragraph starts (-1: none), whether it holds a backtick, and where its last line ends. */
  let paragraphStart = -1;
  let paragraphHasTick = false;
  let paragraphEnd = 0;
  const flushParagraph = (): void => {
    if (paragraphStart !== -1 && paragraphHasTick) inlineCodeRanges(text, paragraphStart, paragraphEnd, mask);
    paragraphStart = -1;
    paragraphHasTick = false;
  };
  for (let lineStart = 0; lineStart <= text.length;) {
    const nl = text.indexOf('\n', lineStart);
    const lineEnd = nl === -1 ? text.length : nl;
    const next = lineEnd + 1;
    if (fence !== '') {
      const mark = fence === '`' ? nextTick(lineStart) : nextTilde(lineStart);
      if (mark !== -1 && mark < lineEnd) {
        const close = FENCE_CLOSE_RE.exec(text.slice(lineStart, lineEnd));
        if (close && close[1]![0] === fence && close[1]!.length >= fenceLength) fence = '';
      }
      if (lineEnd > lineStart) mask(lineStart, lineEnd);
      lineStart = next;
      continue;
    }
    const first = firstNonWhiteSpace(text, lineStart, lineEnd);
    const firstCode = first === lineEnd ? -1 : text.charCodeAt(first);
    if (firstCode === BACKTICK || firstCode === TILDE) {
      const open = FENCE_OPEN_RE.exec(text.slice(lineStart, lineEnd));
      // A backtick fence's info string may not contain backticks (CommonMark).
      if (open && !(open[1]!.charCodeAt(0) === BACKTICK && open[2]!.includes('`'))) {
        flushParagraph();
        fence = open[1]![0]!;
        fenceLength = open[1]!.length;
        if (lineEnd > lineStart) mask(lineStart, lineEnd);
        lineStart = next;
        continue;
      }
    }
    if (first === lineEnd) {
      flushParagraph();
      lineStart = next;
      continue;
    }
    if (paragraphStart === -1) paragraphStart = lineStart;
    paragraphEnd = lineEnd;
    if (!paragraphHasTick) {
      const tick = nextTick(lineStart);
      if (tick !== -1 && tick < lineEnd) paragraphHasTick = true;
    }
    lineStart = next;
  }
  flushParagraph();
  return ranges;
}

/**
 * Inline code spans of `text[from, to)`: a run of N backticks up to the next run of exactly N backticks (unmatched
 * backticks are literal text); each span, backticks included, is passed to `mask`. The paragraph is cut out first so
 * that no search runs past its end.
 */
function inlineCodeRanges(text: string, from: number, to: number, mask: (start: number, end: number) => void): void {
  const paragraph = text.slice(from, to);
  let i = 0;
  while (i < paragraph.length) {
    const tick = paragraph.indexOf('`', i);
    if (tick === -1) return;
    const runEnd = backtickRunEnd(paragraph, tick);
    const runLength = runEnd - tick;
    const close = findBacktickRun(paragraph, runEnd, runLength);
    if (close === -1) {
      i = runEnd;
      continue;
    }
    mask(from + tick, from + close + runLength);
    i = close + runLength;
  }
}

/** `from => text.indexOf(char, from)` for `from` that never decreases, each search starting where the last ended. */
function nextIndexOf(text: string, char: string): (from: number) => number {
  let next = text.indexOf(char);
  return (from) => {
    if (next !== -1 && next < from) next = text.indexOf(char, from);
    return next;
  };
}

function backtickRunEnd(text: string, from: number): number {
  let end = from;
  while (end < text.length && text.charCodeAt(end) === BACKTICK) end++;
  return end;
}

function findBacktickRun(text: string, from: number, length: number): number {
  let i = from;
  while (i < text.length) {
    const tick = text.indexOf('`', i);
    if (tick === -1) return -1;
    const end = backtickRunEnd(text, tick);
    if (end - tick === length) return tick;
    i = end;
  }
  return -1;
}

/** Same length, newlines kept, everything else a space. */
function blank(text: string): string {
  return text.replace(/[^\n]/g, ' ');
}

export interface Heading {
  level: number;
  text: string;
  /** 0-based line index. */
  line: number;
}

const ATX_RE = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$/;

/** ATX headings (`## Title`, optional closing `#`s) outside code, with their 0-based line numbers. */
export function headings(body: string): Heading[] {
  const found: Heading[] = [];
  const lines = maskCode(body).split('\n');
  lines.forEach((line, index) => {
    const m = ATX_RE.exec(line);
    if (!m) return;
    const text = (m[2] ?? '')
      .replace(/[ \t]+#+$/, '')
      .replace(/^#+$/, '')
      .trim();
    found.push({ level: m[1]!.length, text, line: index });
  });
  return found;
}
