/**
 * The index keeps the §4.3 counters and the §9.2 needs-parser order incrementally: after every write-through,
 * load, reload and merged flush they must equal a full recomputation.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { applyPending } from '../../../src/server/papers/index/pending.js';
import { emptyRow, type IndexRow, type RowMutation } from '../../../src/server/papers/index/row.js';
import { IndexTable } from '../../../src/server/papers/index/table.js';
import { PaperIndex, type IndexPersistence } from '../../../src/server/papers/paper-index.js';
import { SortedList } from '../../../src/server/papers/sorted-list.js';
import { requireUploadId } from '../../../src/shared/ids.js';
import { mulberry32 } from '../../support/random.js';

const quiet = pino({ level: 'silent' });

/** An in-memory index object with ETag semantics (CAS on save, change detection on reload). */
class MemoryPersistence implements IndexPersistence {
  remote: IndexRow[] | null = null;
  private version = 0;
  private seen = -1;

  setRemote(rows: IndexRow[]): void {
    this.remote = rows;
    this.version++;
  }

  async load(): Promise<IndexTable | null> {
    this.seen = this.version;
    return this.remote ? IndexTable.fromRows(this.remote) : null;
  }

  async reload(): Promise<IndexTable | null | 'unchanged'> {
    if (this.seen === this.version) return 'unchanged';
    this.seen = this.version;
    return this.remote ? IndexTable.fromRows(this.remote) : null;
  }

  async save(table: IndexTable, pending: ReadonlyMap<string, RowMutation>) {
    if (this.seen !== this.version) {
      const merged = applyPending(IndexTable.fromRows(this.remote ?? []), pending, table);
      this.setRemote([...merged.rows()]);
      this.seen = this.version;
      return merged;
    }
    this.setRemote([...table.rows()]);
    this.seen = this.version;
    return 'stored' as const;
  }
}

/** The reference: a full scan and sort, as the first implementation did per request. */
function expected(rows: readonly IndexRow[]) {
  const candidates = rows
    .filter((r) => r.has_pdf && !r.has_md)
    .sort((a, b) => {
      const ta = a.pdf_uploaded_at?.getTime() ?? null;
      const tb = b.pdf_uploaded_at?.getTime() ?? null;
      if (ta !== tb) {
        if (ta === null) return 1;
        if (tb === null) return -1;
        return tb - ta;
      }
      return a.preprint_id < b.preprint_id ? -1 : a.preprint_id > b.preprint_id ? 1 : 0;
    })
    .map((r) => r.preprint_id);
  return {
    stats: {
      total: rows.length,
      has_pdf: rows.filter((r) => r.has_pdf).length,
      has_md: rows.filter((r) => r.has_md).length,
      has_json: rows.filter((r) => r.has_json).length,
      needs_parser: candidates.length,
      total_images: rows.reduce((n, r) => n + r.image_count, 0),
    },
    order: candidates,
  };
}

function check(index: PaperIndex): void {
  const want = expected(index.all());
  const { available: _a, loaded_at: _l, ...stats } = index.stats();
  expect(stats).toEqual(want.stats);
  expect([...index.needsParser()].map((r) => r.preprint_id)).toEqual(want.order);
  expect(index.needsParserCount).toBe(want.order.length);
  for (const r of index.all()) expect(index.isNeedsParser(r.preprint_id)).toBe(want.order.includes(r.preprint_id));
}

const ids = Array.from({ length: 60 }, (_, i) => `2501.${String(10 + (i % 20)).padStart(5, '0')}v${1 + (i % 3)}`);
/** Few distinct times, so ties (ordered by preprint_id) and nulls are frequent. */
const times = [
  null,
  new Date('2026-01-01T00:00:00Z'),
  new Date('2026-01-02T00:00:00Z'),
  new Date('2026-01-03T00:00:00Z'),
];

function randomMutation(next: () => number): RowMutation {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!;
  const m: RowMutation = {};
  if (next() < 0.6) m.has_pdf = next() < 0.8;
  if (next() < 0.4) m.has_md = next() < 0.5;
  if (next() < 0.3) m.has_json = next() < 0.2;
  if (next() < 0.4) m.image_count = Math.floor(next() * 5);
  if (next() < 0.5) m.pdf_uploaded_at = pick(times);
  return m;
}

function randomRow(next: () => number, id: string): IndexRow {
  return { ...emptyRow(requireUploadId(id), new Date('2026-01-01T00:00:00Z')), ...randomMutation(next) };
}

describe('PaperIndex counters and needs-parser order', () => {
  it('stay exact across write-throughs, reloads of a remotely changed index and merged flushes', async () => {
    const next = mulberry32(42);
    const persistence = new MemoryPersistence();
    persistence.setRemote(ids.slice(0, 30).map((id) => randomRow(next, id)));
    const index = new PaperIndex(quiet, persistence, { flushDelayMs: 3_600_000 });
    await index.load();
    check(index);

    for (let step = 0; step < 400; step++) {
      const r = next();
      if (r < 0.7) {
        index.update(requireUploadId(ids[Math.floor(next() * ids.length)]!), randomMutation(next));
      } else if (r < 0.8) {
        // Another server rewrote the index: reload merges our pending mutations on top.
        persistence.setRemote(ids.filter(() => next() < 0.5).map((id) => randomRow(next, id)));
        await index.reload();
      } else if (r < 0.9) {
        // Sometimes the remote changed first: the flush loses the CAS and stores a merge.
        if (next() < 0.5) persistence.setRemote(ids.filter(() => next() < 0.5).map((id) => randomRow(next, id)));
        const wrote = index.dirty;
        await index.flush();
        expect(index.dirty).toBe(false);
        if (wrote) expect(expected(index.all())).toEqual(expected(persistence.remote ?? []));
      } else {
        await index.load();
      }
      check(index);
    }
    await index.close();
  });

  it('an upload moves a paper out of needs-parser; a newer PDF moves it to the front; a tie sorts by id', async () => {
    const index = new PaperIndex(quiet, null);
    await index.load();
    const t1 = new Date('2026-02-01T00:00:00Z');
    const t2 = new Date('2026-02-02T00:00:00Z');
    index.update(requireUploadId('2501.00002v1'), { has_pdf: true, pdf_uploaded_at: t1 });
    index.update(requireUploadId('2501.00001v1'), { has_pdf: true, pdf_uploaded_at: t1 });
    index.update(requireUploadId('2501.00003v1'), { has_pdf: true, pdf_uploaded_at: null });
    const order = () => [...index.needsParser()].map((r) => r.preprint_id);
    expect(order()).toEqual(['2501.00001v1', '2501.00002v1', '2501.00003v1']);
    index.update(requireUploadId('2501.00003v1'), { pdf_uploaded_at: t2 });
    expect(order()).toEqual(['2501.00003v1', '2501.00001v1', '2501.00002v1']);
    index.update(requireUploadId('2501.00001v1'), { has_md: true, image_count: 4 });
    expect(order()).toEqual(['2501.00003v1', '2501.00002v1']);
    expect(index.stats()).toMatchObject({ total: 3, has_pdf: 3, has_md: 1, needs_parser: 2, total_images: 4 });
  });
});

describe('SortedList', () => {
  it('matches a sorted array under random inserts and removes across block splits', () => {
    const next = mulberry32(7);
    const list = new SortedList((a, b) => a - b);
    const reference = new Set<number>();
    list.reset([5, 3, 1]);
    for (const v of [5, 3, 1]) reference.add(v);
    for (let i = 0; i < 20_000; i++) {
      const v = Math.floor(next() * 3_000);
      if (reference.has(v)) {
        expect(list.remove(v)).toBe(true);
        reference.delete(v);
      } else if (next() < 0.7) {
        list.insert(v);
        reference.add(v);
      } else {
        expect(list.remove(v)).toBe(false);
      }
    }
    expect(list.toArray()).toEqual([...reference].sort((a, b) => a - b));
    expect([...list]).toEqual(list.toArray());
    expect(list.size).toBe(reference.size);
  });
});
