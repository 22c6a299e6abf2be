import { describe, expect, it } from 'vitest';
import {
  buildSnapshot,
  emptySnapshot,
  getPageDetail,
  listPages,
  loadWiki,
  scanFromSources,
  wikiStats,
  type WikiSnapshot,
} from '../../src/wiki/index.js';
import { makeWiki, page } from './helpers.js';

function wiki(pages: Record<string, string>): WikiSnapshot {
  return buildSnapshot(scanFromSources(Object.entries(pages).map(([p, text]) => ({ path: p, text }))));
}

const snapshot = wiki({
  'concepts/algo-grover.md': page({
    id: 'algo-grover',
    title: 'Grover',
    category: 'algorithm',
    tags: ['Search', 'algorithm'],
    extra: ['related: [prim-aa]', 'graph_synced: true'],
    body: '## Definition\n\nUses [[prim-aa]], [[prim-aa#iterate|the iterate]], [[missing-page]] and [[#definition]].',
  }),
  'concepts/prim-aa.md': page({
    id: 'prim-aa',
    title: 'Amplitude amplification',
    category: 'primitive',
    tags: ['search'],
    status: 'review',
    body: '## Definition\n\nGeneralises [[algo-grover]]; see also [[prim-aa]].',
  }),
  'concepts/concept-x.md': page({
    id: 'concept-x',
    title: 'X',
    category: null,
    tags: null,
    status: null,
    body: '[[algo-grover]]',
  }),
  'entities/e.md': page({ id: 'e-legacy', title: 'Legacy', type: 'entity', category: '__proto__', status: 'draft' }),
  'sources/papers/p.md': page({
    id: 'paper-preprint-quant-ph-9605043v3',
    title: 'A fast quantum mechanical algorithm for database search',
    type: 'source',
    category: 'paper',
    extra: ['doi: 10.1145/237814.237866'],
    body: 'Introduces [[algo-grover]].',
  }),
  'z/dup.md': page({ id: 'prim-aa', title: 'Duplicate' }),
  'z/broken.md': '---\nid: broken\n---\n',
});

describe('listPages', () => {
  it('lists served non-source pages sorted by id with the contract fields', () => {
    const result = listPages(snapshot);
    expect(result.total).toBe(4);
    expect(result.pages).toEqual([
      {
        id: 'algo-grover',
        title: 'Grover',
        type: 'concept',
        category: 'algorithm',
        status: 'published',
        tags: ['Search', 'algorithm'],
      },
      { id: 'concept-x', title: 'X', type: 'concept', category: '', status: 'draft', tags: [] },
      { id: 'e-legacy', title: 'Legacy', type: 'entity', category: '__proto__', status: 'draft', tags: ['example'] },
      {
        id: 'prim-aa',
        title: 'Amplitude amplification',
        type: 'concept',
        category: 'primitive',
        status: 'review',
        tags: ['search'],
      },
    ]);
  });

  it('page_type=source lists only sources; other types filter exactly', () => {
    expect(listPages(snapshot, { page_type: 'source' }).pages.map((p) => p.id)).toEqual([
      'paper-preprint-quant-ph-9605043v3',
    ]);
    expect(listPages(snapshot, { page_type: 'entity' }).pages.map((p) => p.id)).toEqual(['e-legacy']);
    expect(listPages(snapshot, { page_type: 'Concept' }).total).toBe(0);
    expect(listPages(snapshot, { page_type: '' }).total).toBe(4);
  });

  it('status is an exact match', () => {
    expect(listPages(snapshot, { status: 'review' }).pages.map((p) => p.id)).toEqual(['prim-aa']);
    expect(listPages(snapshot, { status: 'draft' }).pages.map((p) => p.id)).toEqual(['concept-x', 'e-legacy']);
  });

  it('tags are CSV, any-of, case-insensitive exact', () => {
    expect(listPages(snapshot, { tags: 'SEARCH' }).pages.map((p) => p.id)).toEqual(['algo-grover', 'prim-aa']);
    expect(listPages(snapshot, { tags: ' nothing , Algorithm ' }).pages.map((p) => p.id)).toEqual(['algo-grover']);
    expect(listPages(snapshot, { tags: 'sear' }).total).toBe(0);
    expect(listPages(snapshot, { tags: ',' }).total).toBe(4);
  });
});

describe('getPageDetail', () => {
  it('returns the contract shape with links and backlinks', () => {
    const detail = getPageDetail(snapshot, 'algo-grover');
    expect(detail).toEqual({
      id: 'algo-grover',
      title: 'Grover',
      type: 'concept',
      category: 'algorithm',
      tags: ['Search', 'algorithm'],
      status: 'published',
      created_at: '2026-03-01T00:00:00Z',
      updated_at: '2026-03-10T00:00:00Z',
      related: ['prim-aa'],
      doi: null,
      content:
        '## Definition\n\nUses [[prim-aa]], [[prim-aa#iterate|the iterate]], [[missing-page]] and [[#definition]].',
      links: ['missing-page', 'prim-aa'],
      backlinks: ['concept-x', 'paper-preprint-quant-ph-9605043v3', 'prim-aa'],
      frontmatter: {
        id: 'algo-grover',
        title: 'Grover',
        type: 'concept',
        category: 'algorithm',
        tags: ['Search', 'algorithm'],
        created_at: '2026-03-01',
        updated_at: '2026-03-10',
        status: 'published',
        related: ['prim-aa'],
        graph_synced: true,
      },
    });
  });

  it('a page does not list itself in links or backlinks', () => {
    const detail = getPageDetail(snapshot, 'prim-aa');
    expect(detail?.links).toEqual(['algo-grover']);
    expect(detail?.backlinks).toEqual(['algo-grover']);
    expect(detail?.title).toBe('Amplitude amplification'); // the first file wins over z/dup.md
  });

  it('null dates, sources retrievable, unknown and invalid ids are null', () => {
    expect(getPageDetail(wiki({ 'a.md': page({ id: 'a', created_at: null, updated_at: null }) }), 'a')).toMatchObject({
      created_at: null,
      updated_at: null,
    });
    expect(getPageDetail(snapshot, 'paper-preprint-quant-ph-9605043v3')?.doi).toBe('10.1145/237814.237866');
    for (const id of ['nope', 'broken', '../algo-grover', 'algo-grover/', 'a\u0000', '..']) {
      expect(getPageDetail(snapshot, id), id).toBeNull();
    }
  });
});

describe('wikiStats', () => {
  it('counts served pages', () => {
    const stats = wikiStats(snapshot);
    const { by_category: byCategory, ...rest } = stats;
    expect(rest).toEqual({
      total_pages: 5,
      entries: 4,
      sources: 1,
      by_type: { concept: 3, entity: 1, source: 1, comparison: 0 },
      by_status: { draft: 2, review: 1, published: 2 },
      synced_to_graph: 1,
      needs_sync: 4,
      invalid_pages: 2,
    });
    // A category named __proto__ stays an ordinary key (an object literal cannot express that, hence entries).
    expect(Object.entries(byCategory)).toEqual([
      ['__proto__', 1],
      ['algorithm', 1],
      ['paper', 1],
      ['primitive', 1],
    ]);
    expect(Object.getPrototypeOf(byCategory)).toBe(Object.prototype);
    expect(JSON.parse(JSON.stringify(stats)).by_category.__proto__).toBe(1);
  });

  it('an empty or missing wiki has zero counts', async () => {
    expect(wikiStats(emptySnapshot())).toMatchObject({ total_pages: 0, entries: 0, sources: 0, invalid_pages: 0 });
    const dir = await makeWiki({});
    const loaded = await loadWiki(`${dir}/missing`);
    expect(listPages(loaded)).toEqual({ total: 0, pages: [] });
  });
});
