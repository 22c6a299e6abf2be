/**
 * Fast path for the common, simple frontmatter shape: `key: scalar`, `key: [a, b]`, `key:` + `- item` lines,
 * simple quoted strings. Returns exactly what the `yaml` package (core schema) + `toJS` would give for such input,
 * or `undefined` as soon as anything is outside this subset — the caller then uses the full parser. Parsing
 * 10,000 pages with the full parser costs about a second; this subset covers almost every real page.
 */
import type { FrontmatterMap, FrontmatterValue } from './types.js';

const KEY_LINE_RE = /^([A-Za-z_][A-Za-z0-9_-]*):(?: +(.*))?$/;
const ITEM_LINE_RE = /^( *)- +(.*)$/;
const NON_STRING_KEY_RE = /^(?:null|Null|NULL|true|True|TRUE|false|False|FALSE)$/;
const INDICATOR_START_RE = /^[-?:,[\]{}#&*!|>'"%@`]/;
const INT_RE = /^[-+]?[0-9]+$/;
const FLOAT_RE = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
const NUMBERISH_RE = /^[-+.]?[0-9.]/;

/** Parse simple frontmatter, or `undefined` when the text needs the full YAML parser. */
export function fastParseFrontmatter(yaml: string): FrontmatterMap | undefined {
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
