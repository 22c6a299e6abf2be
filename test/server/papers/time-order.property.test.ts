/**
 * The radix sort of row numbers by a timestamp column (`rowsByTimeDescending`, issue 25) against the plain
 * comparison sort it replaces at load — newest first, nulls (NaN) last, equal times in input order — on random
 * columns: duplicates, negative and far timestamps, zero, NaN, rows given in any order and subsets of the rows.
 */
import fc from 'fast-check';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { rowsByTimeDescending } from '../../../src/server/papers/index/time-order.js';
import { emptyRow } from '../../../src/server/papers/index/row.js';
import { PaperIndex } from '../../../src/server/papers/paper-index.js';
import { requireUploadId } from '../../../src/shared/ids.js';
import { loadedFrom, plainByUpdated, plainNeedsParser } from './loaded-index-support.js';

/** The plain implementation: a stable comparison sort. */
function plain(rows: readonly number[], times: Float64Array): number[] {
  const key = (r: number) => (Number.isNaN(times[r]!) ? -Infinity : times[r]!);
  return [...rows].sort((a, b) => (key(a) === key(b) ? 0 : key(a) < key(b) ? 1 : -1));
}

const time = fc.oneof(
  fc.constantFrom(NaN, 0, -0, 1, -1, 1_700_000_000_000, 8.64e15, -8.64e15),
  fc.integer({ min: -5, max: 5 }),
  fc.integer({ min: -2_000_000_000_000, max: 4_000_000_000_000 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

describe('rowsByTimeDescending', () => {
  it('equals a stable comparison sort on random columns and row lists', () => {
    fc.assert(
      fc.property(fc.array(time, { maxLength: 300 }), fc.array(fc.nat(), { maxLength: 300 }), (values, picks) => {
        const times = Float64Array.from(values);
        // Any order, repeated rows allowed: the sort must keep input order among equal times.
        const rows = values.length === 0 ? [] : picks.map((p) => p % values.length);
        expect([...rowsByTimeDescending(rows, times)]).toEqual(plain(rows, times));
      }),
      { numRuns: 500 },
    );
  });

  it('sorts a large column with few distinct digits per pass like the comparison sort', () => {
    const times = new Float64Array(70_000);
    for (let i = 0; i < times.length; i++) times[i] = i % 97 === 0 ? NaN : 1_700_000_000_000 + ((i * 7919) % 65_537);
    const rows = Array.from({ length: times.length }, (_, i) => i);
    expect([...rowsByTimeDescending(rows, times)]).toEqual(plain(rows, times));
  });
});

describe('the needs-parser and updated_at orders right after a load in id order', () => {
  const stamp = fc.option(fc.integer({ min: -1_000_000_000_000, max: 4_000_000_000_000 }), { nil: null });

  it('equal a plain sort of the rows', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.integer({ min: 0, max: 99_999 }), { maxLength: 120 }),
        fc.array(fc.tuple(fc.boolean(), fc.boolean(), stamp, fc.oneof(stamp, fc.constantFrom(0, 5))), {
          minLength: 120,
          maxLength: 120,
        }),
        async (numbers, cells) => {
          const rows = [...numbers]
            .sort((a, b) => a - b)
            .map((n, i) => {
              const [hasPdf, hasMd, uploaded, updated] = cells[i]!;
              return {
                ...emptyRow(requireUploadId(`2503.${String(n).padStart(5, '0')}v1`), new Date(updated ?? 3)),
                has_pdf: hasPdf,
                has_md: hasMd,
                pdf_uploaded_at: uploaded === null ? null : new Date(uploaded),
              };
            });
          const index = new PaperIndex(pino({ level: 'silent' }), loadedFrom(rows), { flushDelayMs: 3_600_000 });
          await index.load();
          expect([...index.needsParser()].map((r) => r.preprint_id)).toEqual(plainNeedsParser(rows));
          const { table, order } = index.listing('updated_at');
          expect([...order.from(0)].map((i) => table.ids[i])).toEqual(plainByUpdated(rows));
        },
      ),
      { numRuns: 150 },
    );
  });
});
