/**
 * `neo4jDriver()` (graph/neo4j-lib.ts) loads neo4j-driver on first use; the graph code's helpers must then work on
 * the values of the driver that `driver.ts` imports: the same loaded package, not a second copy of it.
 */
import neo4j from 'neo4j-driver';
import { expect, it } from 'vitest';
import { neo4jDriver } from '../../../src/server/graph/neo4j-lib.js';

it('gives the functions and constants of the package the ESM import gives, loaded once', () => {
  const lib = neo4jDriver();
  expect(neo4jDriver()).toBe(lib);
  for (const name of [
    'int',
    'isInt',
    'isNode',
    'isRelationship',
    'isPath',
    'isPoint',
    'isDate',
    'isDuration',
  ] as const) {
    expect(lib[name]).toBe(neo4j[name]);
  }
  expect(lib.session).toBe(neo4j.session);
  expect(lib.isInt(neo4j.int(5))).toBe(true);
});
