/**
 * Wikilinks (CONTRACT §13.2) against a reference model: bodies are generated as paragraphs of plain text, links,
 * inline code spans and fenced code blocks; the links found must be exactly the generated links outside code, in
 * order, with trimmed target, section and text. For any body, every link found is a literal `[[…]]` of it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extractWikilinks, outgoingTargets, type WikiLink } from '../../src/wiki/index.js';

type Expected = Pick<WikiLink, 'target' | 'section' | 'text'>;
interface Piece {
  readonly text: string;
  /** The link this piece contributes (none for text and code). */
  readonly link: Expected | null;
}

const chars = (alphabet: string, min: number, max: number) =>
  fc.string({ unit: fc.constantFrom(...alphabet), minLength: min, maxLength: max });
const blanks = chars(' ', 0, 2);
const plain = chars('abcdefghij XYZ.,;:!?()-_*/=+0123456789', 1, 20).map((text): Piece => ({ text, link: null }));
const id = chars('abcdefghijklmnopqrstuvwxyz0123456789-', 1, 12);
const words = chars('abcdefgh XYZ 0123-.', 1, 12);

const link = fc
  .record({
    target: id,
    section: fc.option(words, { nil: null }),
    text: fc.option(fc.oneof(words, chars('ab #', 1, 6)), { nil: null }),
    pad: fc.tuple(blanks, blanks),
  })
  .map(({ target, section, text, pad: [a, b] }): Piece => {
    const raw = `[[${a}${target}${b}${section === null ? '' : `#${section}`}${text === null ? '' : `|${text}`}]]`;
    const trim = (s: string | null) => (s === null || s.trim() === '' ? null : s.trim());
    return { text: raw, link: { target, section: trim(section), text: trim(text) } };
  });

const sameSection = words
  .filter((s) => s.trim() !== '')
  .map((section): Piece => ({ text: `[[#${section}]]`, link: { target: '', section: section.trim(), text: null } }));

/** A link inside an inline code span: not a link. */
const codeSpan = fc
  .tuple(link, fc.constantFrom('`', '``'))
  .map(([l, ticks]): Piece => ({ text: `${ticks}${l.text}${ticks}`, link: null }));

const paragraph = fc
  .array(fc.oneof({ weight: 3, arbitrary: plain }, { weight: 3, arbitrary: link }, sameSection, codeSpan), {
    minLength: 1,
    maxLength: 8,
  })
  .map((pieces) => ({
    text: pieces.map((p) => p.text).join(' '),
    links: pieces.flatMap((p) => (p.link ? [p.link] : [])),
  }));

/** A fenced code block full of links: none of them count. */
const fenced = fc
  .tuple(fc.constantFrom('```', '~~~', '````'), fc.array(link, { minLength: 1, maxLength: 3 }))
  .map(([fence, ls]) => ({ text: `${fence}\n${ls.map((l) => l.text).join('\n')}\n${fence}`, links: [] as Expected[] }));

const body = fc.array(fc.oneof({ weight: 3, arbitrary: paragraph }, fenced), { minLength: 1, maxLength: 6 });

describe('wikilinks: reference model', () => {
  it('finds exactly the links outside code, in order', () => {
    fc.assert(
      fc.property(body, (blocks) => {
        const text = blocks.map((b) => b.text).join('\n\n');
        const found = extractWikilinks(text).map(({ target, section, text }) => ({ target, section, text }));
        expect(found).toEqual(blocks.flatMap((b) => b.links));
      }),
      { numRuns: 1_000 },
    );
  });

  it('outgoing targets are the distinct linked ids, sorted, without the page itself', () => {
    fc.assert(
      fc.property(body, id, (blocks, own) => {
        const text = blocks.map((b) => b.text).join('\n\n');
        const expected = [...new Set(blocks.flatMap((b) => b.links.map((l) => l.target)))]
          .filter((t) => t !== '' && t !== own)
          .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        expect(outgoingTargets(extractWikilinks(text), own)).toEqual(expected);
      }),
    );
  });
});

describe('wikilinks: any body', () => {
  const bodyish = fc.oneof(
    fc.string({ maxLength: 200 }),
    chars('[]|# \n`~ab-', 0, 200),
    body.map((bs) => bs.map((b) => b.text).join('\n')),
  );

  it('every link is a literal [[…]] of the body without brackets or line breaks inside', () => {
    fc.assert(
      fc.property(bodyish, (text) => {
        for (const l of extractWikilinks(text)) {
          expect(text.slice(l.offset, l.offset + l.raw.length)).toBe(l.raw);
          expect(l.raw).toMatch(/^\[\[[^[\]\n]+\]\]$/);
          expect(l.target).toBe(l.target.trim());
          expect(l.target.includes('|') || l.target.includes('#')).toBe(false);
          expect(l.target !== '' || (l.section !== null && l.section !== '')).toBe(true);
        }
      }),
      { numRuns: 2_000 },
    );
  });
});
