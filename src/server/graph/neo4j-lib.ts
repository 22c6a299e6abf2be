/**
 * neo4j-driver, loaded on first use: a server without a graph never loads it (with RxJS ~400 modules: ~70 ms of CPU
 * and ~3 MiB at start, docs/decisions.md "H13-FLOOR"). Its callers hold a graph client or a value the driver returned,
 * so `driver.ts` has loaded it by then and this is the module cache's copy (a CommonJS package: the object that
 * `import neo4j from 'neo4j-driver'` gives too).
 */
import { createRequire } from 'node:module';
import type * as Neo4j from 'neo4j-driver';

export type Neo4jDriver = typeof Neo4j;

let loaded: Neo4jDriver | undefined;

/** The neo4j-driver package. */
export function neo4jDriver(): Neo4jDriver {
  return (loaded ??= createRequire(import.meta.url)('neo4j-driver') as Neo4jDriver);
}
