/**
 * The encoder worker's packed strings (`TableSnapshot.posted`, `ChunkAssembler`, `PackedColumn`: the rows' strings as UTF-8
 * bytes, issue 25) against the plain arrays they replace, on random tables cut into random chunk sizes: values,
 * nulls and order (`compare` against `<` on the strings), with ASCII, accented, private-use, astral and empty
 * strings.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HEX_COLUMNS, HEX_SHAPES, TEXT_COLUMNS, columnRecord } from '../../../src/server/papers/index/columns.js';
import { ChunkAssembler, type PackedColumn } from '../../../src/server/papers/index/snapshot.js';
import { runToEnd } from '../../../src/server/papers/index/parquet-write.js';
import { IndexTable } from '../../../src/server/papers/index/table.js';

const piece = fc.constantFrom(
  ...['a', 'b', 'Z', '0', '.', 'é', 'ß', '\u00ff', '\u0800', '\ue000', '\uffff', '😀', '𝔸'],
);
const text = fc.array(piece, { maxLength: 6 }).map((p) => p.join(''));
const widths = columnRecord(HEX_COLUMNS, (k) => HEX_SHAPES[k].digits / 2);

describe('packed strings read as the plain arrays', () => {
  it('values, nulls and order, over chunks of any size', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(text, fc.option(text), fc.option(text)), { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 1, max: 9 }),
        (rows, chunkRows) => {
          const table = new IndexTable(rows.length);
          table.allocate(rows.length);
          rows.forEach(([id, title, doi], i) => {
            table.ids[i] = id;
            table.text.key[i] = id;
            table.text.title[i] = title;
            table.text.doi[i] = doi;
          });
          const snapshot = table.snapshot();
          const assembler = new ChunkAssembler(rows.length, widths);
          for (let start = 0; start < rows.length; start += chunkRows) {
            assembler.add(runToEnd(snapshot.posted(start, Math.min(start + chunkRows, rows.length))));
          }
          snapshot.release();
          const all = assembler.result();
          const ids = all.ids as PackedColumn;
          for (let r = 0; r < rows.length; r++) {
            expect(ids.get(r)).toBe(table.ids[r]);
            for (const k of TEXT_COLUMNS) expect((all.text[k] as PackedColumn).get(r)).toBe(table.text[k][r]);
            for (let q = 0; q < rows.length; q++) {
              const [a, b] = [table.ids[r]!, table.ids[q]!];
              expect(Math.sign(ids.compare(r, q))).toBe(a < b ? -1 : a > b ? 1 : 0);
            }
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('a chunk larger than the ones before it, or a short one before the last, is refused', () => {
    const table = new IndexTable(10);
    table.allocate(10);
    for (let i = 0; i < 10; i++) table.ids[i] = `id${i}`;
    const snapshot = table.snapshot();
    const assembler = new ChunkAssembler(10, widths);
    assembler.add(runToEnd(snapshot.posted(0, 3)));
    expect(() => assembler.add(runToEnd(snapshot.posted(3, 5)))).toThrow('a chunk of 2 rows after chunks of 3');
    expect(() => assembler.add(runToEnd(snapshot.posted(3, 7)))).toThrow('a chunk of 4 rows after chunks of 3');
  });
});
