/**
 * A piece cut from a byte range of an indexed markdown (what `paper_markdown` does in pksd) is the piece cut from
 * the whole markdown: the same text, hint and numbers, for every offset, width and alignment — and the range holds
 * at most 4 bytes a character. Plus the bounded, ETag-checked index cache.
 */
import { describe, expect, it } from 'vitest';
import type { ApiReply } from '../../src/mcp/caller.js';
import { MarkdownIndexes } from '../../src/mcp/markdown-indexes.js';
import {
  CHECKPOINT_BYTES,
  indexText,
  markdownWindow,
  MIN_WINDOW_CHARS,
  sliceWindow,
  windowBytes,
} from '../../src/mcp/text-window.js';

/** The window of `bytes` cut from the range `windowBytes` picks, the range copied as a route would send it. */
function viaRange(bytes: Buffer, offset: number, maxChars: number) {
  const index = indexText(bytes)!;
  const span = windowBytes(index, offset, maxChars);
  expect(span.end).toBeGreaterThan(span.start);
  const slice = Buffer.from(bytes.subarray(span.start, span.end));
  const toEnd = span.end === bytes.length;
  return {
    span,
    window: sliceWindow({ bytes: slice, firstPoint: span.firstPoint, total: index.total, toEnd }, offset, maxChars),
  };
}

let seed = 11;
const random = (n: number): number => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed % n;
};

/** Texts of ~1–5 checkpoints whose boundaries fall inside multi-byte characters. */
const CORPUS: [string, string][] = [
  ['ASCII lines', Array.from({ length: 9000 }, (_, i) => `line ${i} of the text`).join('\n')],
  ['two-byte characters', Array.from({ length: 6000 }, (_, i) => `é ${i} naïve café`).join('\n')],
  ['CJK (three bytes)', Array.from({ length: 7000 }, (_, i) => `中文段落${i}，量子态`).join('\n')],
  [
    'a 4-byte emoji across the first checkpoint',
    `${'a'.repeat(CHECKPOINT_BYTES - 2)}😀${'b\n'.repeat(40_000)}${'😀'.repeat(30_000)}`,
  ],
  ['astral characters only, no newline', '𝜓'.repeat(70_000)],
  [
    'mixed, random',
    Array.from({ length: 150_000 }, () => ['a', '\n', 'é', '中', '😀', '𝜓', ' ', '\r'][random(8)]).join(''),
  ],
  ['exactly one checkpoint of ASCII', `${'x'.repeat(CHECKPOINT_BYTES - 1)}\n`],
  ['shorter than a window', 'short 😀\ntext\n'],
];

describe('a piece from a byte range equals the piece from the whole markdown', () => {
  it.each(CORPUS)('%s', (_label, text) => {
    const bytes = Buffer.from(text);
    const total = [...text].length;
    expect(indexText(bytes)!.total).toBe(total);
    const offsets = new Set([0, 1, total - 1, total, total + 1, total + 1000]);
    // Offsets at and around each checkpoint, and random ones.
    for (const point of indexText(bytes)!.checkpoints) for (const d of [-1, 0, 1]) offsets.add(point + d);
    for (let i = 0; i < 20; i++) offsets.add(random(total + 1));
    for (const maxChars of [MIN_WINDOW_CHARS, 1_000, 40_000, 1_000_000]) {
      for (const offset of [...offsets].filter((o) => o >= 0)) {
        const { span, window } = viaRange(bytes, offset, maxChars);
        expect(window, `offset ${offset}, max ${maxChars}`).toEqual(markdownWindow(bytes, offset, maxChars));
        if (offset <= total) expect(span.end - span.start).toBeLessThanOrEqual(CHECKPOINT_BYTES + 4 * maxChars);
      }
    }
  });

  it('the first 40,000 characters need at most 160,004 bytes, however long the markdown', () => {
    const bytes = Buffer.from('😀'.repeat(500_000));
    expect(windowBytes(indexText(bytes)!, 0, 40_000)).toEqual({ start: 0, end: 160_004, firstPoint: 0 });
  });

  it('a piece of mostly one-byte characters asks for little more than its own bytes', () => {
    const bytes = Buffer.from('x'.repeat(2_000_000));
    // 40,000 characters: the checkpoint at 0 to the first one past character 40,000 (3 · 16 KiB).
    expect(windowBytes(indexText(bytes)!, 0, 40_000)).toEqual({ start: 0, end: 3 * CHECKPOINT_BYTES, firstPoint: 0 });
    const at = 1_000_000;
    const span = windowBytes(indexText(bytes)!, at, 40_000);
    expect(span.start).toBeLessThanOrEqual(at);
    expect(span.end - span.start).toBeLessThanOrEqual(40_000 + 2 * CHECKPOINT_BYTES);
  });

  it('an offset past the end asks for one byte only (the answer says whether the markdown changed)', () => {
    const bytes = Buffer.from('abc\n'.repeat(50_000));
    expect(windowBytes(indexText(bytes)!, 200_001, 40_000)).toEqual({ start: 0, end: 1, firstPoint: 0 });
    expect(viaRange(bytes, 200_001, 40_000).window).toBeNull();
  });

  it('a markdown that is not valid UTF-8 is not indexed (its pieces come from the whole bytes)', () => {
    expect(indexText(Buffer.from([0x61, 0x80, 0x0a]))).toBeNull();
    expect(indexText(Buffer.from([0x61, 0xf0, 0x9f]))).toBeNull();
    expect(indexText(Buffer.alloc(0))).toEqual({ size: 0, total: 0, checkpoints: [0] });
  });
});

/** An answer of the markdown route. */
function reply(status: number, body: Buffer, headers: Record<string, string>): ApiReply {
  return { status, body, header: (name) => headers[name] };
}

describe('MarkdownIndexes', () => {
  const text = Buffer.from('line 😀\n'.repeat(20_000));

  it('indexes a 200 answer with a strong ETag, and takes a range only of that ETag and size', () => {
    const indexes = new MarkdownIndexes();
    indexes.remember('/p', reply(200, text, { etag: '"v1"' }));
    const known = indexes.get('/p')!;
    expect(known.etag).toBe('"v1"');
    expect(known.index.total).toBe(7 * 20_000);
    const part = text.subarray(0, 100);
    const answer = (etag: string, range: string, body = part) =>
      MarkdownIndexes.slice(reply(206, body, { etag, 'content-range': range }), known, 0);
    expect(answer('"v1"', `bytes 0-99/${text.length}`)).toEqual({ bytes: part, toEnd: false });
    expect(answer('"v2"', `bytes 0-99/${text.length}`)).toBeNull();
    expect(answer('"v1"', `bytes 0-99/${text.length + 1}`)).toBeNull();
    expect(answer('"v1"', `bytes 1-100/${text.length}`)).toBeNull();
    expect(answer('"v1"', `bytes 0-100/${text.length}`)).toBeNull();
    expect(answer('"v1"', 'bytes */100')).toBeNull();
  });

  it('forgets a path whose new answer has no strong ETag or is not UTF-8', () => {
    const indexes = new MarkdownIndexes();
    for (const [headers, body] of [
      [{}, text],
      [{ etag: 'W/"weak"' }, text],
      [{ etag: '"bad"' }, Buffer.from([0xff])],
    ] as const) {
      indexes.remember('/p', reply(200, text, { etag: '"v1"' }));
      indexes.remember('/p', reply(200, body, headers));
      expect(indexes.get('/p')).toBeUndefined();
    }
  });

  it('stays within its byte bound, dropping the least recently used', () => {
    const indexes = new MarkdownIndexes(2_000);
    const small = Buffer.from('x\n');
    for (const path of ['/a', '/b', '/c', '/d']) indexes.remember(path, reply(200, small, { etag: '"e"' }));
    // Each entry counts a little over 200 bytes: all four fit.
    expect(['/a', '/b', '/c', '/d'].map((p) => indexes.get(p) !== undefined)).toEqual([true, true, true, true]);
    for (let i = 0; i < 20; i++) indexes.remember(`/more${i}`, reply(200, small, { etag: '"e"' }));
    expect(indexes.get('/a')).toBeUndefined();
    expect(indexes.get('/more19')).toBeDefined();
  });
});
