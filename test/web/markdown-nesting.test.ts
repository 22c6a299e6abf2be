/**
 * The bounds on nesting (web/src/lib/markdown-nesting.ts) that decide whether markdown is typeset or shown as plain
 * text: never below the real depth, close to it for ordinary documents, linear in the source.
 */
import { describe, expect, it } from 'vitest';
import {
  bracketBound,
  emphasisBound,
  groupBound,
  MAX_BRACKET_DEPTH,
  MAX_EMPHASIS_OPENERS,
  MAX_GROUP_DEPTH,
  MAX_NESTING,
  nestingBound,
  tooDeepToTypeset,
} from '../../web/src/lib/markdown-nesting.js';

const indentedList = (levels: number): string =>
  Array.from({ length: levels }, (_, i) => `${' '.repeat(2 * i)}- level ${i + 1}`).join('\n');

describe('nestingBound', () => {
  const cases: [name: string, source: string, bound: number][] = [
    ['plain text', 'Just a paragraph.\n\nAnother one.', 0],
    ['empty', '', 0],
    ['a list', '- a\n- b\n', 1],
    ['a nested list', indentedList(3), 3],
    ['an ordered list nested in a list', '- a\n  1. b\n     2) c\n', 3],
    ['a quote', '> quoted\n> more', 1],
    ['nested quotes', '> a\n>> b\n> > > c', 3],
    ['a list in a quote', '> - a\n>   - b', 3],
    ['a tab-indented item', '- a\n\t- b', 3],
    ['markers on one line', '- - - - x', 4],
    ['quotes on one line', '>>>>> x', 5],
    ['ordered markers on one line', '1. 2) 3. x', 3],
    ['CRLF line ends', '- a\r\n  - b\r\n', 2],
    ['emphasis and rules are not markers', '*a* -b +c\n---\n***\n', 0],
    ['ten digits are not a marker', '1234567890. x', 0],
    ['a number without a delimiter', '2026 was a year', 0],
    ['indented code', '    code\n        more', 4],
    ['10 000 nested list items', '- '.repeat(10_000) + 'x', 10_000],
    ['10 000 nested quotes', '>'.repeat(10_000) + ' x', 10_000],
    ['1 000 indented list levels', indentedList(1_000), 1_000],
    ['a footnote definition', '[^1]: A note.\n    More of it.', 2],
    ['footnote definitions on one line', '[^a]: [^b]: [^c]: x', 3],
    ['a footnote reference is not a definition', '[^a] and [x]: y', 0],
    ['10 000 nested footnote definitions', '[^n]: '.repeat(10_000) + 'x', 10_000],
  ];
  it.each(cases)('%s', (_name, source, bound) => {
    expect(nestingBound(source)).toBe(bound);
  });

  it('lets ordinary documents through and stops the pathological ones', () => {
    expect(nestingBound(indentedList(12))).toBeLessThanOrEqual(MAX_NESTING);
    expect(nestingBound('- '.repeat(MAX_NESTING + 1) + 'x')).toBeGreaterThan(MAX_NESTING);
    expect(nestingBound('> '.repeat(MAX_NESTING + 1) + 'x')).toBeGreaterThan(MAX_NESTING);
  });
});

describe('emphasisBound', () => {
  const cases: [name: string, source: string, bound: number][] = [
    ['plain text', 'No emphasis at all.', 0],
    ['emphasis and strong', 'Some *em*, **strong**, _em_, __strong__ and ~~struck~~ text.', 8],
    ['closers do not count', 'a* b** c_ d~~', 0],
    ['intraword underscores and subscripts', 'snake_case_name and $x_1 + y_{i}$', 0],
    ['a subscript after a bracket', '$f(x)_{i}$', 1],
    ['lone stars and rules', 'a * b\n\n***\n\n* item', 0],
    ['blocks are counted apart', '*a* *b*\n\n*c*', 2],
    ['table rows are counted apart', '| *a* | *b* |\n|---|---|\n| *c* | d |', 2],
    ['nested emphasis', '*a '.repeat(10) + 'x' + ' b*'.repeat(10), 10],
    ['one long run', '*'.repeat(10_000) + 'a' + '*'.repeat(10_000), 10_000],
    ['10 000 nested underscores', '_a '.repeat(10_000) + 'x' + ' b_'.repeat(10_000), 10_000],
  ];
  it.each(cases)('%s', (_name, source, bound) => {
    expect(emphasisBound(source)).toBe(bound);
  });

  it('lets a long paragraph with much emphasis through', () => {
    const paragraph = Array.from({ length: 300 }, (_, i) => `word *${i}* and **bold ${i}**`).join(' ');
    expect(emphasisBound(paragraph)).toBeLessThanOrEqual(MAX_EMPHASIS_OPENERS);
  });
});

const nested = (levels: number, open: string, inner: string, close: string): string =>
  open.repeat(levels) + inner + close.repeat(levels);

describe('groupBound', () => {
  const cases: [name: string, source: string, bound: number][] = [
    ['no groups', 'Plain text.', 0],
    ['a formula', '$\\frac{a^{2}}{b_{i}}$', 2],
    ['unmatched closers are ignored', '}}} {x}', 1],
    ['blocks are counted apart', '${$\n\n${{x}}$', 2],
    ['escaped braces are text', '$\\{x \\mid x > 0\\}$ and \\\\{y}', 1],
    ['10 000 nested groups', `$${nested(10_000, '{', 'x', '}')}$`, 10_000],
    ['a matrix', '$\\begin{pmatrix} a & b \\\\ c & d \\end{pmatrix}$', 1],
    ['a matrix in a matrix', '$\\begin{matrix} \\begin {bmatrix} x \\end{bmatrix} \\end{matrix}$', 2],
    ['200 nested matrices', `$${nested(200, '\\begin{matrix}', 'x', '\\end{matrix}')}$`, 200],
    ['an array with its column spec', '$\\begin{array}{cc} a & b \\end{array}$', 2],
    ['delimiters', '$\\left( \\left[ x \\right] \\right)$', 2],
    ['1 000 nested delimiters', `$${nested(1000, '\\left(', 'x', '\\right)')}$`, 1000],
    ['arrows are not delimiters', '$a \\leftarrow b \\rightarrow c \\leftrightarrow d$', 0],
    ['delimiters around a fraction', '$\\left\\{ \\frac{1}{2} \\right\\}$', 2],
  ];
  it.each(cases)('%s', (_name, source, bound) => {
    expect(groupBound(source)).toBe(bound);
  });
});

describe('bracketBound', () => {
  const cases: [name: string, source: string, bound: number][] = [
    ['no brackets', 'Plain text.', 0],
    ['links and images', '[a](b) ![c](d) [e][f] [^1]', 1],
    ['a link around an image', '[![a](b)](c)', 2],
    ['unmatched closers are ignored', ']]] [x]', 1],
    ['blocks are counted apart', '[[\n\n[x]', 2],
    ['escaped brackets are text', '\\[ \\[ \\[ x', 0],
    ['an escaped backslash before a bracket', '\\\\[x', 1],
    ['5 000 nested images', nested(5000, '![', 'x', '](y)'), 5000],
    ['10 000 unclosed brackets', '['.repeat(10_000) + 'x', 10_000],
  ];
  it.each(cases)('%s', (_name, source, bound) => {
    expect(bracketBound(source)).toBe(bound);
  });
});

describe('tooDeepToTypeset', () => {
  const cases: [name: string, source: string, tooDeep: boolean][] = [
    ['an ordinary document', '# Title\n\n- a\n  - b\n\n> *quoted* $\\frac{1}{2}$ [link](x)\n', false],
    ['lists at the bound', '- '.repeat(MAX_NESTING) + 'x', false],
    ['lists past the bound', '- '.repeat(MAX_NESTING + 1) + 'x', true],
    ['emphasis at the bound', '*a '.repeat(MAX_EMPHASIS_OPENERS) + 'x', false],
    ['emphasis past the bound', '*a '.repeat(MAX_EMPHASIS_OPENERS + 1) + 'x', true],
    ['groups at the bound', '{'.repeat(MAX_GROUP_DEPTH), false],
    ['groups past the bound', '{'.repeat(MAX_GROUP_DEPTH + 1), true],
    ['fractions past the bound', `$${nested(MAX_GROUP_DEPTH + 1, '\\frac{', '1', '}{2}')}$`, true],
    ['matrices at the bound', `$${nested(MAX_GROUP_DEPTH, '\\begin{matrix}', 'x', '\\end{matrix}')}$`, false],
    ['matrices past the bound', `$${nested(MAX_GROUP_DEPTH + 1, '\\begin{matrix}', 'x', '\\end{matrix}')}$`, true],
    ['200 nested matrices', `$${nested(200, '\\begin{matrix}', 'x', '\\end{matrix}')}$`, true],
    ['delimiters at the bound', `$${nested(MAX_GROUP_DEPTH, '\\left(', 'x', '\\right)')}$`, false],
    ['delimiters past the bound', `$${nested(MAX_GROUP_DEPTH + 1, '\\left(', 'x', '\\right)')}$`, true],
    ['images at the bound', nested(MAX_BRACKET_DEPTH, '![', 'x', '](y)'), false],
    ['images past the bound', nested(MAX_BRACKET_DEPTH + 1, '![', 'x', '](y)'), true],
    ['5 000 nested images', nested(5000, '![', 'x', '](y)'), true],
    ['10 000 nested links', nested(10_000, '[', 'x', '](y)'), true],
  ];
  it.each(cases)('%s', (_name, source, tooDeep) => {
    expect(tooDeepToTypeset(source)).toBe(tooDeep);
  });
});
