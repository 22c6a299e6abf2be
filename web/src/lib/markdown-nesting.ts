/**
 * The markdown pipeline (micromark, mdast → hast, KaTeX, hast → React) recurses once per nesting level, and
 * micromark's parsing of nested list items and of nested emphasis grows faster than linearly: a thousand nested
 * list items exhaust the browser's stack, and ten thousand levels of lists or emphasis freeze the tab for many
 * seconds before that; React's rendering overflows at about two thousand levels of elements altogether. A document
 * that may nest deeper than these bounds is shown as plain text; real documents stay far below them.
 */
export const MAX_NESTING = 100;
/** Emphasis openers in one block (1 000 nested levels typeset in about a second). */
export const MAX_EMPHASIS_OPENERS = 1000;
/** `{` groups open at once in one block (TeX; KaTeX nests an element per group). */
export const MAX_BRACE_DEPTH = 200;

/** Whether `source` may nest deeper than the pipeline can typeset (see the bounds below). */
export const tooDeepToTypeset = (source: string): boolean =>
  nestingBound(source) > MAX_NESTING ||
  emphasisBound(source) > MAX_EMPHASIS_OPENERS ||
  braceBound(source) > MAX_BRACE_DEPTH;

const SPACE = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const endsMarker = (c: number): boolean => Number.isNaN(c) || c === SPACE || c === TAB || c === LF || c === CR;

/** The index of the `:` of a GFM footnote definition's `[^label]:` starting at `start`, else -1. */
function footnoteLabelEnd(source: string, start: number): number {
  if (!source.startsWith('^', start + 1)) return -1;
  for (let i = start + 2; i < source.length && i < start + 1002; i++) {
    const c = source.charCodeAt(i);
    if (c === LF || c === CR || c === 0x5b /* [ */) return -1;
    if (c === 0x5d /* ] */) return i > start + 2 && source.charCodeAt(i + 1) === 0x3a /* : */ ? i + 1 : -1;
  }
  return -1;
}

/**
 * An upper bound of the block nesting (block quotes, list items, footnote definitions) of `source`, in one linear
 * pass over it. Every container a line opens or continues shows in that line's prefix (CommonMark: a line opening a
 * container first matches all the open ones): a `>`, a list marker (`-`, `*`, `+`, `1.`, `1)`), a footnote
 * label (`[^note]:`), or, for an open list item or footnote, at least two columns of indentation (a tab counts as
 * up to four). The one space after a `>` or a marker belongs to it and is not indentation.
 */
export function nestingBound(source: string): number {
  let max = 0;
  let markers = 0;
  let indent = 0;
  let column = 0;
  let inPrefix = true;
  let afterMarker = false;
  for (let i = 0; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (c === LF || c === CR) {
      max = Math.max(max, markers + (indent >> 1));
      markers = indent = column = 0;
      inPrefix = true;
      afterMarker = false;
      continue;
    }
    if (!inPrefix) continue;
    const marker = afterMarker;
    afterMarker = false;
    const footnote = c === 0x5b /* [ */ ? footnoteLabelEnd(source, i) : -1;
    if (c === SPACE) {
      if (!marker) indent++;
      column++;
    } else if (c === TAB) {
      const width = 4 - (column % 4);
      indent += width;
      column += width;
    } else if (
      c === 0x3e /* > */ ||
      ((c === 0x2d /* - */ || c === 0x2a /* * */ || c === 0x2b) /* + */ && endsMarker(source.charCodeAt(i + 1)))
    ) {
      markers++;
      column++;
      afterMarker = true;
    } else if (footnote > 0) {
      markers++;
      column += footnote + 1 - i;
      i = footnote;
      afterMarker = true;
    } else if (isDigit(c)) {
      let end = i;
      while (end < source.length && end - i < 9 && isDigit(source.charCodeAt(end))) end++;
      const delimiter = source.charCodeAt(end);
      if ((delimiter === 0x2e /* . */ || delimiter === 0x29) /* ) */ && endsMarker(source.charCodeAt(end + 1))) {
        markers++;
        column += end + 1 - i;
        i = end;
        afterMarker = true;
      } else {
        inPrefix = false;
      }
    } else {
      inPrefix = false;
    }
  }
  return Math.max(max, markers + (indent >> 1));
}

const isBlank = (line: string): boolean => /^[ \t]*$/.test(line);
const isWhitespace = (ch: string): boolean => ch === '' || /\s/u.test(ch);
const isPunctuation = (ch: string): boolean => /[\p{P}\p{S}]/u.test(ch);

/**
 * An upper bound of the emphasis and strikethrough nesting of `source`, in one linear pass: per block (lines up to
 * a blank line; a table row is a block of its own), the total length of the `*`, `_` and `~` runs that can open
 * (CommonMark's flanking rules; a run of n characters opens at most n levels).
 */
export function emphasisBound(source: string): number {
  let max = 0;
  let openers = 0;
  for (const line of source.split(/\r\n|\r|\n/)) {
    if (isBlank(line) || /^[ \t]*\|/.test(line)) {
      max = Math.max(max, openers);
      openers = 0;
      if (isBlank(line)) continue;
    }
    for (const run of line.matchAll(/\*+|_+|~+/g)) {
      const before = line[run.index - 1] ?? '';
      const after = line[run.index + run[0].length] ?? '';
      const leftFlanking =
        !isWhitespace(after) && (!isPunctuation(after) || isWhitespace(before) || isPunctuation(before));
      const rightFlanking =
        !isWhitespace(before) && (!isPunctuation(before) || isWhitespace(after) || isPunctuation(after));
      const opens = run[0][0] === '_' ? leftFlanking && (!rightFlanking || isPunctuation(before)) : leftFlanking;
      if (opens) openers += run[0].length;
    }
  }
  return Math.max(max, openers);
}

/** The deepest nesting of `{` groups in one block of `source` (an unmatched `}` is ignored; a blank line resets). */
export function braceBound(source: string): number {
  let max = 0;
  let depth = 0;
  for (const line of source.split(/\r\n|\r|\n/)) {
    if (isBlank(line)) depth = 0;
    for (const ch of line.matchAll(/[{}]/g)) {
      depth = ch[0] === '{' ? depth + 1 : Math.max(0, depth - 1);
      max = Math.max(max, depth);
    }
  }
  return max;
}
