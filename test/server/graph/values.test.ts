/**
 * Integers in the JSON encoding of graph values (CONTRACT §14): a number when safe, else its decimal string. The
 * encoder decides "safe" from the nearest double instead of the driver's slow `inSafeRange()`; this compares the two
 * over the whole 64-bit range, and pins the boundaries literally.
 */
import fc from 'fast-check';
import neo4j from 'neo4j-driver';
import { describe, expect, it } from 'vitest';
import { encodeValue } from '../../../src/server/graph/values.js';

/** The rule as the driver's API states it. */
const reference = (text: string): number | string => {
  const int = neo4j.int(text);
  return int.inSafeRange() ? int.toNumber() : int.toString();
};

describe('Integer encoding', () => {
  it.each([
    ['0', 0],
    ['-1', -1],
    ['9007199254740991', 9007199254740991],
    ['-9007199254740991', -9007199254740991],
    ['9007199254740992', '9007199254740992'],
    ['-9007199254740992', '-9007199254740992'],
    ['9007199254740993', '9007199254740993'],
    ['9223372036854775807', '9223372036854775807'],
    ['-9223372036854775808', '-9223372036854775808'],
  ])('%s → %j', (text, expected) => {
    expect(encodeValue(neo4j.int(text))).toBe(expected);
  });

  it('matches inSafeRange() ? toNumber() : toString() for every 64-bit integer', () => {
    const near = (edge: bigint) => fc.bigInt({ min: edge - 4096n, max: edge + 4096n });
    const int64 = fc.oneof(
      fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
      near(2n ** 53n),
      near(-(2n ** 53n)),
      fc.bigInt({ min: -(2n ** 63n), max: -(2n ** 63n) + 4096n }),
      fc.bigInt({ min: 2n ** 63n - 4097n, max: 2n ** 63n - 1n }),
    );
    fc.assert(
      fc.property(int64, (value) => {
        expect(encodeValue(neo4j.int(value.toString()))).toBe(reference(value.toString()));
      }),
      { numRuns: 2000 },
    );
  });
});
