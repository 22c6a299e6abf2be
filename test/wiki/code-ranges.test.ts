/**
 * Code ranges (issue 25, session 12): `maskCode` and `extractWikilinks` find code as offset ranges instead of
 * building a masked copy of the body and a string per line. Both are checked against the plain implementations they
 * replaced (copied below verbatim from HEAD c9ac744, renamed) on random markdown mixing fences of both kinds and
 * lengths, info strings, inline spans of one to three backticks, unmatched backticks, blank and whitespace-only lines
 * (Unicode spaces, CR), stray brackets and every link form.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extractWikilinks, headings, maskCode, type WikiLink } from '../../src/wiki/index.js';
import { codeRanges } from '../../src/wiki/markdown.js';

// ---- The plain implementations (HEAD c9ac744, src/wiki/markdown.ts and src/wiki/links.ts) ----

const FENCE_OPEN_RE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/**
 * The text with the contents of fenced code blocks (fence lines included) and of inline code spans replaced by
 * spaces. Length and line structure are preserved, so offsets into the result are offsets into the input.
 */
function plainMaskCode(text: string): string {
  if (!text.includes('`') && !text.includes('~~~')) return text;
  const lines = text.split('\n');
  let fence: { char: string; length: number } | null = null;
  let paragraphStart = -1;
  let paragraphHasTick = false;

  const flushParagraph = (end: number): void => {
    if (paragraphStart !== -1 && paragraphHasTick) {
      const masked = plainMaskInlineCode(lines.slice(paragraphStart, end).join('\n')).split('\n');
      for (let k = 0; k < masked.length; k++) lines[paragraphStart + k] = masked[k]!;
    }
    paragraphStart = -1;
    paragraphHasTick = false;
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (fence) {
      if (line.includes(fence.char)) {
        const close = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(line);
        if (close && close[1]![0] === fence.char && close[1]!.length >= fence.length) fence = null;
      }
      lines[i] = blank(line);
      continue;
    }
    const first = line.trimStart()[0];
    if (first === '`' || first === '~') {
      const open = FENCE_OPEN_RE.exec(line);
      // A backtick fence's info string may not contain backticks (CommonMark).
      if (open && !(open[1]![0] === '`' && open[2]!.includes('`'))) {
        flushParagraph(i);
        fence = { char: open[1]![0]!, length: open[1]!.length };
        lines[i] = blank(line);
        continue;
      }
    }
    if (line.trim() === '') {
      flushParagraph(i);
      continue;
    }
    if (paragraphStart === -1) paragraphStart = i;
    if (line.includes('`')) paragraphHasTick = true;
  }
  flushParagraph(lines.length);
  return lines.join('\n');
}

/** Mask inline code spans: a run of N backticks up to the next run of exactly N backticks. */
function plainMaskInlineCode(text: string): string {
  if (!text.includes('`')) return text;
  let result = '';
  let i = 0;
  while (i < text.length) {
    const tick = text.indexOf('`', i);
    if (tick === -1) {
      result += text.slice(i);
      break;
    }
    result += text.slice(i, tick);
    let runEnd = tick;
    while (runEnd < text.length && text[runEnd] === '`') runEnd++;
    const runLength = runEnd - tick;
    const close = findBacktickRun(text, runEnd, runLength);
    if (close === -1) {
      // Unmatched backticks are literal text.
      result += text.slice(tick, runEnd);
      i = runEnd;
      continue;
    }
    result += blank(text.slice(tick, close + runLength));
    i = close + runLength;
  }
  return result;
}

function findBacktickRun(text: string, from: number, length: number): number {
  let i = from;
  while (i < text.length) {
    const tick = text.indexOf('`', i);
    if (tick === -1) return -1;
    let end = tick;
    while (end < text.length && text[end] === '`') end++;
    if (end - tick === length) return tick;
    i = end;
  }
  return -1;
}

/** Same length, newlines kept, everything else a space. */
function blank(text: string): string {
  return text.replace(/[^\n]/g, ' ');
}

/** Parse the inside of `[[...]]`; `null` when it names neither a page nor a section. */
function plainParseLinkInner(inner: string): Omit<WikiLink, 'raw' | 'offset'> | null {
  const bar = inner.indexOf('|');
  const targetPart = bar === -1 ? inner : inner.slice(0, bar);
  const text = bar === -1 ? null : inner.slice(bar + 1).trim();
  const hash = targetPart.indexOf('#');
  const target = (hash === -1 ? targetPart : targetPart.slice(0, hash)).trim();
  const section = hash === -1 ? null : targetPart.slice(hash + 1).trim();
  if (target === '' && (section === null || section === '')) return null;
  return { target, section: section === '' ? null : section, text: text === '' ? null : text };
}

/** Every wikilink of a markdown body, in order of appearance, code excluded. */
function plainExtractWikilinks(body: string): WikiLink[] {
  let open = body.indexOf('[[');
  if (open === -1) return [];
  const masked = plainMaskCode(body);
  const links: WikiLink[] = [];
  open = masked.indexOf('[[');
  while (open !== -1) {
    // The link is `[[` + inner + `]]` where inner has no brackets or line breaks; the innermost `[[` wins.
    let i = open + 2;
    let close = -1;
    for (; i < masked.length; i++) {
      const c = masked.charCodeAt(i);
      if (c === 0x5d /* ] */) {
        if (masked.charCodeAt(i + 1) === 0x5d && i > open + 2) close = i;
        break;
      }
      if (c === 0x5b /* [ */ || c === 0x0a /* \n */) break;
    }
    if (close === -1) {
      open = masked.indexOf('[[', open + 1);
      continue;
    }
    // The link's strings are cut from the body when the masked text equals it there (no code inside the link), so
    // they share the body's memory instead of keeping the masked copy alive.
    let raw = masked.slice(open, close + 2);
    if (masked !== body) {
      const fromBody = body.slice(open, close + 2);
      if (fromBody === raw) raw = fromBody;
    }
    const parsed = plainParseLinkInner(raw.slice(2, -2));
    if (parsed) {
      links.push({ target: parsed.target, section: parsed.section, text: parsed.text, raw, offset: open });
    }
    open = masked.indexOf('[[', close + 2);
  }
  return links;
}

// ---- Random markdown ----

const piece = fc.constantFrom(
  '[[concept-a]]',
  '[[b|Text]]',
  '[[#sec]]',
  '[[c#d|e]]',
  '[[ x `code` y ]]',
  '[[a `b]]` c]]',
  '[[ spaced | t ]]',
  '[[|only-text]]',
  '[[#]]',
  '`[[in-code]]`',
  '``a ` b``',
  '```',
  '```js',
  '```a`b',
  '````',
  '~~~',
  '~~~~',
  '   ```',
  '    ```',
  '\t```',
  '[[',
  ']]',
  '[',
  ']',
  '`',
  '``',
  '|',
  '#',
  ' ',
  '\u00a0',
  '\u3000',
  '\r',
  '\n',
  '\n\n',
  '\n \n',
  'word',
  'été',
  '# Heading',
);
/** Markdown-ish pieces, or a small alphabet (finds the edges: spans across lines, whitespace-only lines). */
const markdown = fc.oneof(
  fc.array(piece, { maxLength: 40 }).map((parts) => parts.join('')),
  fc
    .array(fc.constantFrom('`', '`', '~', '\n', ' ', '\u00a0', '\u2028', '\r', '\t', 'a', '[', ']', '|', '#'), {
      maxLength: 60,
    })
    .map((chars) => chars.join('')),
);

describe('code ranges against the plain masking', () => {
  it('maskCode equals the plain masked copy', () => {
    fc.assert(
      fc.property(markdown, (text) => {
        expect(maskCode(text)).toBe(plainMaskCode(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('the ranges are ascending, disjoint and cover exactly what the plain masking changes or keeps as newlines', () => {
    fc.assert(
      fc.property(markdown, (text) => {
        const ranges = codeRanges(text);
        const plain = plainMaskCode(text);
        let previousEnd = -1;
        for (let r = 0; r < ranges.length; r += 2) {
          expect(ranges[r]!).toBeGreaterThan(previousEnd);
          expect(ranges[r + 1]!).toBeGreaterThan(ranges[r]!);
          previousEnd = ranges[r + 1]!;
        }
        for (let i = 0; i < text.length; i++) {
          if (plain[i] !== text[i])
            expect(ranges.some((_, r) => r % 2 === 0 && ranges[r]! <= i && i < ranges[r + 1]!)).toBe(true);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('extractWikilinks equals the links cut from the plain masked copy', () => {
    fc.assert(
      fc.property(markdown, (body) => {
        expect(extractWikilinks(body)).toEqual(plainExtractWikilinks(body));
      }),
      { numRuns: 3000 },
    );
  });

  it('headings are unchanged', () => {
    fc.assert(
      fc.property(markdown, (body) => {
        const lines = plainMaskCode(body).split('\n');
        const expected = lines.flatMap((line, index) => {
          const m = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$/.exec(line);
          if (!m) return [];
          const text = (m[2] ?? '')
            .replace(/[ \t]+#+$/, '')
            .replace(/^#+$/, '')
            .trim();
          return [{ level: m[1]!.length, text, line: index }];
        });
        expect(headings(body)).toEqual(expected);
      }),
      { numRuns: 1000 },
    );
  });

  it('examples', () => {
    expect(codeRanges('no code [[a]]')).toEqual([]);
    expect(codeRanges('a `b` c')).toEqual([2, 5]);
    expect(codeRanges('x\n```\ny\n```\nz')).toEqual([2, 11]);
    expect(extractWikilinks('[[a `b` c]]')).toEqual([
      { target: 'a     c', section: null, text: null, raw: '[[a     c]]', offset: 0 },
    ]);
  });
});
