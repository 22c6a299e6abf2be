/**
 * The wiki's memory-saving structures (issue 25) against plain implementations on random inputs: the search index's
 * flat typed-array postings rank, count, snippet and list matched terms exactly as a plain per-page BM25 over maps
 * (the formula of CONTRACT §13.4), and wikilinks cut from the body (not the code-masked copy) equal the ones cut
 * from the masked text.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BM25_B,
  BM25_K1,
  FIELD_WEIGHTS,
  TITLE_SUBSTRING_BONUS,
  buildSnapshot,
  clampLimit,
  compareStrings,
  extractWikilinks,
  makeSnippet,
  parseLinkInner,
  scanFromSources,
  tokenize,
  type WikiLink,
  type WikiPage,
} from '../../src/wiki/index.js';
import { maskCode } from '../../src/wiki/markdown.js';

const WORDS = ['qubit', 'Gate', 'phase', 'BELL', 'état', 'Höyer', 'x2', '42', 'grover', 'fourier', 'naïve', 'a'];
// Titles (an escaped YAML string) and queries may hold NUL, which the index's joined title text uses as separator.
const NUL_WORD = 'n\0l';

interface PlainHit {
  id: string;
  score: number;
  snippet: string;
  terms: string[];
}

/** BM25 over one term → frequency map per page, every page scored: the reference the index must match. */
function plainSearch(pages: readonly WikiPage[], query: string, limit: number, includeSources: boolean) {
  const q = query.trim();
  if (q === '') return { query: '', total: 0, hits: [] as PlainHit[] };
  const freqs = pages.map((page) => {
    const m = new Map<string, number>();
    const add = (text: string, weight: number) => {
      for (const token of tokenize(text)) m.set(token, (m.get(token) ?? 0) + weight);
    };
    add(page.title, FIELD_WEIGHTS.title);
    add(page.id, FIELD_WEIGHTS.id);
    for (const tag of page.tags) add(tag, FIELD_WEIGHTS.tags);
    add(page.body, FIELD_WEIGHTS.body);
    return m;
  });
  const lengths = freqs.map((m) => [...m.values()].reduce((a, b) => a + b, 0));
  const totalLength = lengths.reduce((a, b) => a + b, 0);
  const avg = pages.length > 0 && totalLength > 0 ? totalLength / pages.length : 1;
  const terms = [...new Set(tokenize(q))];
  const n = pages.length;
  const scored = pages.map((page, doc) => {
    let score = 0;
    for (const term of terms) {
      const tf = freqs[doc]!.get(term);
      if (tf === undefined) continue;
      const df = freqs.filter((m) => m.has(term)).length;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      const norm = BM25_K1 * (1 - BM25_B + (BM25_B * lengths[doc]!) / avg);
      score += (idf * tf * (BM25_K1 + 1)) / (tf + norm);
    }
    if (page.title.toLowerCase().includes(q.toLowerCase())) score += TITLE_SUBSTRING_BONUS;
    return { page, doc, score: Math.round(score * 10_000) / 10_000, raw: score };
  });
  const matches = scored
    .filter((s) => s.raw > 0 && (includeSources || s.page.type !== 'source'))
    .sort((a, b) => b.score - a.score || compareStrings(a.page.id, b.page.id));
  const hits = matches.slice(0, clampLimit(limit)).map(({ page, doc, score }) => ({
    id: page.id,
    score,
    snippet: makeSnippet(page.body, terms),
    terms: terms.filter((term) => freqs[doc]!.has(term)),
  }));
  return { query: q, total: matches.length, hits };
}

const word = fc.constantFrom(...WORDS);
const words = (min: number, max: number, from = word) => fc.array(from, { minLength: min, maxLength: max });
const titleOrQueryWord = fc.constantFrom(...WORDS, NUL_WORD);
const pageArb = fc.record({
  title: words(1, 4, titleOrQueryWord),
  tags: words(0, 3),
  body: words(0, 60),
  source: fc.boolean(),
});
const queryArb = fc.oneof(
  words(0, 3, titleOrQueryWord).map((w) => w.join(' ')),
  fc.tuple(words(1, 2), fc.constantFrom('', ' ', '  Unknownword', ' 7')).map(([w, extra]) => w.join(' ') + extra),
);

describe('search index with flat typed-array postings', () => {
  it('ranks, counts and snippets like a plain per-page BM25 on random corpora and queries', () => {
    fc.assert(
      fc.property(
        fc.array(pageArb, { minLength: 0, maxLength: 25 }),
        fc.array(fc.tuple(queryArb, fc.integer({ min: 1, max: 30 }), fc.boolean()), { minLength: 1, maxLength: 8 }),
        (specs, queries) => {
          const sources = specs.map((spec, i) => ({
            path: `p${i}.md`,
            text:
              `---\nid: ${spec.source ? 'paper' : 'concept'}-${i}-x2\n` +
              `title: ${JSON.stringify(spec.title.join(' '))}\ntype: ${spec.source ? 'source' : 'concept'}\n` +
              `tags: [${spec.tags.join(', ')}]\n---\n${spec.body.join(' ')}\n`,
          }));
          const snapshot = buildSnapshot(scanFromSources(sources));
          expect(snapshot.pages).toHaveLength(specs.length);
          for (const [q, limit, includeSources] of queries) {
            const got = snapshot.search.search(q, { limit, includeSources });
            const hits = got.hits.map(({ page, score, snippet, terms }) => ({ id: page.id, score, snippet, terms }));
            expect({ query: got.query, total: got.total, hits }).toEqual(
              plainSearch(snapshot.pages, q, limit, includeSources),
            );
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});

/** Wikilinks as cut from the code-masked copy of the body (the plain implementation). */
function plainWikilinks(body: string): WikiLink[] {
  const masked = maskCode(body);
  const links: WikiLink[] = [];
  let open = masked.indexOf('[[');
  while (open !== -1) {
    let i = open + 2;
    let close = -1;
    for (; i < masked.length; i++) {
      const c = masked[i];
      if (c === ']') {
        if (masked[i + 1] === ']' && i > open + 2) close = i;
        break;
      }
      if (c === '[' || c === '\n') break;
    }
    if (close === -1) {
      open = masked.indexOf('[[', open + 1);
      continue;
    }
    const parsed = parseLinkInner(masked.slice(open + 2, close));
    if (parsed) links.push({ ...parsed, raw: masked.slice(open, close + 2), offset: open });
    open = masked.indexOf('[[', close + 2);
  }
  return links;
}

describe('wikilinks sharing the body string', () => {
  it('equal the links cut from the masked text on random bodies with code and links', () => {
    const piece = fc.constantFrom(
      '[[concept-a]]',
      '[[b|Text]]',
      '[[#sec]]',
      '[[c#d|e]]',
      '[[ x `code` y ]]',
      '[[a `b]]` c]]',
      '`[[in-code]]`',
      '```\n[[fenced]]\n```',
      '~~~\n[[tilde]]\n~~~',
      '[[',
      ']]',
      '`',
      '|',
      '#',
      ' ',
      '\n',
      '\n\n',
      'word',
      'été',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), (parts) => {
        const body = parts.join('');
        expect(extractWikilinks(body)).toEqual(plainWikilinks(body));
      }),
      { numRuns: 500 },
    );
  });
});
