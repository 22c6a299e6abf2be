/**
 * The index table's typed-array lookups (`IdIndex`, issue 25) against the plain implementation they replace — a
 * `Map` from id to row and a `Map` from versionless id to its rows ordered by version — on random ids: new-style,
 * old-style and versionless ids, duplicates, versions out of order and past 9, tables that grow, and a loaded
 * prefix in id order (found by bisection) followed by rows added in any order (hashed).
 */
import fc from 'fast-check';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { IdIndex, versionSplit } from '../../../src/server/papers/index/id-index.js';
import { IndexTable } from '../../../src/server/papers/index/table.js';
import { emptyRow, type IndexRow } from '../../../src/server/papers/index/row.js';
import { PaperIndex } from '../../../src/server/papers/paper-index.js';
import { requireUploadId } from '../../../src/shared/ids.js';
import { byId, loadedFrom, plainByUpdated, plainNeedsParser } from './loaded-index-support.js';

const paper = fc.oneof(
  fc.integer({ min: 0, max: 40 }).map((n) => `2501.${String(n).padStart(5, '0')}`),
  fc.integer({ min: 0, max: 10 }).map((n) => `hep-th/${String(n).padStart(7, '0')}`),
  fc.constantFrom('2501.0000', 'v', 'x', ''),
);
const version = fc.oneof(fc.constantFrom('v1', 'v2', 'v3', 'v10', 'v12', 'v9'), fc.constant(''), fc.constant('v'));
const id = fc.tuple(paper, version).map(([p, v]) => p + v);

/** The plain implementation: first-seen order, last write wins, versions by (length, text) of the number. */
function plain(ids: readonly string[]) {
  const byId = new Map<string, number>();
  const byPaper = new Map<string, number[]>();
  ids.forEach((value, row) => {
    const known = byId.has(value);
    byId.set(value, row);
    const split = versionSplit(value);
    if (known || split < 0) return;
    const key = value.slice(0, split);
    byPaper.set(key, [...(byPaper.get(key) ?? []), row]);
  });
  const versionsOf = (versionless: string) =>
    (byPaper.get(versionless) ?? [])
      .map((r) => ids[r]!.slice(versionless.length + 1))
      .sort((a, b) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0));
  return { byId, versionsOf };
}

describe('IdIndex against Map', () => {
  it('maps every id to its last row and lists each paper’s versions in order', () => {
    fc.assert(
      fc.property(fc.array(id, { maxLength: 300 }), fc.array(paper, { maxLength: 20 }), (ids, probes) => {
        const index = new IdIndex(ids, 4); // starts small: the tables grow while filling
        const duplicates = ids.map((_, row) => index.set(row));
        const expected = plain(ids);
        expect(duplicates).toEqual(ids.map((v, row) => ids.indexOf(v) !== row));
        for (const v of [...ids, ...probes, 'absent', '2501.99999v1']) expect(index.get(v)).toBe(expected.byId.get(v));
        for (const p of [...ids.map((v) => v.slice(0, Math.max(0, versionSplit(v)))), ...probes]) {
          expect(index.versionsOf(p).map((r) => ids[r]!.slice(p.length + 1))).toEqual(expected.versionsOf(p));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('a sorted prefix found by bisection plus rows added later agree with Map', () => {
    fc.assert(
      fc.property(fc.array(id, { maxLength: 200 }), fc.array(id, { maxLength: 60 }), (loaded, added) => {
        const prefix = [...new Set(loaded)].sort();
        const ids = [...prefix];
        const index = new IdIndex(ids, 4);
        expect(index.bulk(ids.length)).toBe(false);
        expect(index.sorted).toBe(prefix.length);
        for (const v of added) {
          if (index.get(v) !== undefined) continue; // an existing id is changed in place, not added (`upsert`)
          ids.push(v);
          index.set(ids.length - 1);
        }
        const expected = plain(ids);
        for (const v of [...ids, ...added, 'absent']) expect(index.get(v)).toBe(expected.byId.get(v));
        for (const p of ids.map((v) => v.slice(0, Math.max(0, versionSplit(v))))) {
          expect(index.versionsOf(p).map((r) => ids[r]!.slice(p.length + 1))).toEqual(expected.versionsOf(p));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('unsorted bulk input is hashed row by row and reports duplicates', () => {
    const ids = ['2501.00002v1', '2501.00001v1', '2501.00002v1'];
    const index = new IdIndex(ids, 4);
    expect(index.bulk(ids.length)).toBe(true);
    expect(index.sorted).toBe(0);
    expect(index.get('2501.00002v1')).toBe(2);
    expect(index.versionsOf('2501.00002')).toEqual([2]);
  });

  it('an IndexTable built row by row and one decoded in bulk with duplicates agree with Map', () => {
    const versioned = fc.tuple(
      fc.integer({ min: 0, max: 60 }).map((n) => `2502.${String(n).padStart(5, '0')}`),
      fc.integer({ min: 1, max: 12 }),
    );
    fc.assert(
      fc.property(fc.array(versioned, { maxLength: 200 }), (pairs) => {
        const ids = pairs.map(([p, v]) => `${p}v${v}`);
        const rows = ids.map((v, k) => ({ ...emptyRow(requireUploadId(v), new Date(1000 + k)), image_count: k }));
        const upserted = new IndexTable(1);
        for (const r of rows) upserted.upsert(r);
        const bulk = new IndexTable(1);
        bulk.allocate(ids.length);
        ids.forEach((v, k) => {
          bulk.ids[k] = v;
          bulk.imageCount[k] = k;
        });
        bulk.indexRows();
        const expected = plain(ids);
        const firstSeen = [...expected.byId.keys()];
        // A loaded file in id order (bisection), then the rows upserted on top in their order.
        const sortedIds = [...firstSeen].sort();
        const loaded = new IndexTable(1);
        loaded.allocate(sortedIds.length);
        sortedIds.forEach((v, k) => (loaded.ids[k] = v));
        loaded.indexRows();
        expect(loaded.sortedRows).toBe(sortedIds.length);
        for (const r of rows) loaded.upsert(r);
        for (const [v, last] of expected.byId) expect(loaded.imageCount[loaded.indexOf(v)!]).toBe(last);
        for (const [p] of pairs) {
          expect(loaded.versionsOf(p).map((r) => loaded.ids[r]!.slice(p.length + 1))).toEqual(expected.versionsOf(p));
        }
        for (const table of [upserted, bulk]) {
          expect(table.ids).toEqual(firstSeen);
          for (const [v, last] of expected.byId) expect(table.imageCount[table.indexOf(v)!]).toBe(last);
          for (const [p] of pairs) {
            expect(table.versionsOf(p).map((r) => table.ids[r]!.slice(p.length + 1))).toEqual(expected.versionsOf(p));
          }
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('orders over a loaded sorted prefix', () => {
  const row = (n: number, at: number | null, hasMd: boolean): IndexRow => ({
    ...emptyRow(requireUploadId(`2503.${String(n).padStart(5, '0')}v1`), new Date(1000 + (at ?? 7))),
    has_pdf: true,
    has_md: hasMd,
    pdf_uploaded_at: at === null ? null : new Date(at),
  });
  const when = fc.option(fc.integer({ min: 0, max: 5 }), { nil: null });

  it('needs-parser and both list orders equal a plain sort after loads and write-through', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.integer({ min: 0, max: 400 }), { maxLength: 80 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 400 }), when, fc.boolean()), { maxLength: 40 }),
        async (loadedIds, updates) => {
          const rows = [...loadedIds].sort((a, b) => a - b).map((n) => row(n, n % 6, n % 5 === 0));
          const index = new PaperIndex(pino({ level: 'silent' }), loadedFrom(rows), { flushDelayMs: 3_600_000 });
          await index.load();
          for (const [n, at, hasMd] of updates) {
            const r = row(n, at, hasMd);
            index.update(requireUploadId(r.preprint_id), {
              has_pdf: true,
              has_md: hasMd,
              pdf_uploaded_at: r.pdf_uploaded_at,
              updated_at: new Date(1000 + (at ?? 7)),
            });
          }
          const all = index.all();
          expect([...index.needsParser()].map((r) => r.preprint_id)).toEqual(plainNeedsParser(all));
          const listed = (sort: 'id' | 'updated_at') => {
            const { table, order } = index.listing(sort);
            return [...order.from(0)].map((i) => table.ids[i]);
          };
          expect(listed('id')).toEqual([...all].sort(byId).map((r) => r.preprint_id));
          expect(listed('updated_at')).toEqual(plainByUpdated(all));
          index.update(requireUploadId('2503.99999v1'), { has_pdf: true }); // keeps the orders exact afterwards too
          expect(listed('id').at(-1)).toBe('2503.99999v1');
        },
      ),
      { numRuns: 150 },
    );
  });
});
