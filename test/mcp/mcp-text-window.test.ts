/** Reading a markdown in pieces (CONTRACT §20): code-point offsets, line-end cuts, the hint, the outline. */
import { describe, expect, it } from 'vitest';
import { CodePoints, continuationHint, markdownWindow, MIN_WINDOW_CHARS, outline } from '../../src/mcp/text-window.js';

const chars = (s: string) => [...s].length;

/** Reads `text` piece by piece; every piece and hint within `max`. */
function pieces(text: string, max: number): string[] {
  const bytes = Buffer.from(text);
  const out: string[] = [];
  for (let offset = 0; ;) {
    const w = markdownWindow(bytes, offset, max)!;
    expect(chars(w.text) + (w.hint === null ? 0 : chars(w.hint))).toBeLessThanOrEqual(max);
    out.push(w.text);
    if (w.hint === null) return out;
    expect(w.hint).toBe(continuationHint(w.total - w.nextOffset, w.nextOffset));
    expect(w.nextOffset).toBe(offset + chars(w.text));
    offset = w.nextOffset;
  }
}

describe('markdownWindow', () => {
  it.each([
    ['ASCII lines', Array.from({ length: 300 }, (_, i) => `line ${i}`).join('\n')],
    ['astral characters (two UTF-16 units each)', Array.from({ length: 300 }, (_, i) => `𝜓${i} |𝜓⟩ 😀`).join('\n')],
    ['CRLF lines', Array.from({ length: 300 }, (_, i) => `crlf ${i}`).join('\r\n')],
    ['one line longer than a piece', `${'𝜓'.repeat(1000)}\nshort\n${'x'.repeat(700)}`],
    ['no newline at all', 'y'.repeat(2500)],
  ])('%s: pieces reassemble the text exactly', (_label, text) => {
    for (const max of [MIN_WINDOW_CHARS, 333, 1000, 100_000]) expect(pieces(text, max).join('')).toBe(text);
  });

  it('matches a naive code-point reading on random texts, at every alignment of the bytes', () => {
    const alphabet = ['a', 'b', '\n', 'é', '€', '𝜓', '😀', ' '];
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let round = 0; round < 200; round++) {
      const text = Array.from({ length: random(3000) }, () => alphabet[random(alphabet.length)]).join('');
      const all = [...text];
      // A view that starts 0..3 bytes into its memory, as pooled buffers do.
      const shift = round % 4;
      const bytes = Buffer.from(`${'#'.repeat(shift)}${text}`).subarray(shift);
      const offset = random(all.length + 1);
      const max = MIN_WINDOW_CHARS + random(2000);
      const w = markdownWindow(bytes, offset, max)!;
      expect(w.total).toBe(all.length);
      expect(w.text).toBe(all.slice(offset, w.nextOffset).join(''));
      if (w.hint !== null) {
        const cut = all.slice(offset, offset + max - continuationHint(all.length, all.length).length).join('');
        const lastNewline = cut.lastIndexOf('\n');
        expect(w.text).toBe(lastNewline >= 0 ? cut.slice(0, lastNewline + 1) : cut);
      }
    }
  });

  it('cuts after the last line end that fits, never in the middle of a line that fits', () => {
    const text = `${'a'.repeat(50)}\n${'b'.repeat(50)}\n${'c'.repeat(200)}\n`;
    const w = markdownWindow(Buffer.from(text), 0, 200)!;
    expect(w.text).toBe(`${'a'.repeat(50)}\n${'b'.repeat(50)}\n`);
    expect(w.hint).toBe('[… 201 more characters; call again with offset=102]');
  });

  it('offsets count code points: 𝜓 is one character', () => {
    const text = '𝜓𝜓𝜓\nabc\n';
    expect(new CodePoints(text).length).toBe(8);
    const bytes = Buffer.from(text);
    expect(markdownWindow(bytes, 4, 1000)).toMatchObject({ text: 'abc\n', hint: null, nextOffset: 8, total: 8 });
    expect(markdownWindow(bytes, 8, 1000)).toMatchObject({ text: '', hint: null });
    expect(markdownWindow(bytes, 9, 1000)).toBeNull();
  });
});

/** Headings of three levels (one with closing #s), a fence hiding one, and two lines that are no heading. */
const MARKDOWN = [
  '# Title 𝜓',
  'intro',
  '## A',
  '```',
  '# not a heading',
  '```',
  '### A.1 ###',
  'x',
  '## B',
  '#nospace is text',
  '    # indented code',
  'end',
].join('\n');

describe('outline', () => {
  it('ATX headings outside fences, with the span of each section in code points', () => {
    const headings = outline(new CodePoints(MARKDOWN));
    expect(headings.map((h) => [h.level, h.text])).toEqual([
      [1, 'Title 𝜓'],
      [2, 'A'],
      [3, 'A.1'],
      [2, 'B'],
    ]);
    const all = [...MARKDOWN];
    const section = (i: number) => all.slice(headings[i]!.offset, headings[i]!.offset + headings[i]!.length).join('');
    expect(section(0)).toBe(MARKDOWN);
    expect(section(1)).toBe('## A\n```\n# not a heading\n```\n### A.1 ###\nx\n');
    expect(section(2)).toBe('### A.1 ###\nx\n');
    expect(section(3)).toBe('## B\n#nospace is text\n    # indented code\nend');
  });

  it('a heading longer than 200 characters is shown cut, with an ellipsis', () => {
    const [heading] = outline(new CodePoints(`# ${'𝜓'.repeat(300)}\ntext\n`));
    expect(heading!.text).toBe(`${'𝜓'.repeat(199)}…`);
    expect(heading!.length).toBe(308);
  });
});
