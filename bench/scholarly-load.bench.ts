/**
 * Scholarly load benchmark (run: `npx vitest run --config bench/support/vitest.config.ts scholarly-load`).
 *
 * A filtered snapshot bucket of 40,000 works with arXiv ids, each citing ~12 others of them, loaded by the load
 * phase of `pksd scholarly bootstrap` into a real Neo4j 5.26 (the tests' launcher, 2 GiB heap, C1 JIT only): `Paper`
 * MERGEs, then `CITES`, in `UNWIND` batches of 500 rows. Two loads of disjoint snapshots of that shape run one after
 * the other: the first on a freshly started JVM (cold), the second on the same server once warm, as a long-running
 * database is. Figure: Paper + CITES rows per second over those two steps of each (targets: ≥ 60,000 cold, ≥ 50,000
 * warm); the derived-count step, the whole load and the CPU seconds of the client and the server too — the server's
 * CPU is where the time goes (full C2 JIT on a fresh JVM: ~30 s of it per cold load; C1 only: ~20 s).
 */
import { readFileSync } from 'node:fs';
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

const db = useNeo4j({ forThroughput: true, quickJit: true });
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pks-load-bench-'));
  await ensureGraphSchema(db.graph);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** CPU seconds (user + system) the Neo4j server has used so far, from /proc. */
function serverCpuSeconds(): number {
  const fields = readFileSync(`/proc/${db.server.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Loads a generated snapshot (disjoint per `batch`) and reports its figures; resolves to Paper + CITES rows/s. */
async function measuredLoad(label: string, batch: number): Promise<number> {
  const bucket = new LocalSnapshotBucket(path.join(dir, `bucket-${batch}`));
  const { citations } = await writeFilteredBucket(bucket, path.join(dir, 'tmp'), WORKS, REFS, batch);
  const store = new LocalObjectStore(path.join(dir, `raw-${batch}`));
  await store.start();
  const marks: { line: string; at: number }[] = [];
  const server0 = serverCpuSeconds();
  const client0 = process.cpuUsage();
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
  const client = process.cpuUsage(client0);
  const serverCpu = serverCpuSeconds() - server0;
  expect(result.papersMerged).toBe(WORKS);
  expect(result.citationsMerged).toBe(citations);
  const at = (prefix: string) => marks.find((m) => m.line.includes(prefix))!.at - t0;
  const papersMs = at('papers merged');
  const citesMs = at('citations merged') - papersMs;
  const derivedMs = at('citation counts') - papersMs - citesMs;
  const rate = (result.papersMerged + result.citationsMerged) / ((papersMs + citesMs) / 1000);
  report(
    `${label}: papers ${result.papersMerged} in ${(papersMs / 1000).toFixed(1)} s; citations ${result.citationsMerged} in ${(citesMs / 1000).toFixed(1)} s → ${Math.round(rate)} Paper + CITES rows/s; derived counts ${(derivedMs / 1000).toFixed(1)} s; whole load ${(total / 1000).toFixed(1)} s; CPU: client ${((client.user + client.system) / 1e6).toFixed(1)} s, server ${serverCpu.toFixed(1)} s`,
  );
  return rate;
}

test('load: Paper + CITES rows per second into Neo4j', async () => {
  report(`scholarly load — ${machine()}`);
  const cold = await measuredLoad('cold JVM', 0);
  const warm = await measuredLoad('warm   ', 1);
  report(`Paper + CITES, fresh JVM: ${Math.round(cold)} rows/s (${verdict(cold >= 60_000)} ≥ 60,000)`);
  report(`Paper + CITES, warm: ${Math.round(warm)} rows/s (${verdict(warm >= 50_000)} ≥ 50,000)`);
  const { records } = await db.graph.driver.executeQuery(
    'MATCH (a:Paper)-[r:CITES]->(b:Paper) RETURN count(r) AS n, count(DISTINCT [a, b]) AS pairs',
  );
  expect(Number(records[0]!.get('n'))).toBe(Number(records[0]!.get('pairs')));
  report(`peak RSS: ${mib(process.resourceUsage().maxRSS * 1024)}`);
});
