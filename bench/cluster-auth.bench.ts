/**
 * Cluster-mode authentication benchmark (issue 24; run: `npx vitest run --config bench/support/vitest.config.ts
 * cluster-auth`; see bench/README.md).
 *
 * PAT-authenticated `GET /api/pages/{id}` on a real in-process pksd whose user database is PostgreSQL
 * (`SVC_DB_URL`, the PAT verify cache invalidated by LISTEN/NOTIFY, CONTRACT §21) against the same server on the
 * embedded SQLite, in the same run, alternating rounds: target throughput ratio PostgreSQL/SQLite ≥ 0.9 (a cached
 * verify costs no database round trip on either). Prints the figures; the target is reported, not asserted.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createDatabase, runCluster } from '../test/support/postgres.js';
import { openTestIdentity, startTestServer, testPat, type TestServer } from '../test/support/server.js';
import { generateWiki, type GeneratedWiki } from '../test/wiki/generate.js';
import { runLoad, type LoadResult } from './support/load.js';
import { machine, report, verdict } from './support/papers-util.js';

const PAGES = 500;
const LOAD = { concurrency: 32, maxRequests: 40_000, maxMs: 6_000 };
const ROUNDS = 3;
const TARGET = 0.9;

let base: string;
let generated: GeneratedWiki;
const ms = (v: number) => `${v.toFixed(2)} ms`;

beforeAll(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), 'pks-cluster-auth-bench-'));
  generated = await generateWiki(path.join(base, 'wiki'), PAGES);
  report(`${PAGES}-page wiki; ${machine()}`);
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

/** A pksd serving the wiki, and a user PAT (`wiki:read`) minted in its user database. */
async function server(env: Record<string, string>): Promise<{ server: TestServer; pat: string }> {
  const srv = await startTestServer({ SVC_WIKI_DIR: generated.dir, SVC_LOG_LEVEL: 'error', ...env });
  const identity = await openTestIdentity(srv.config);
  try {
    return { server: srv, pat: await testPat(identity, 'alice', ['wiki:read'], 'bench') };
  } finally {
    await identity.close();
  }
}

test('PAT-authenticated GET /api/pages/{id}: user database on PostgreSQL vs SQLite', async () => {
  const pgUrl = await createDatabase(await runCluster());
  const postgres = await server({ SVC_DB_URL: pgUrl });
  const sqlite = await server({});
  try {
    const ids = Array.from({ length: 1_000 }, (_, i) => generated.ids[(i * 104729) % generated.ids.length]!);
    const load = (s: { server: TestServer; pat: string }, options = LOAD) =>
      runLoad({
        urls: ids.map((id) => `${s.server.url}/api/pages/${encodeURIComponent(id)}`),
        headers: { Authorization: `Bearer ${s.pat}` },
        ...options,
      });
    const show = (name: string, r: LoadResult) =>
      report(
        `  ${name}: ${r.rps.toFixed(0)} req/s (${r.requests} requests in ${(r.elapsedMs / 1000).toFixed(1)} s, ` +
          `p50 ${ms(r.p50Ms)}, p99 ${ms(r.p99Ms)}, errors ${r.errors}, non-2xx ${r.non2xx})`,
      );
    // Warm-up both (JIT, connection pools, the verify caches).
    const warm = { concurrency: 8, maxRequests: 2_000, maxMs: 3_000 };
    await load(postgres, warm);
    await load(sqlite, warm);
    let best: { postgres: LoadResult | null; sqlite: LoadResult | null } = { postgres: null, sqlite: null };
    for (let round = 1; round <= ROUNDS; round++) {
      report(
        `round ${round} (concurrency ${LOAD.concurrency}, ≤ ${LOAD.maxRequests} requests, ≤ ${LOAD.maxMs / 1000} s):`,
      );
      const s = await load(sqlite);
      show('user database SQLite    ', s);
      const p = await load(postgres);
      show('user database PostgreSQL', p);
      for (const r of [s, p]) expect(r.errors + r.non2xx).toBe(0);
      best = {
        postgres: !best.postgres || p.rps > best.postgres.rps ? p : best.postgres,
        sqlite: !best.sqlite || s.rps > best.sqlite.rps ? s : best.sqlite,
      };
    }
    const ratio = best.postgres!.rps / best.sqlite!.rps;
    report(
      `throughput ratio PostgreSQL/SQLite (best of ${ROUNDS}): ${ratio.toFixed(2)} (${verdict(ratio >= TARGET)} ≥ ${TARGET})`,
    );
  } finally {
    await postgres.server.close();
    await sqlite.server.close();
  }
});
