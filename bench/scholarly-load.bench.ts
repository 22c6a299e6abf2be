/**
 * Scholarly load benchmark (run: `npx vitest run --config bench/support/vitest.config.ts scholarly-load`).
 *
 * A filtered snapshot bucket of 40,000 works with arXiv ids, each citing ~12 others of them, loaded by the load
 * phase of `pksd scholarly bootstrap` into a real Neo4j 5.26 (the tests' launcher, 2 GiB heap, full JIT): `Paper` MERGEs, then `CITES`
 * MERGEs, in `UNWIND` batches of 500 rows. Figure: Paper + CITES rows per second over those two steps (target
 * ≥ 50,000); the derived-count step and the whole load are printed too.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ensureGraphSchema } from '../src/server/graph/constraints.js';
import { LocalSnapshotBucket } from '../src/server/scholarly/bucket.js';
import { loadSnapshot } from '../src/server/scholarly/load.js';
import { LocalObjectStore } from '../src/server/storage/local-store.js';
import { useNeo4j } from '../test/support/neo4j.js';
import { writeFilteredBucket } from './support/scholarly-gen.js';
import { machine, mib, report, verdict } from './support/papers-util.js';

const WORKS = 40_000;
const REFS = 12;

const db = useNeo4j({ forThroughput: true });
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pks-load-bench-'));
  await ensureGraphSchema(db.graph);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('load: Paper + CITES rows per second into Neo4j', async () => {
  report(`scholarly load — ${machine()}`);
  const bucket = new LocalSnapshotBucket(path.join(dir, 'bucket'));
  const { citations } = await writeFilteredBucket(bucket, path.join(dir, 'tmp'), WORKS, REFS);
  const store = new LocalObjectStore(path.join(dir, 'raw'));
  await store.start();
  const marks: { line: string; at: number }[] = [];
  const t0 = performance.now();
  const result = await loadSnapshot({
    bucket,
    graph: db.graph,
    store,
    logger: pino({ level: 'silent' }),
    progress: (line) => marks.push({ line, at: performance.now() }),
    dryRun: false,
  });
  const total = performance.now() - t0;
  expect(result.papersMerged).toBe(WORKS);
  expect(result.citationsMerged).toBe(citations);
  const at = (prefix: string) => marks.find((m) => m.line.includes(prefix))!.at - t0;
  const papersMs = at('papers merged');
  const citesMs = at('citations merged') - papersMs;
  const derivedMs = at('citation counts') - papersMs - citesMs;
  const rows = result.papersMerged + result.citationsMerged;
  const rate = rows / ((papersMs + citesMs) / 1000);
  report(
    `papers: ${result.papersMerged} in ${(papersMs / 1000).toFixed(1)} s; citations: ${result.citationsMerged} in ${(citesMs / 1000).toFixed(1)} s`,
  );
  report(`Paper + CITES: ${Math.round(rate)} rows/s (${verdict(rate >= 50_000)} ≥ 50,000)`);
  report(`derived counts: ${(derivedMs / 1000).toFixed(1)} s; whole load ${(total / 1000).toFixed(1)} s`);
  const { records } = await db.graph.driver.executeQuery('MATCH ()-[r:CITES]->() RETURN count(r) AS n');
  expect(Number(records[0]!.get('n'))).toBe(citations);
  report(`peak RSS: ${mib(process.resourceUsage().maxRSS * 1024)}`);
});
