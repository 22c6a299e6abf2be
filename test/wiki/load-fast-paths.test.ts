/**
 * The cold load's fast paths (issue 25, session 13) against the plain implementations they replaced, copied below
 * from HEAD e7377fc (renamed), on random inputs: the ASCII tokenizer's two-loop scan, the term counter drained into
 * the index's lists without a call per term, dates of ten characters read without the regular expression, and the
 * backlinks gathered by page position.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDateString, parseWikiDate } from '../../src/wiki/dates.js';
import { buildSnapshot, outgoingTargets, scanFromSources, type WikiPage } from '../../src/wiki/index.js';
import { IntList, TermCounter, TermTable, internAsciiTokens } from '../../src/wiki/term-table.js';

// ---- The plain implementations (HEAD e7377fc: src/wiki/term-table.ts, dates.ts, snapshot.ts) ----

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const TOKEN_BYTES = new Uint8Array(256);
for (let c = 0x30; c <= 0x39; c++) TOKEN_BYTES[c] = c;
for (let c = 0x61; c <= 0x7a; c++) TOKEN_BYTES[c] = c;
for (let c = 0x41; c <= 0x5a; c++) TOKEN_BYTES[c] = c + 0x20;

function plainInternAsciiTokens(table: TermTable, text: string, fn: (id: number) => void): boolean {
  const n = text.length;
  const bytes = Buffer.alloc(n);
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c > 0x7f) return false;
    bytes[i] = c;
  }
  let start = -1;
  let h = FNV_OFFSET;
  for (let i = 0; i < n; i++) {
    const c = TOKEN_BYTES[bytes[i]!]!;
    if (c !== 0) {
      if (start === -1) {
        start = i;
        h = FNV_OFFSET;
      }
      bytes[i] = c;
      h = Math.imul(h ^ c, FNV_PRIME);
    } else if (start !== -1) {
      fn(table.internBytes(h | 0, bytes, start, i));
      start = -1;
    }
  }
  if (start !== -1) fn(table.internBytes(h | 0, bytes, start, n));
  return true;
}

const DATE_RE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:[Zz]|([+-])(\d{2}):(\d{2}))?)?$/;

function plainDaysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function plainParseDateString(value: string): string | null {
  const trimmed = value.trim();
  const m = DATE_RE.exec(trimmed);
  if (!m) return null;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > plainDaysInMonth(year, month)) return null;
  if (m[4] === undefined) return trimmed;
  if (Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6]) > 60) return null;
  if (m[7] !== undefined && (Number(m[8]) > 23 || Number(m[9]) > 59)) return null;
  return `${m[1]}-${m[2]}-${m[3]}`;
}

/** The link index as HEAD built it: backlinks collected in a map keyed by target. */
function plainLinkIndex(pages: readonly WikiPage[]) {
  const byId = new Map<string, WikiPage>();
  for (const page of pages) byId.set(page.id, page);
  const outgoing = new Map<string, string[]>();
  const incoming = new Map<string, string[]>();
  for (const page of pages) {
    const targets = outgoingTargets(page.links, page.id);
    outgoing.set(page.id, targets);
    for (const target of targets) {
      if (!byId.has(target)) continue;
      let list = incoming.get(target);
      if (!list) incoming.set(target, (list = []));
      list.push(page.id);
    }
  }
  return { outgoing, incoming };
}

// ---- Random inputs ----

/** ASCII text: words of mixed case and digits, every kind of separator, long runs and single characters. */
const asciiText = fc
  .array(
    fc.oneof(
      fc.constantFrom('qubit', 'Qubit', 'QUBIT', 'x2', '42', 'a', 'Z', 'grover', 'GroVer', 'bell', 'b3ll', '0'),
      fc.stringMatching(/^[A-Za-z0-9]{1,40}$/),
      fc.constantFrom(' ', '  ', '\n', '-', '_', '[[', ']]', '|', '#', '.', '\t', '\u007f', '\u0000', '`', '~'),
      fc.string({ unit: fc.integer({ min: 0, max: 0x7f }).map((c) => String.fromCharCode(c)), maxLength: 12 }),
    ),
    { maxLength: 200 },
  )
  .map((parts) => parts.join(''));

const near = (digits: number) => fc.stringMatching(new RegExp(`^[0-9]{${digits}}$`));
/** Ten-character strings near `YYYY-MM-DD`: real and impossible dates, other separators, other characters. */
const tenCharacters = fc.oneof(
  fc
    .tuple(near(4), fc.constantFrom('-', '/', ' ', '.'), near(2), fc.constantFrom('-', '/', '_'), near(2))
    .map((p) => p.join('')),
  fc
    .tuple(fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 }))
    .map(([y, m, d]) => `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`),
  fc.string({ minLength: 10, maxLength: 10 }),
  fc.constantFrom('2024-02-29', '2023-02-29', '1900-02-29', '2000-02-29', '0000-01-01', '9999-12-31', '２０２４-01-01'),
);
const dateLike = fc.oneof(
  tenCharacters,
  tenCharacters.map((s) => ` ${s}\n`),
  tenCharacters.map((s) => `${s}T12:30:00Z`),
  tenCharacters.map((s) => `${s} 25:00:00+01:00`),
  fc.string({ maxLength: 30 }),
);

// ---- Properties ----

describe('the cold load fast paths match the plain implementations', () => {
  it('internAsciiTokens: the same ids, in the same order, and the same table', () => {
    fc.assert(
      fc.property(fc.array(asciiText, { minLength: 1, maxLength: 6 }), (texts) => {
        const [fast, plain] = [new TermTable(4), new TermTable(4)];
        for (const text of texts) {
          const fastIds: number[] = [];
          const plainIds: number[] = [];
          expect(internAsciiTokens(fast, text, (id) => fastIds.push(id))).toBe(true);
          expect(plainInternAsciiTokens(plain, text, (id) => plainIds.push(id))).toBe(true);
          expect(fastIds).toEqual(plainIds);
        }
        expect(fast.terms).toEqual(plain.terms);
      }),
      { numRuns: 2000 },
    );
    // Long texts go through the native copy: every text up to 3 × the short-text bound.
    fc.assert(
      fc.property(asciiText, fc.integer({ min: 1, max: 192 }), (text, length) => {
        const cut = text.padEnd(length, ' aB9').slice(0, length);
        const fastIds: number[] = [];
        const plainIds: number[] = [];
        internAsciiTokens(new TermTable(), cut, (id) => fastIds.push(id));
        plainInternAsciiTokens(new TermTable(), cut, (id) => plainIds.push(id));
        expect(fastIds).toEqual(plainIds);
      }),
      { numRuns: 2000 },
    );
  });

  it('TermCounter.drainInto appends what drain gives, in order, and leaves the counter empty', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.array(fc.tuple(fc.integer({ min: 0, max: 3000 }), fc.integer({ min: 1, max: 3 })), { maxLength: 300 }),
          {
            maxLength: 8,
          },
        ),
        (docs) => {
          const [fast, plain] = [new TermCounter(), new TermCounter()];
          const [ids, tfs] = [new IntList(), new IntList()];
          const expected: number[] = [];
          for (const doc of docs) {
            for (const [id, weight] of doc) {
              fast.add(id, weight);
              plain.add(id, weight);
            }
            expect(fast.length).toBe(plain.length);
            fast.drainInto(ids, tfs);
            plain.drain((id, tf) => expected.push(id, tf));
            expect(fast.distinct).toBe(0);
            expect(fast.length).toBe(0);
          }
          const got: number[] = [];
          for (let i = 0; i < ids.length; i++) got.push(ids.data[i]!, tfs.data[i]!);
          expect(ids.length).toBe(tfs.length);
          expect(got).toEqual(expected);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('parseDateString: the same date or null for every string', () => {
    fc.assert(
      fc.property(dateLike, (value) => {
        expect(parseDateString(value)).toBe(plainParseDateString(value));
        expect(parseWikiDate(value)).toBe(plainParseDateString(value));
      }),
      { numRuns: 20_000 },
    );
  });

  it('the link index: the same outgoing lists and backlinks (each sorted), whichever pages exist', () => {
    const ids = ['a', 'b', 'c-1', 'c-2', 'd', 'missing', 'Z'];
    const page = fc.record({
      id: fc.constantFrom(...ids),
      links: fc.array(
        fc.tuple(fc.constantFrom(...ids, '', ' a ', 'b#x', 'c-1|text'), fc.constantFrom('', '#sec', '|t')),
        { maxLength: 12 },
      ),
      code: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(page, { maxLength: 12 }), (specs) => {
        const sources = specs.map((spec, i) => ({
          path: `p${String(i).padStart(2, '0')}.md`,
          text:
            `---\nid: ${spec.id === 'missing' ? `m${i}` : spec.id}\ntitle: T\ntype: concept\n---\n` +
            spec.links.map(([target, rest]) => `[[${target}${rest}]]`).join(' and ') +
            (spec.code ? `\n\`[[${spec.links[0]?.[0] ?? 'a'}]]\`\n` : '\n'),
        }));
        const snapshot = buildSnapshot(scanFromSources(sources));
        const plain = plainLinkIndex(snapshot.pages);
        expect([...snapshot.outgoing]).toEqual([...plain.outgoing]);
        // The same entries; the map's order is now the pages' id order.
        expect(new Map(snapshot.backlinks)).toEqual(plain.incoming);
        expect([...snapshot.backlinks.keys()]).toEqual([...plain.incoming.keys()].sort());
      }),
      { numRuns: 1000 },
    );
  });
});
