/**
 * The front-coded ids of an opened index (`PackedIds`, issue 25) against the plain list of strings they were packed
 * from: random lists (shuffled and sorted; ASCII, non-ASCII, ids around and past 255 bytes that share long prefixes
 * with shorter ones and with each other), every id, random slices, and whether they strictly ascend (also for lists
 * sorted but for one swapped pair).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PackedIds } from '../../../src/server/papers/index/packed-ids.js';

const piece = fc.constantFrom('a', 'Z', '0', '.', 'v1', 'é', '\u0800', '\uffff', '😀');
const short = fc.array(piece, { maxLength: 6 }).map((p) => p.join(''));
const long = fc.tuple(short, fc.integer({ min: 60, max: 300 }), short).map(([a, n, b]) => a + 'L'.repeat(n) + b);
const arxiv = fc.integer({ min: 0, max: 99_999 }).map((n) => `2501.${String(n).padStart(5, '0')}v${(n % 3) + 1}`);
const id = fc.oneof(short, long, arxiv);
/** Shuffled, sorted, or sorted but for one swapped neighbour pair (a single place decides whether they ascend). */
const list = fc
  .tuple(fc.array(id, { maxLength: 80 }), fc.constantFrom('shuffled', 'sorted', 'one swap'), fc.nat())
  .map(([ids, order, at]) => {
    if (order === 'shuffled') return ids;
    const sorted = [...new Set(ids)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    if (order === 'one swap' && sorted.length > 1) {
      const i = at % (sorted.length - 1);
      [sorted[i], sorted[i + 1]] = [sorted[i + 1]!, sorted[i]!];
    }
    return sorted;
  });

function pack(ids: readonly string[], room: number): PackedIds {
  const packed = new PackedIds(ids.length, room);
  ids.forEach((value, row) => {
    // Each id inside a larger buffer, as the decoder hands them over (a page of values).
    const bytes = Buffer.concat([Buffer.from('xx'), Buffer.from(value), Buffer.from('yy')]);
    packed.add(row, bytes, 2, bytes.length - 2);
  });
  packed.seal();
  return packed;
}

describe('PackedIds', () => {
  it('gives back every id, any slice, and whether they ascend', () => {
    fc.assert(
      fc.property(list, fc.nat(), fc.nat(), fc.integer({ min: 0, max: 64 }), (ids, a, b, room) => {
        const packed = pack(ids, room);
        ids.forEach((value, row) => expect(packed.at(row)).toBe(value));
        const [start, end] = [a % (ids.length + 1), b % (ids.length + 1)].sort((x, y) => x - y) as [number, number];
        expect(packed.slice(start, end)).toEqual(ids.slice(start, end));
        expect(packed.ascending).toBe(ids.every((v, i) => i === 0 || ids[i - 1]! < v));
      }),
      { numRuns: 400 },
    );
  });

  it('refuses rows out of order and a seal before every row is added', () => {
    const packed = new PackedIds(2, 8);
    expect(() => packed.add(1, Buffer.from('a'), 0, 1)).toThrow('index ids out of row order');
    packed.add(0, Buffer.from('a'), 0, 1);
    expect(() => packed.seal()).toThrow('index row without preprint_id');
  });
});
