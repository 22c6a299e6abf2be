/**
 * `GET /api/papers` (CONTRACT §18.2): one item per stored versioned id from the metadata index, `q`, `has_md`,
 * `has_pdf`, both sorts, page/per_page clamping and the 400s naming the parameter; then the list against a
 * brute-force sort of the same rows through random writes (the orders the index keeps must stay exact).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PaperIndex } from '../../../src/server/papers/paper-index.js';
import { PaperListService, type PaperListQuery } from '../../../src/server/papers/paper-list.js';
import { SortedList } from '../../../src/server/papers/sorted-list.js';
import type { IndexRow, RowMutation } from '../../../src/server/papers/index/row.js';
import { parseVersionedId } from '../../../src/shared/ids.js';
import { mulberry32 } from '../../support/random.js';
import { quietLogger } from '../storage/backends.js';
import { AUTH, startBackend, type Backend } from './helpers.js';

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute));
const iso = (minute: number) => at(minute).toISOString().replace('.000Z', 'Z');

/** id, title, has_pdf, has_md, image_count, updated_at minute */
const ROWS: [string, string | null, boolean, boolean, number, number][] = [
  ['2501.00001v1', 'Quantum Error Correction', true, true, 3, 10],
  ['2501.00001v2', 'Quantum Error Correction', true, false, 0, 40],
  ['2501.00002v1', 'Topological Phases', true, false, 0, 30],
  ['quant-ph/9508027v1', null, true, true, 1, 20],
  ['cs.AI/0001001v1', 'Learning Agents', false, true, 0, 50],
  ['2502.00100v1', 'A survey of QUANTUM walks', true, true, 7, 30],
];

const item = ([preprint_id, title, has_pdf, has_md, image_count, minute]: (typeof ROWS)[number]) => ({
  preprint_id,
  paper_id: preprint_id,
  status: has_md ? 'ready' : 'pending',
  title,
  has_pdf,
  has_md,
  image_count,
  updated_at: iso(minute),
});
const byId = (id: string) => item(ROWS.find((r) => r[0] === id)!);

let b: Backend;
beforeAll(async () => {
  b = await startBackend('local', null);
  const index = b.server.server.papers.index;
  for (const [id, title, hasPdf, hasMd, images, minute] of ROWS) {
    index.update(parseVersionedId(id)!, {
      title,
      has_pdf: hasPdf,
      has_md: hasMd,
      image_count: images,
      updated_at: at(minute),
    });
  }
});
afterAll(async () => {
  await b?.close();
});

const list = async (query: string) => {
  const res = await b.server.fetch(`/api/papers${query}`, { headers: AUTH });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};
const ids = async (query: string) => {
  const { status, body } = await list(query);
  expect(status).toBe(200);
  return (body['items'] as { preprint_id: string }[]).map((i) => i.preprint_id);
};

describe('GET /api/papers', () => {
  it('defaults: newest first (ties by id), page 1 of 20, every field of an item', async () => {
    const { status, body } = await list('');
    expect(status).toBe(200);
    expect(body).toEqual({
      items: [
        byId('cs.AI/0001001v1'),
        byId('2501.00001v2'),
        byId('2501.00002v1'),
        byId('2502.00100v1'),
        byId('quant-ph/9508027v1'),
        byId('2501.00001v1'),
      ],
      total: 6,
      page: 1,
      per_page: 20,
    });
  });

  it('sort=id: by preprint_id', async () => {
    expect(await ids('?sort=id')).toEqual([
      '2501.00001v1',
      '2501.00001v2',
      '2501.00002v1',
      '2502.00100v1',
      'cs.AI/0001001v1',
      'quant-ph/9508027v1',
    ]);
  });

  it.each([
    ['?q=quantum', ['2501.00001v2', '2502.00100v1', '2501.00001v1']],
    ['?q=QUANTUM%20W', ['2502.00100v1']],
    ['?q=9508', ['quant-ph/9508027v1']],
    ['?q=cs.ai', ['cs.AI/0001001v1']],
    ['?q=00001v', ['2501.00001v2', '2501.00001v1']],
    ['?q=nothing-matches', []],
    ['?q=', ['cs.AI/0001001v1', '2501.00001v2', '2501.00002v1', '2502.00100v1', 'quant-ph/9508027v1', '2501.00001v1']],
  ])('q: case-insensitive substring of the id or the title (%s)', async (query, expected) => {
    expect(await ids(query)).toEqual(expected);
  });

  it.each([
    ['?has_md=true', ['cs.AI/0001001v1', '2502.00100v1', 'quant-ph/9508027v1', '2501.00001v1']],
    ['?has_md=1', ['cs.AI/0001001v1', '2502.00100v1', 'quant-ph/9508027v1', '2501.00001v1']],
    ['?has_md=FALSE', ['2501.00001v2', '2501.00002v1']],
    ['?has_pdf=0', ['cs.AI/0001001v1']],
    ['?has_pdf=true&has_md=false&sort=id', ['2501.00001v2', '2501.00002v1']],
    ['?has_md=true&q=quantum', ['2502.00100v1', '2501.00001v1']],
  ])('has_md / has_pdf filter; absent means all (%s)', async (query, expected) => {
    expect(await ids(query)).toEqual(expected);
  });

  it('total counts every match; pages cut the order', async () => {
    expect(await list('?sort=id&per_page=4&page=2')).toEqual({
      status: 200,
      body: { items: [byId('cs.AI/0001001v1'), byId('quant-ph/9508027v1')], total: 6, page: 2, per_page: 4 },
    });
    expect((await list('?q=quantum&per_page=2&page=2')).body).toEqual({
      items: [byId('2501.00001v1')],
      total: 3,
      page: 2,
      per_page: 2,
    });
    expect((await list('?page=3&per_page=5')).body).toEqual({ items: [], total: 6, page: 3, per_page: 5 });
  });

  it.each([
    ['?page=0', 1, 20],
    ['?page=-4', 1, 20],
    ['?per_page=0', 1, 20],
    ['?per_page=-1', 1, 20],
    ['?per_page=101', 1, 100],
    ['?per_page=100', 1, 100],
    ['?per_page=1&page=2', 2, 1],
    ['?page=%2B2&per_page=%201', 2, 1],
    [`?page=${'9'.repeat(400)}&per_page=${'9'.repeat(30)}`, Number.MAX_SAFE_INTEGER, 100],
  ])('clamping %s → page %i, per_page %i', async (query, page, perPage) => {
    const { status, body } = await list(query);
    expect([status, body['page'], body['per_page']]).toEqual([200, page, perPage]);
  });

  it.each([
    ['?page=x', 'page must be an integer'],
    ['?page=1.5', 'page must be an integer'],
    ['?page=', 'page must be an integer'],
    ['?per_page=ten', 'per_page must be an integer'],
    ['?has_md=yes', 'has_md must be a boolean'],
    ['?has_pdf=', 'has_pdf must be a boolean'],
    ['?sort=title', 'sort must be one of updated_at, id'],
    ['?sort=ID', 'sort must be one of updated_at, id'],
  ])('%s → 400 %j', async (query, detail) => {
    expect(await list(query)).toEqual({ status: 400, body: { detail } });
  });

  it('a write moves the row to the top of the updated_at order at once', async () => {
    const index = b.server.server.papers.index;
    index.update(parseVersionedId('2501.00002v1')!, { has_md: true, updated_at: at(60) });
    try {
      expect(await ids('?per_page=2')).toEqual(['2501.00002v1', 'cs.AI/0001001v1']);
      expect(await ids('?has_md=false')).toEqual(['2501.00001v2']);
    } finally {
      index.update(parseVersionedId('2501.00002v1')!, { has_md: false, updated_at: at(30) });
    }
  });
});

describe('the list orders through random writes (against a brute-force sort)', () => {
  /** `rows` ids under random writes, then `rounds` random queries, each compared with filtering and sorting all rows. */
  async function crossCheck(
    rows: number,
    rounds: number,
    seed: number,
    qs: readonly (string | null)[],
    flags: readonly (boolean | null)[],
  ): Promise<number> {
    const rng = mulberry32(seed);
    const index = new PaperIndex(quietLogger(), null);
    await index.load();
    const list = new PaperListService(index);
    const titles = ['Alpha', 'beta gamma', 'GAMMA ray', null, 'delta'];
    const ids = Array.from(
      { length: rows },
      (_, i) => `25${String(1 + (i % 12)).padStart(2, '0')}.${String(i).padStart(5, '0')}v${1 + (i % 3)}`,
    );
    const write = () => {
      const id = ids[Math.floor(rng() * ids.length)]!;
      const mutation: RowMutation = {
        has_pdf: rng() < 0.7,
        has_md: rng() < 0.4,
        title: titles[Math.floor(rng() * titles.length)]!,
        updated_at: new Date(Date.UTC(2026, 0, 1) + Math.floor(rng() * 50) * 60_000),
      };
      index.update(parseVersionedId(id)!, mutation);
    };
    const brute = (query: PaperListQuery) => {
      const needle = (query.q ?? '').toLowerCase();
      const all = index
        .all()
        .filter((r) => query.hasMd === null || r.has_md === query.hasMd)
        .filter((r) => query.hasPdf === null || r.has_pdf === query.hasPdf)
        .filter(
          (r) =>
            needle === '' ||
            r.preprint_id.toLowerCase().includes(needle) ||
            (r.title ?? '').toLowerCase().includes(needle),
        )
        .sort((a: IndexRow, c: IndexRow) =>
          query.sort === 'id'
            ? a.preprint_id < c.preprint_id
              ? -1
              : 1
            : c.updated_at.getTime() - a.updated_at.getTime() || (a.preprint_id < c.preprint_id ? -1 : 1),
        );
      const start = (query.page - 1) * query.perPage;
      return { ids: all.slice(start, start + query.perPage).map((r) => r.preprint_id), total: all.length };
    };
    let manyMatches = 0;
    for (let i = 0; i < rows / 2; i++) write();
    for (let round = 0; round < rounds; round++) {
      if (rng() < 0.6) for (let w = 0; w < 1 + rows / 100; w++) write();
      const query: PaperListQuery = {
        q: qs[Math.floor(rng() * qs.length)]!,
        hasMd: flags[Math.floor(rng() * flags.length)]!,
        hasPdf: flags[Math.floor(rng() * flags.length)]!,
        sort: rng() < 0.5 ? 'id' : 'updated_at',
        page: 1 + Math.floor(rng() * 4),
        perPage: 1 + Math.floor(rng() * 30),
      };
      const page = list.page(query);
      expect({ ids: page.items.map((item) => item.preprint_id), total: page.total }).toEqual(brute(query));
      if (page.total > 4096 && (query.q !== null || query.hasMd !== null || query.hasPdf !== null)) manyMatches++;
    }
    return manyMatches;
  }

  it('a small index: matches sorted on their own', async () => {
    await crossCheck(300, 300, 7, [null, 'gamma', '2503', 'V2', 'zzz'], [null, true, false]);
  });

  it('a larger index: over 4,096 matches are picked out of the kept order', async () => {
    const rounds = await crossCheck(12_000, 40, 8, ['25', 'v', '2503', 'GAMMA'], [null, null, null, true]);
    expect(rounds).toBeGreaterThanOrEqual(10);
  });
});

describe('SortedList.from: the items from a position, across blocks', () => {
  it('equals the tail of the whole order, at every kind of position', () => {
    const list = new SortedList((a, b) => a - b);
    const rng = mulberry32(3);
    const items = Array.from({ length: 3000 }, (_, i) => i * 2);
    for (const item of [...items].sort(() => rng() - 0.5)) list.insert(item);
    for (const start of [0, 1, 511, 512, 513, 1024, 1500, 2999, 3000, 4000, -5]) {
      expect([start, [...list.from(start)]]).toEqual([start, items.slice(Math.max(0, start))]);
    }
  });
});
