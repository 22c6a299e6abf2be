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
/**
 * TeX groups open at once in one block: `{…}`, `\left…\right`, `\begin{…}…\end{…}`. KaTeX nests up to ten elements
 * per group (a fraction, a script, a matrix: 6 to 9.4 measured; a bare `{` or `\left` one), so 40 groups stay
 * below 400 levels of elements; 200 nested matrices (1 600 levels) overflow the stack inside rehype-katex.
 */
export const MAX_GROUP_DEPTH = 40;
/**
 * `[` open at once in one block: micromark's resolution of links and images is quadratic in them (2 000 nested
 * `![…](…)` take two seconds, 5 000 eighteen); 500 take about 0.15 s.
 */
export const MAX_BRACKET_DEPTH = 500;

/** Whether `source` may nest deeper than the pipeline can typeset (see the bounds below). */
export const tooDeepToTypeset = (source: string): boolean =>
  nestingBound(source) > MAX_NESTING ||
  emphasisBound(source) > MAX_EMPHASIS_OPENERS ||
  groupBound(source) > MAX_GROUP_DEPTH ||
  bracketBound(source) > MAX_BRACKET_DEPTH;

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

/**
 * The deepest nesting of TeX groups in one block of `source`: a `{`, a `\left` (not `\leftarrow`) or a
 * `\begin{name}` opens one, a `}`, `\right` or `\end{name}` closes the innermost (an unmatched closer is ignored; a
 * blank line resets). An escaped character (`\{`, `\\`) opens nothing.
 */
export function groupBound(source: string): number {
  return depthBound(source, /\\(?:begin|end)\s*\{[^{}]*\}|\\(?:left|right)(?![a-zA-Z])|\\[^a-zA-Z]|[{}]/g, (token) =>
    token === '{' || token.startsWith('\\begin') || token === '\\left'
      ? 1
      : token === '}' || token.startsWith('\\end') || token === '\\right'
        ? -1
        : 0,
  );
}

/** The deepest nesting of `[` in one block of `source` (`]` closes one; `\[` is text; a blank line resets). */
export function bracketBound(source: string): number {
  return depthBound(source, /\\.|[[\]]/g, (token) => (token === '[' ? 1 : token === ']' ? -1 : 0));
}

/** The deepest nesting per block of the tokens `pattern` finds, each opening (1), closing (-1) or neither (0). */
function depthBound(source: string, pattern: RegExp, step: (token: string) => number): number {
  let max = 0;
  let depth = 0;
  for (const line of source.split(/\r\n|\r|\n/)) {
    if (isBlank(line)) depth = 0;
    for (const [token] of line.matchAll(pattern)) {
      depth = Math.max(0, depth + step(token));
      max = Math.max(max, depth);
    }
  }
  return max;
}
