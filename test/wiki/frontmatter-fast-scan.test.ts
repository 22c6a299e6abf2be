/**
 * The frontmatter fast path scans its lines in place (issue 25, session 12: no array of lines, no match arrays, no
 * set of keys). It is checked against the plain implementation it replaced (copied below verbatim from HEAD
 * c9ac744, renamed) on random frontmatter-like text: valid, duplicate, reserved and malformed keys, every separator
 * form, scalars, quoted strings, flow and block sequences with uneven indents, Unicode white space and line
 * separators. And `String#trim`'s white space as the scanners see it, for every UTF-16 code unit.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fastParseFrontmatter } from '../../src/wiki/frontmatter-fast.js';
import type { FrontmatterMap, FrontmatterValue } from '../../src/wiki/types.js';
import { isWhiteSpace } from '../../src/wiki/whitespace.js';

// ---- The plain implementation (HEAD c9ac744, src/wiki/frontmatter-fast.ts) ----

const KEY_LINE_RE = /^([A-Za-z_][A-Za-z0-9_-]*):(?: +(.*))?$/;
const ITEM_LINE_RE = /^( *)- +(.*)$/;
const NON_STRING_KEY_RE = /^(?:null|Null|NULL|true|True|TRUE|false|False|FALSE)$/;
const INDICATOR_START_RE = /^[-?:,[\]{}#&*!|>'"%@`]/;
const INT_RE = /^[-+]?[0-9]+$/;
const FLOAT_RE = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
const NUMBERISH_RE = /^[-+.]?[0-9.]/;

/** Parse simple frontmatter, or `undefined` when the text needs the full YAML parser. */
function plainFastParseFrontmatter(yaml: string): FrontmatterMap | undefined {
  if (yaml.includes('\t') || yaml.includes('\r')) return undefined;
  const lines = yaml.split('\n');
  const out: FrontmatterMap = {};
  const seen = new Set<string>();
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (isBlank(line)) {
      i++;
      continue;
    }
    const m = KEY_LINE_RE.exec(line);
    if (!m) return undefined;
    const key = m[1]!;
    if (seen.has(key) || key === '__proto__' || NON_STRING_KEY_RE.test(key)) return undefined;
    seen.add(key);
    const rest = (m[2] ?? '').trimEnd();
    i++;
    if (rest === '') {
      // Either null or a block sequence of scalars on the following lines.
      const items: FrontmatterValue[] = [];
      let indent: number | null = null;
      while (i < lines.length) {
        const itemLine = lines[i]!;
        if (isBlank(itemLine)) {
          i++;
          continue;
        }
        const item = ITEM_LINE_RE.exec(itemLine);
        if (!item) {
          if (itemLine.startsWith(' ')) return undefined; // continuation or nested content
          break;
        }
        const itemIndent = item[1]!.length;
        if (indent === null) indent = itemIndent;
        else if (itemIndent !== indent) return undefined;
        const value = blockScalar(item[2]!.trimEnd());
        if (value === undefined) return undefined;
        items.push(value);
        i++;
      }
      out[key] = indent === null ? null : items;
      continue;
    }
    if (rest.startsWith('[')) {
      const list = flowSequence(rest);
      if (list === undefined) return undefined;
      out[key] = list;
      continue;
    }
    const value = blockScalar(rest);
    if (value === undefined) return undefined;
    out[key] = value;
  }
  // An empty block is `null` to the full parser (not a mapping): let it say so.
  return seen.size === 0 ? undefined : out;
}

function isBlank(line: string): boolean {
  return line.trim() === '';
}

/** A scalar in block context: simple quoted string or plain scalar. */
function blockScalar(text: string): FrontmatterValue | undefined {
  if (text === '') return undefined;
  const quoted = simpleQuoted(text);
  if (quoted !== undefined) return quoted;
  if (INDICATOR_START_RE.test(text) && !NUMBERISH_RE.test(text)) return undefined;
  if (text.startsWith('-') && !INT_RE.test(text) && !FLOAT_RE.test(text)) return undefined;
  if (text.includes(': ') || text.includes(' #') || text.endsWith(':')) return undefined;
  return plainScalar(text);
}

/** `[a, b, "c"]` with simple items only. */
function flowSequence(text: string): FrontmatterValue[] | undefined {
  if (!text.endsWith(']')) return undefined;
  const inner = text.slice(1, -1).trim();
  if (inner === '') return [];
  if (/[[\]{}#]/.test(inner)) return undefined;
  const items: FrontmatterValue[] = [];
  for (const part of inner.split(',')) {
    const item = part.trim();
    if (item === '') return undefined;
    const quoted = simpleQuoted(item);
    if (quoted !== undefined) {
      items.push(quoted);
      continue;
    }
    if (item.includes(':') || item.includes('"') || item.includes("'")) return undefined;
    if (INDICATOR_START_RE.test(item) && !NUMBERISH_RE.test(item)) return undefined;
    if (item.startsWith('-') && !INT_RE.test(item) && !FLOAT_RE.test(item)) return undefined;
    const value = plainScalar(item);
    if (value === undefined) return undefined;
    items.push(value);
  }
  return items;
}

/** `"text"` without escapes or inner quotes, `'text'` without inner quotes. */
function simpleQuoted(text: string): string | undefined {
  if (text.length < 2) return undefined;
  const q = text[0];
  if ((q !== '"' && q !== "'") || text[text.length - 1] !== q) return undefined;
  const inner = text.slice(1, -1);
  if (inner.includes(q) || (q === '"' && inner.includes('\\'))) return undefined;
  return inner;
}

/** Core-schema resolution of a plain scalar; `undefined` for forms this fast path does not handle. */
function plainScalar(text: string): FrontmatterValue | undefined {
  switch (text) {
    case '~':
    case 'null':
    case 'Null':
    case 'NULL':
      return null;
    case 'true':
    case 'True':
    case 'TRUE':
      return true;
    case 'false':
    case 'False':
    case 'FALSE':
      return false;
  }
  if (INT_RE.test(text)) {
    const n = Number(text);
    return Number.isSafeInteger(n) ? n : undefined;
  }
  if (FLOAT_RE.test(text)) {
    // An overflow (`4E308`) is the full parser's to decide: it keeps non-finite numbers JSON-safe.
    const n = Number(text);
    return Number.isFinite(n) ? n : undefined;
  }
  if (/^[-+]?\.(?:inf|Inf|INF|nan|NaN|NAN)$/.test(text) || /^0[ox]/.test(text)) return undefined;
  return text;
}

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
  it('gives what the plain implementation gives (or declines when it declines)', () => {
    let parsed = 0;
    fc.assert(
      fc.property(frontmatter, (yaml) => {
        const plain = plainFastParseFrontmatter(yaml);
        if (plain !== undefined) parsed++;
        expect(fastParseFrontmatter(yaml)).toEqual(plain);
      }),
      { numRuns: 5000 },
    );
    // Enough inputs take the fast path for the comparison to mean something.
    expect(parsed).toBeGreaterThan(500);
  });

  it('takes the fast path for a typical page', () => {
    const yaml =
      'id: concept-qubit\ntitle: Qubit\ntype: concept\ntags: [a, b]\nrelated:\n  - x\n  - y\ncreated_at: 2026-01-15\n';
    expect(fastParseFrontmatter(yaml)).toEqual(plainFastParseFrontmatter(yaml));
    expect(fastParseFrontmatter(yaml)).toBeDefined();
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
