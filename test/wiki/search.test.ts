import { describe, expect, it } from 'vitest';
import {
  BM25_B,
  BM25_K1,
  SNIPPET_LENGTH,
  buildSnapshot,
  makeSnippet,
  scanFromSources,
  searchWiki,
  tokenize,
  type WikiSnapshot,
} from '../../src/wiki/index.js';
import { TermTable, internAsciiTokens } from '../../src/wiki/term-table.js';
import { page } from './helpers.js';

function wiki(pages: Record<string, string>): WikiSnapshot {
  return buildSnapshot(scanFromSources(Object.entries(pages).map(([p, text]) => ({ path: p, text }))));
}

const FILLER = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(6);

describe('tokenize', () => {
  it('lower-cases runs of letters and digits and splits ids on -', () => {
    expect(tokenize("Grover's algo-grover QFT_2 Høyer 10.1137/x")).toEqual([
      'grover',
      's',
      'algo',
      'grover',
      'qft',
      '2',
      'høyer',
      '10',
      '1137',
      'x',
    ]);
    // NFC: a decomposed é matches a composed one.
    expect(tokenize('Cafe\u0301')).toEqual(tokenize('Café'));
  });
});

describe('ranking', () => {
  const snapshot = wiki({
    'a.md': page({
      id: 'concept-body',
      title: 'Unrelated title',
      body: `## Definition\n\n${FILLER} entanglement appears once here.`,
    }),
    'b.md': page({ id: 'concept-title', title: 'Entanglement', body: `## Definition\n\n${FILLER}` }),
    'c.md': page({ id: 'concept-tag', title: 'Other', tags: ['entanglement'], body: `## Definition\n\n${FILLER}` }),
    'd.md': page({ id: 'concept-none', title: 'Nothing', body: `## Definition\n\n${FILLER}` }),
  });

  it('a title hit outranks a tag hit, which outranks a body hit; non-matches are left out', () => {
    const result = searchWiki(snapshot, { q: 'entanglement' });
    expect(result.query).toBe('entanglement');
    expect(result.results.map((r) => r.id)).toEqual(['concept-title', 'concept-tag', 'concept-body']);
    expect(result.total).toBe(3);
    const [title, tag, body] = result.results;
    expect(title!.score).toBeGreaterThan(tag!.score);
    expect(tag!.score).toBeGreaterThan(body!.score);
  });

  it('id tokens are searchable', () => {
    expect(searchWiki(snapshot, { q: 'none' }).results.map((r) => r.id)).toEqual(['concept-none']);
  });

  it('the whole query as a title substring adds 5, even without a whole-token match', () => {
    const result = searchWiki(snapshot, { q: 'ENTANGLE' });
    expect(result.results).toEqual([expect.objectContaining({ id: 'concept-title', score: 5 })]);
  });

  it('scores follow BM25 over field-weighted term frequency, rounded to 4 decimals', () => {
    const tiny = wiki({
      'x.md': page({ id: 'x', title: 'Alpha', tags: null, body: 'beta beta' }),
      'y.md': page({ id: 'y', title: 'Gamma', tags: null, body: 'beta' }),
    });
    // Field-weighted lengths: x = title 1×3 + id 1×3 + body 2 = 8; y = 3 + 3 + 1 = 7; avg 7.5.
    const idf = Math.log(1 + (2 - 2 + 0.5) / (2 + 0.5));
    const bm25 = (tf: number, len: number): number =>
      (idf * tf * (BM25_K1 + 1)) / (tf + BM25_K1 * (1 - BM25_B + (BM25_B * len) / 7.5));
    const result = searchWiki(tiny, { q: 'beta' });
    expect(result.results.map((r) => [r.id, r.score])).toEqual([
      ['x', Math.round(bm25(2, 8) * 1e4) / 1e4],
      ['y', Math.round(bm25(1, 7) * 1e4) / 1e4],
    ]);
    // Title weight 3: "alpha" in the title of x.
    const alphaIdf = Math.log(1 + (2 - 1 + 0.5) / (1 + 0.5));
    const alpha = (alphaIdf * 3 * (BM25_K1 + 1)) / (3 + BM25_K1 * (1 - BM25_B + (BM25_B * 8) / 7.5)) + 5;
    expect(searchWiki(tiny, { q: 'alpha' }).results).toEqual([
      expect.objectContaining({ id: 'x', score: Math.round(alpha * 1e4) / 1e4 }),
    ]);
  });

  it('ties are broken by id ascending', () => {
    const tied = wiki({
      'z.md': page({ id: 'concept-z', title: 'Same', tags: null, body: 'word' }),
      'a.md': page({ id: 'concept-a', title: 'Same', tags: null, body: 'word' }),
      'm.md': page({ id: 'concept-m', title: 'Same', tags: null, body: 'word' }),
    });
    const result = searchWiki(tied, { q: 'word' });
    expect(result.results.map((r) => r.id)).toEqual(['concept-a', 'concept-m', 'concept-z']);
    expect(new Set(result.results.map((r) => r.score)).size).toBe(1);
  });

  it('repeated query terms count once', () => {
    const scores = (q: string): number[] =>
      searchWiki(snapshot, { q })
        .results.filter((r) => r.id !== 'concept-title')
        .map((r) => r.score);
    expect(scores('entanglement entanglement')).toEqual(scores('entanglement'));
  });
});

describe('limit, empty query, sources', () => {
  const pages: Record<string, string> = {};
  for (let i = 0; i < 120; i++) {
    pages[`p${i}.md`] = page({ id: `concept-p${String(i).padStart(3, '0')}`, title: `Page ${i}`, body: 'common word' });
  }
  pages['src.md'] = page({
    id: 'paper-preprint-2501.00010v1',
    type: 'source',
    category: 'paper',
    title: 'Common paper',
    body: 'common',
  });
  const snapshot = wiki(pages);

  it('limit defaults to 10 and is clamped to 1..100; total counts all matches', () => {
    expect(searchWiki(snapshot, { q: 'common' }).results).toHaveLength(10);
    expect(searchWiki(snapshot, { q: 'common', limit: 0 }).results).toHaveLength(1);
    expect(searchWiki(snapshot, { q: 'common', limit: -5 }).results).toHaveLength(1);
    expect(searchWiki(snapshot, { q: 'common', limit: 1000 }).results).toHaveLength(100);
    expect(searchWiki(snapshot, { q: 'common', limit: 1000 }).total).toBe(120);
  });

  it('an empty query gives the empty answer', () => {
    expect(searchWiki(snapshot, { q: '' })).toEqual({ query: '', total: 0, results: [] });
    expect(searchWiki(snapshot, { q: '   ' })).toEqual({ query: '', total: 0, results: [] });
    expect(searchWiki(snapshot, {})).toEqual({ query: '', total: 0, results: [] });
  });

  it('source pages are excluded unless asked for', () => {
    const without = searchWiki(snapshot, { q: 'paper' });
    expect(without).toEqual({ query: 'paper', total: 0, results: [] });
    const withSources = searchWiki(snapshot, { q: 'paper', include_sources: true });
    expect(withSources.total).toBe(1);
    expect(withSources.results[0]).toMatchObject({
      id: 'paper-preprint-2501.00010v1',
      type: 'source',
      category: 'paper',
    });
    expect(searchWiki(snapshot, { q: 'common', limit: 200, include_sources: true }).total).toBe(121);
  });

  it('results have exactly the contract fields', () => {
    const [first] = searchWiki(snapshot, { q: 'common' }).results;
    expect(Object.keys(first!)).toEqual(['id', 'title', 'type', 'category', 'snippet', 'score']);
  });
});

describe('snippets', () => {
  it('shows the text around the first occurrence of any query term, with ... at cut ends', () => {
    const body = `${'alpha '.repeat(60)}the Hadamard gate creates superposition ${'omega '.repeat(60)}`;
    const snippet = makeSnippet(body, ['superposition', 'hadamard']);
    expect(snippet.startsWith('...')).toBe(true);
    expect(snippet.endsWith('...')).toBe(true);
    expect(snippet).toContain('Hadamard gate creates superposition');
    expect(snippet.length).toBeLessThanOrEqual(SNIPPET_LENGTH + 6);
  });

  it('collapses whitespace', () => {
    expect(makeSnippet('a\n\n  b\tc', ['b'])).toBe('a b c');
  });

  it('falls back to the first 160 characters when the body has no hit', () => {
    const body = 'word '.repeat(100);
    const snippet = makeSnippet(body, ['absent']);
    expect(snippet.startsWith('word word')).toBe(true);
    expect(snippet.endsWith('...')).toBe(true);
    expect(snippet.length).toBeLessThanOrEqual(SNIPPET_LENGTH + 3);
  });

  it('matches whole tokens, case-insensitively', () => {
    const body = `Qubits ${'x '.repeat(100)}here a QUBIT is ${'y '.repeat(100)}`;
    const snippet = makeSnippet(body, ['qubit']);
    expect(snippet).toContain('here a QUBIT is');
    expect(snippet).not.toContain('Qubits');
  });

  it('search results carry the snippet of their body', () => {
    const snapshot = wiki({
      'a.md': page({
        id: 'concept-a',
        title: 'A',
        body: `${'filler '.repeat(40)}Grover search uses amplitude amplification. ${'more '.repeat(40)}`,
      }),
    });
    const [hit] = searchWiki(snapshot, { q: 'amplification' }).results;
    expect(hit!.snippet).toContain('amplitude amplification');
    expect(hit!.snippet.startsWith('...')).toBe(true);
  });

  it('reports the matched terms of each hit (library API)', () => {
    const snapshot = wiki({ 'a.md': page({ id: 'concept-a', title: 'Qubit', body: 'A two-level system.' }) });
    const outcome = snapshot.search.search('qubit level missing');
    expect(outcome.hits[0]?.terms).toEqual(['qubit', 'level']);
  });
});

describe('term table', () => {
  it('the ASCII fast path yields exactly the tokens of tokenize()', () => {
    const samples = [
      "Grover's algo-grover QFT_2 x1Y2 -- [[link|Text]] 10.1137/S0097539795293172 ",
      'ABC abc AbC',
      '',
      '   ',
      'end',
      Array.from({ length: 5000 }, (_, i) => `Term${i % 700} word${i}`).join(' '),
    ];
    for (const text of samples) {
      const table = new TermTable(4);
      const ids: number[] = [];
      expect(internAsciiTokens(table, text, (id) => ids.push(id))).toBe(true);
      const expected = tokenize(text);
      const byId = new Map<number, string>();
      ids.forEach((id, i) => byId.set(id, expected[i]!));
      expect(ids).toHaveLength(expected.length);
      // Same token ⇔ same id, and lookups by string agree.
      for (let i = 0; i < ids.length; i++) {
        expect(byId.get(ids[i]!)).toBe(expected[i]);
        expect(table.get(expected[i]!)).toBe(ids[i]);
      }
      expect(table.size).toBe(new Set(expected).size);
    }
    expect(internAsciiTokens(new TermTable(), 'Høyer', () => undefined)).toBe(false);
  });
});
