/**
 * The reference lists the load keeps from its first pass: every list back in order with exact ids (up to 2^53),
 * and nothing kept once the budget is exceeded.
 */
import { describe, expect, it } from 'vitest';
import { ReferenceLists } from '../../../src/server/scholarly/reference-lists.js';

const listsOf = (lists: ReferenceLists) => [...lists].map(({ work, refs }) => [work, [...refs]]);

describe('ReferenceLists', () => {
  it('gives back every list in the order added, empty ones too, across growth', () => {
    const lists = new ReferenceLists(10_000);
    const expected: [number, number[]][] = [];
    for (let w = 0; w < 300; w++) {
      const refs = Array.from({ length: w % 7 }, (_, k) => 4_000_000_000 + w * 10 + k);
      lists.add(w, refs);
      expected.push([w, refs]);
    }
    lists.add(300, [2 ** 53 - 1]);
    expected.push([300, [2 ** 53 - 1]]);
    expect(lists.complete).toBe(true);
    expect(listsOf(lists)).toEqual(expected);
  });

  it('holds exactly the budget; one reference more drops every list', () => {
    const lists = new ReferenceLists(5);
    lists.add(1, [10, 11, 12]);
    lists.add(2, [20, 21]);
    expect(lists.complete).toBe(true);
    expect(listsOf(lists)).toEqual([
      [1, [10, 11, 12]],
      [2, [20, 21]],
    ]);
    lists.add(3, [30]);
    lists.add(4, []);
    expect(lists.complete).toBe(false);
    expect(listsOf(lists)).toEqual([]);
  });
});
