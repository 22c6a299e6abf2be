/**
 * Fast path for the common, simple frontmatter shape: `key: scalar`, `key: [a, b]`, `key:` + `- item` lines,
 * simple quoted strings. Returns exactly what the `yaml` package (core schema) + `toJS` would give for such input,
 * or `undefined` as soon as anything is outside this subset — the caller then uses the full parser. Parsing
 * 10,000 pages with the full parser costs about a second; this subset covers almost every real page.
 */
import type { FrontmatterMap, FrontmatterValue } from './types.js';

const NON_STRING_KEY_RE = /^(?:null|Null|NULL|true|True|TRUE|false|False|FALSE)$/;
const INDICATOR_START_RE = /^[-?:,[\]{}#&*!|>'"%@`]/;
const INT_RE = /^[-+]?[0-9]+$/;
const FLOAT_RE = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
const NUMBERISH_RE = /^[-+.]?[0-9.]/;

const SPACE = 0x20;
const DASH = 0x2d;
const COLON = 0x3a;

/**
 * Parse simple frontmatter, or `undefined` when the text needs the full YAML parser. Lines are scanned in place
 * (no array of lines, no match arrays): a key line is `^([A-Za-z_][A-Za-z0-9_-]*):(?: +(.*))?$`, a sequence item
 * `^( *)- +(.*)$`, and only the key and the value are cut.
 */
export function fastParseFrontmatter(yaml: string): FrontmatterMap | undefined {
  if (yaml.includes('\t') || yaml.includes('\r')) return undefined;
  const out: FrontmatterMap = {};
  let keys = 0;
  const n = yaml.length;
  let at = 0;
  while (at <= n) {
    const nl = yaml.indexOf('\n', at);
    const end = nl === -1 ? n : nl;
    if (firstNonSpace(yaml, at, end) === end) {
      at = end + 1;
      continue;
    }
    let colon = at;
    if (!isKeyStart(yaml.charCodeAt(colon))) return undefined;
    colon++;
    while (colon < end && isKeyPart(yaml.charCodeAt(colon))) colon++;
    if (colon === end || yaml.charCodeAt(colon) !== COLON) return undefined;
    const valueStart = afterSpaces(yaml, colon + 1, end);
    if (valueStart === -1) return undefined;
    const key = yaml.slice(at, colon);
    if (key === '__proto__' || Object.hasOwn(out, key) || NON_STRING_KEY_RE.test(key)) return undefined;
    keys++;
    const rest = yaml.slice(valueStart, lastNonSpaceEnd(yaml, valueStart, end));
    at = end + 1;
    if (rest === '') {
      // Either null or a block sequence of scalars on the following lines.
      const items: FrontmatterValue[] = [];
      let indent = -1;
      while (at <= n) {
        const itemNl = yaml.indexOf('\n', at);
        const itemEnd = itemNl === -1 ? n : itemNl;
        if (firstNonSpace(yaml, at, itemEnd) === itemEnd) {
          at = itemEnd + 1;
          continue;
        }
        let dash = at;
        while (dash < itemEnd && yaml.charCodeAt(dash) === SPACE) dash++;
        const itemStart =
          dash < itemEnd && yaml.charCodeAt(dash) === DASH && yaml.charCodeAt(dash + 1) === SPACE
            ? afterSpaces(yaml, dash + 1, itemEnd)
            : -1;
        if (itemStart === -1) {
          if (yaml.charCodeAt(at) === SPACE) return undefined; // continuation or nested content
          break;
        }
        if (indent === -1) indent = dash - at;
        else if (dash - at !== indent) return undefined;
        const value = blockScalar(yaml.slice(itemStart, lastNonSpaceEnd(yaml, itemStart, itemEnd)));
        if (value === undefined) return undefined;
        items.push(value);
        at = itemEnd + 1;
      }
      out[key] = indent === -1 ? null : items;
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
  return keys === 0 ? undefined : out;
}

/*
 * YAML's white space within a line is the space and the tab, and this path declines tabs: a line holding other
 * white space (U+00A0, U+3000, …) is not blank, and such a character ends a scalar as text, as the full parser reads it.
 */

/** Offset of the first character of `text[from, to)` that is not a space, `to` when there is none. */
function firstNonSpace(text: string, from: number, to: number): number {
  let i = from;
  while (i < to && text.charCodeAt(i) === SPACE) i++;
  return i;
}

/** Offset just past the last character of `text[from, to)` that is not a space, `from` when there is none. */
function lastNonSpaceEnd(text: string, from: number, to: number): number {
  let i = to;
  while (i > from && text.charCodeAt(i - 1) === SPACE) i--;
  return i;
}

function trimSpaces(text: string): string {
  return text.slice(firstNonSpace(text, 0, text.length), lastNonSpaceEnd(text, 0, text.length));
}

/** `[A-Za-z_]` */
function isKeyStart(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f;
}

/** `[A-Za-z0-9_-]` */
function isKeyPart(c: number): boolean {
  return isKeyStart(c) || (c >= 0x30 && c <= 0x39) || c === DASH;
}

/**
 * Where the value of `text[from, to)` starts as `(?: +(.*))?$` reads it after a key's colon or an item's dash: `to`
 * at the end of the line, after the spaces when spaces follow; `-1` when neither (no match), or when the value holds
 * a line terminator `.` does not match (U+2028, U+2029).
 */
function afterSpaces(text: string, from: number, to: number): number {
  if (from === to) return to;
  if (text.charCodeAt(from) !== SPACE) return -1;
  let i = from + 1;
  while (i < to && text.charCodeAt(i) === SPACE) i++;
  for (let j = i; j < to; j++) {
    const c = text.charCodeAt(j);
    if (c === 0x2028 || c === 0x2029) return -1;
  }
  return i;
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
  const inner = trimSpaces(text.slice(1, -1));
  if (inner === '') return [];
  if (/[[\]{}#]/.test(inner)) return undefined;
  const items: FrontmatterValue[] = [];
  for (const part of inner.split(',')) {
    const item = trimSpaces(part);
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
  // Numbers, `.inf`/`.nan` and `0o`/`0x` forms start with a digit, a sign or a dot: other text is a string.
  const first = text.charCodeAt(0);
  if (!((first >= 0x30 && first <= 0x39) || first === 0x2b || first === DASH || first === 0x2e)) return text;
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
