/**
 * Frontmatter block extraction and safe YAML parsing (CONTRACT §13.1).
 *
 * The block is the text between a first line `---` and the next line `---` (trailing blanks allowed on both);
 * it is at most 64 KiB, has at most 100 aliases, nests at most 32 levels, and must be a mapping at the top level.
 */
import type { CST, Document } from 'yaml';
import { yaml as yamlPackage } from '../shared/lazy-yaml.js';
import { formatUtcDate } from './dates.js';
import { fastParseFrontmatter } from './frontmatter-fast.js';
import { MAX_FRONTMATTER_ALIASES, MAX_FRONTMATTER_BYTES, MAX_FRONTMATTER_DEPTH } from './limits.js';
import type { FileProblem, FrontmatterMap, FrontmatterValue } from './types.js';

export type SplitResult = { ok: true; yaml: string; body: string } | { ok: false; problem: FileProblem; body: string };

const DELIMITER_RE = /^---[ \t]*$/;

/**
 * Split a page text (LF line endings) into frontmatter YAML and trimmed body. Without a frontmatter block the body
 * is the whole trimmed text.
 */
export function splitFrontmatter(text: string): SplitResult {
  const firstEnd = text.indexOf('\n');
  const firstLine = firstEnd === -1 ? text : text.slice(0, firstEnd);
  if (!DELIMITER_RE.test(firstLine)) {
    return {
      ok: false,
      problem: { kind: 'no_frontmatter', message: 'file does not start with a --- line' },
      body: text.trim(),
    };
  }
  if (firstEnd === -1) {
    return {
      ok: false,
      problem: { kind: 'unterminated_frontmatter', message: 'frontmatter has no closing --- line' },
      body: '',
    };
  }
  const yamlStart = firstEnd + 1;
  let lineStart = yamlStart;
  // Scan line by line; stop early once the block is necessarily larger than the limit (chars <= UTF-8 bytes).
  while (lineStart <= text.length) {
    if (lineStart - yamlStart > MAX_FRONTMATTER_BYTES) {
      return {
        ok: false,
        problem: {
          kind: 'frontmatter_too_large',
          message: `frontmatter exceeds ${MAX_FRONTMATTER_BYTES} bytes`,
        },
        body: '',
      };
    }
    const nl = text.indexOf('\n', lineStart);
    const lineEnd = nl === -1 ? text.length : nl;
    if (DELIMITER_RE.test(text.slice(lineStart, lineEnd))) {
      const yaml = text.slice(yamlStart, lineStart);
      if (Buffer.byteLength(yaml, 'utf8') > MAX_FRONTMATTER_BYTES) {
        return {
          ok: false,
          problem: {
            kind: 'frontmatter_too_large',
            message: `frontmatter exceeds ${MAX_FRONTMATTER_BYTES} bytes`,
          },
          body: '',
        };
      }
      return { ok: true, yaml, body: nl === -1 ? '' : text.slice(nl + 1).trim() };
    }
    if (nl === -1) break;
    lineStart = nl + 1;
  }
  return {
    ok: false,
    problem: { kind: 'unterminated_frontmatter', message: 'frontmatter has no closing --- line' },
    body: '',
  };
}

export type YamlResult = { ok: true; data: FrontmatterMap } | { ok: false; problem: FileProblem };

/** Parse frontmatter YAML into a plain mapping, refusing alias bombs, cycles, deep nesting and non-mappings. */
export function parseFrontmatterYaml(yaml: string): YamlResult {
  const fast = fastParseFrontmatter(yaml);
  if (fast !== undefined) return { ok: true, data: fast };
  return parseFrontmatterYamlFull(yaml);
}

const TOO_DEEP = `frontmatter nested deeper than ${MAX_FRONTMATTER_DEPTH} levels`;

/**
 * The full parser (`yaml` package, core schema) with the same limits; used when the fast path declines.
 *
 * The `yaml` package works in stages: its lexer and CST parser are iterative, its composer (CST → nodes) recurses
 * once per nesting level. Hostile nesting (`[[[[…` or `- - - -…`, thousands deep) would exhaust the stack there —
 * and a stack overflow inside V8's regexp compiler aborts the process instead of throwing — so the nesting is
 * measured on the CST and refused before anything recursive sees it.
 */
export function parseFrontmatterYamlFull(yaml: string): YamlResult {
  const { Parser, visit } = yamlPackage();
  let doc: Document.Parsed;
  try {
    const tokens = Array.from(new Parser().parse(yaml));
    if (cstDepthExceeds(tokens, MAX_FRONTMATTER_DEPTH)) {
      return { ok: false, problem: { kind: 'invalid_yaml', message: `invalid YAML: ${TOO_DEEP}` } };
    }
    doc = composeSingleDocument(tokens, yaml.length);
  } catch (err) {
    return { ok: false, problem: { kind: 'invalid_yaml', message: `invalid YAML: ${errorText(err)}` } };
  }
  const firstError = doc.errors[0];
  if (firstError) {
    return { ok: false, problem: { kind: 'invalid_yaml', message: `invalid YAML: ${oneLine(firstError.message)}` } };
  }
  let aliases = 0;
  visit(doc, {
    Alias() {
      aliases += 1;
      return aliases > MAX_FRONTMATTER_ALIASES ? visit.BREAK : undefined;
    },
  });
  if (aliases > MAX_FRONTMATTER_ALIASES) {
    return {
      ok: false,
      problem: { kind: 'too_many_aliases', message: `frontmatter has more than ${MAX_FRONTMATTER_ALIASES} aliases` },
    };
  }
  let js: unknown;
  try {
    js = doc.toJS({ maxAliasCount: MAX_FRONTMATTER_ALIASES });
  } catch (err) {
    const aliasBomb = err instanceof ReferenceError && /alias/i.test(err.message);
    return {
      ok: false,
      problem: aliasBomb
        ? { kind: 'too_many_aliases', message: `frontmatter alias expansion refused: ${oneLine(err.message)}` }
        : { kind: 'invalid_yaml', message: `invalid YAML: ${errorText(err)}` },
    };
  }
  if (js === null || typeof js !== 'object' || Array.isArray(js) || js instanceof Date) {
    return { ok: false, problem: { kind: 'not_a_mapping', message: 'frontmatter is not a YAML mapping' } };
  }
  const plain = toPlain(js, 0, new Set());
  if (!plain.ok) return { ok: false, problem: { kind: 'invalid_yaml', message: `invalid YAML: ${plain.reason}` } };
  return { ok: true, data: plain.value as FrontmatterMap };
}

/** `parseDocument` on already parsed CST tokens: the first document, an error when there are several. */
function composeSingleDocument(tokens: readonly CST.Token[], length: number): Document.Parsed {
  const { Composer, YAMLParseError } = yamlPackage();
  const composer = new Composer({ uniqueKeys: true });
  let first: Document.Parsed | undefined;
  for (const doc of composer.compose(tokens, true, length)) {
    if (first === undefined) first = doc;
    else {
      first.errors.push(
        new YAMLParseError(
          doc.range.slice(0, 2) as [number, number],
          'MULTIPLE_DOCS',
          'Source contains multiple documents',
        ),
      );
      break;
    }
  }
  // `compose(…, forceDoc = true)` always yields at least one document.
  return first!;
}

/**
 * Whether the CST nests collections (block mappings, block sequences, flow collections; the top level counts as
 * one) more than `limit` levels deep. Iterative, so any depth is measured safely; stops at the first too-deep node.
 */
export function cstDepthExceeds(tokens: readonly CST.Token[], limit: number): boolean {
  const stack: { token: CST.Token; depth: number }[] = tokens.map((token) => ({ token, depth: 0 }));
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { token, depth } = next;
    switch (token.type) {
      case 'document':
        if (token.value) stack.push({ token: token.value, depth });
        break;
      case 'block-map':
      case 'block-seq':
      case 'flow-collection': {
        const inner = depth + 1;
        if (inner > limit) return true;
        for (const item of token.items) {
          if ('key' in item && item.key) stack.push({ token: item.key, depth: inner });
          if (item.value) stack.push({ token: item.value, depth: inner });
        }
        break;
      }
      default:
        break;
    }
  }
  return false;
}

type PlainResult = { ok: true; value: FrontmatterValue } | { ok: false; reason: string };

/**
 * Convert parser output into plain JSON-compatible data: objects get a normal prototype with own enumerable keys
 * only (a `__proto__` key stays an ordinary key), Dates become `YYYY-MM-DD` (or RFC 3339 when they carry a time),
 * non-finite numbers and bigints become strings, cycles and nesting beyond the depth limit are refused.
 */
function toPlain(value: unknown, depth: number, stack: Set<object>): PlainResult {
  if (value === null || value === undefined) return { ok: true, value: null };
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return { ok: true, value };
    case 'number':
      return { ok: true, value: Number.isFinite(value) ? value : String(value) };
    case 'bigint':
      return { ok: true, value: value.toString() };
    case 'object':
      break;
    default:
      return { ok: true, value: String(value) };
  }
  if (value instanceof Date) return { ok: true, value: dateValue(value) };
  if (depth >= MAX_FRONTMATTER_DEPTH) return { ok: false, reason: TOO_DEEP };
  if (stack.has(value)) return { ok: false, reason: 'recursive alias' };
  stack.add(value);
  try {
    if (Array.isArray(value)) {
      const out: FrontmatterValue[] = [];
      for (const item of value) {
        const r = toPlain(item, depth + 1, stack);
        if (!r.ok) return r;
        out.push(r.value);
      }
      return { ok: true, value: out };
    }
    if (value instanceof Map) {
      const out: FrontmatterMap = {};
      for (const [k, v] of value) {
        const r = toPlain(v, depth + 1, stack);
        if (!r.ok) return r;
        defineKey(out, String(k), r.value);
      }
      return { ok: true, value: out };
    }
    if (value instanceof Set) {
      return toPlain([...value], depth, stack);
    }
    const out: FrontmatterMap = {};
    for (const key of Object.keys(value)) {
      const r = toPlain((value as Record<string, unknown>)[key], depth + 1, stack);
      if (!r.ok) return r;
      defineKey(out, key, r.value);
    }
    return { ok: true, value: out };
  } finally {
    stack.delete(value);
  }
}

/** Own, enumerable data property, safe for `__proto__` and friends. */
function defineKey(target: FrontmatterMap, key: string, value: FrontmatterValue): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function dateValue(date: Date): string {
  const day = formatUtcDate(date);
  if (day === null) return 'Invalid Date';
  const iso = date.toISOString();
  return iso.endsWith('T00:00:00.000Z') ? day : iso.replace(/\.000Z$/, 'Z');
}

function oneLine(message: string): string {
  return message.split('\n')[0]?.trim() ?? message;
}

function errorText(err: unknown): string {
  return oneLine(err instanceof Error ? err.message : String(err));
}
