/**
 * The frontmatter fast path scans its lines in place (issue 25, session 12: no array of lines, no match arrays, no
 * set of keys). Whenever it answers, it must answer what the full `yaml` parser does, on random frontmatter-like
 * text: valid, duplicate, reserved and malformed keys, every separator form, scalars, quoted strings, flow and block
 * sequences with uneven indents, Unicode white space and line separators; and it must answer for most plain
 * frontmatter. And `String#trim`'s white space as the scanners see it, for every UTF-16 code unit.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseFrontmatterYamlFull } from '../../src/wiki/frontmatter.js';
import { fastParseFrontmatter } from '../../src/wiki/frontmatter-fast.js';
import { isWhiteSpace } from '../../src/wiki/whitespace.js';

// ---- Random frontmatter ----

const key = fc.constantFrom(
  'id',
  'title',
  'tags',
  'type',
  '_x',
  'a-b',
  'k9',
  '1x',
  'null',
  'True',
  '__proto__',
  'x y',
  '-k',
  '',
);
const separator = fc.constantFrom(':', ': ', ':  ', ':x', ' :', '::');
const value = fc.constantFrom(
  '',
  'concept-qubit',
  'Grover search',
  '2026-01-15',
  '42',
  '-7',
  '+3',
  '.5',
  '1e3',
  '007',
  '0x1F',
  '.inf',
  '-.Inf',
  '4E308',
  'true',
  'False',
  '~',
  'null',
  '"quoted: colon"',
  "'single'",
  '"esc \\" aped"',
  '[a, b, "c d"]',
  '[]',
  '[a, b,]',
  '[a: b]',
  '[1, 2.5, true, null]',
  'a # comment',
  'a: b',
  'ends:',
  '- dash',
  '&anchor',
  'C#',
  'Høyer',
  'x\u00a0',
  'x\u2028y',
  '\u00a0',
  'x ',
  '|',
);
const chaosLine = fc.oneof(
  fc.tuple(key, separator, value).map(([k, s, v]) => k + s + v),
  fc
    .tuple(fc.constantFrom('', ' ', '  ', '   '), fc.constantFrom('- ', '-', '-  ', '- \u2028'), value)
    .map(([indent, dash, v]) => indent + dash + v),
  fc.constantFrom('', ' ', '  ', '\u00a0', '\u3000', '  continuation', 'key: value', 'tags:', 'id: a'),
);
/** A line the fast path mostly accepts: `kN: value`, or a key opening a block sequence with its items. */
const plainValue = fc.constantFrom(
  'concept-qubit',
  'Grover search',
  '2026-01-15',
  '42',
  '1.5',
  'true',
  '~',
  '"a: b"',
  "'c'",
  '[a, b]',
  '[]',
  'x\u00a0',
  'x\u2028y',
  'x\u2029y',
  '.5',
  '-7',
  '+3',
  '.inf',
  '0o17',
  '',
);
const validLine = fc.oneof(
  { weight: 4, arbitrary: fc.tuple(fc.nat(40), plainValue).map(([k, v]) => `k${k}: ${v}`) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.nat(40), fc.constantFrom('', ' ', '  '), fc.array(plainValue, { maxLength: 3 }))
      .map(([k, indent, items]) => [`k${k}:`, ...items.map((item) => `${indent}- ${item}`)].join('\n')),
  },
);
const line = fc.oneof({ weight: 5, arbitrary: validLine }, { weight: 1, arbitrary: chaosLine });
const frontmatter = fc
  .array(line, { maxLength: 12 })
  .chain((lines) => fc.constantFrom('', '\n').map((end) => lines.join('\n') + end));

describe('the frontmatter fast path scanning in place', () => {
  it('answers what the full parser does whenever it answers, and answers for most plain frontmatter', () => {
    let parsed = 0;
    fc.assert(
      fc.property(frontmatter, (yaml) => {
        const fast = fastParseFrontmatter(yaml);
        if (fast === undefined) return;
        parsed++;
        expect(parseFrontmatterYamlFull(yaml)).toEqual({ ok: true, data: fast });
      }),
      { numRuns: 5000 },
    );
    // Enough inputs take the fast path for the comparison to mean something.
    expect(parsed).toBeGreaterThan(500);
  });

  it('takes the fast path for a typical page', () => {
    const yaml =
      'id: concept-qubit\ntitle: Qubit\ntype: concept\ntags: [a, b]\nrelated:\n  - x\n  - y\ncreated_at: 2026-01-15\n';
    expect(fastParseFrontmatter(yaml)).toEqual({
      id: 'concept-qubit',
      title: 'Qubit',
      type: 'concept',
      tags: ['a', 'b'],
      related: ['x', 'y'],
      created_at: '2026-01-15',
    });
  });
});

describe('white space other than the space', () => {
  // YAML trims only spaces (and tabs, which the fast path declines): U+00A0 and U+3000 are text to it.
  it.each([
    ['k0: x\u00a0\n', { k0: 'x\u00a0' }],
    ['k0:\n- x\u00a0\n', { k0: ['x\u00a0'] }],
    ['k0: [x\u00a0, y]\n', { k0: ['x\u00a0', 'y'] }],
    ['k0: x\u3000\n', { k0: 'x\u3000' }],
    ['k0: a\n\u00a0\nk1: b\n', undefined],
    ['k0: "a"\u00a0\n', undefined],
  ])('%j', (yaml, expected) => {
    expect(fastParseFrontmatter(yaml)).toEqual(expected);
    if (expected !== undefined) expect(parseFrontmatterYamlFull(yaml)).toEqual({ ok: true, data: expected });
  });
});

describe('white space as String#trim sees it', () => {
  it('every UTF-16 code unit', () => {
    const differing: number[] = [];
    for (let c = 0; c <= 0xffff; c++) {
      if (isWhiteSpace(c) !== (String.fromCharCode(c).trim() === '')) differing.push(c);
    }
    expect(differing).toEqual([]);
  });
});
