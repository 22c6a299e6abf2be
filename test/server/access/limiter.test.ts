/**
 * CONTRACT §11.5 rate limiter: one token bucket (float rate, burst 2) shared by PDF downloads and abstract
 * lookups; every HTTP request that leaves takes a token, retries and redirects included. Driven on a virtual
 * clock against the arXiv double: at the defaults at most ⌊2 + 60 × 0.33⌋ = 21 requests leave in any 60 s
 * window; at SVC_PREPRINT_FETCH_RPS=1 at most 62. The bucket is kept in the user database as pksd keeps it
 * (SQLite, or PostgreSQL with PKS_TEST_USER_DB=postgres; §21).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PreprintFetcher } from '../../../src/server/access/preprint-fetcher.js';
import { TokenBucket } from '../../../src/server/access/token-bucket.js';
import { PostgresUserDatabase } from '../../../src/server/db/postgres-user-database.js';
import { SqliteUserDatabase } from '../../../src/server/db/sqlite-user-database.js';
import type { UserDatabase } from '../../../src/server/db/user-database.js';
import { parsePreprintId, parseVersionedId } from '../../../src/shared/ids.js';
import { Stager } from '../../../src/server/papers/staging.js';
import { fakePdf, startArxivDouble, type ArxivDouble } from '../../support/upstreams/arxiv.js';
import { TEST_USER_DB, userDbEnv } from '../../support/user-db.js';
import { until, VirtualClock } from './support/clocks.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pks-limiter-'));
});
const databases: UserDatabase[] = [];
afterAll(async () => {
  for (const db of databases.splice(0)) await db.close();
  await rm(dir, { recursive: true, force: true });
});

/** A fresh user database of the run's backend: each bucket starts full. */
async function userDatabase(): Promise<UserDatabase> {
  const dbDir = path.join(dir, `pb_data-${databases.length}`);
  const env = await userDbEnv(dbDir);
  const db =
    TEST_USER_DB === 'postgres' ? await PostgresUserDatabase.open(env['SVC_DB_URL']!) : new SqliteUserDatabase(dbDir);
  databases.push(db);
  return db;
}

/** The most requests whose arrival times fall into any window of `windowMs` (inclusive ends). */
function maxInWindow(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  let lo = 0;
  for (let hi = 0; hi < sorted.length; hi++) {
    while (sorted[hi]! - sorted[lo]! > windowMs) lo++;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}

interface Scenario {
  readonly rps: number;
  readonly downloads: number;
  readonly lookups: number;
}

/**
 * Runs `downloads` PDF downloads (each answered 503, then 429, then redirected, then served: 4 requests) and
 * `lookups` abstract lookups concurrently on the virtual clock; returns the arrival times of every request.
 */
async function run(scenario: Scenario): Promise<{ times: number[]; requests: number }> {
  const clock = new VirtualClock();
  const arxiv: ArxivDouble = await startArxivDouble({ now: () => clock.now() });
  try {
    const limiter = new TokenBucket(scenario.rps, 2, clock, (await userDatabase()).buckets);
    const stager = new Stager(path.join(dir, 'tmp'));
    const fetcher = new PreprintFetcher({
      baseUrl: arxiv.baseUrl,
      mailto: 'team@example.org',
      limiter,
      clock,
      stager: { stageDownload: (source, limit, kind) => stager.stage(source, limit, kind) },
    });
    const ids = Array.from({ length: scenario.downloads }, (_, i) => `2501.${String(i + 1).padStart(5, '0')}`);
    for (const id of ids) arxiv.papers.set(id, { latestVersion: 1, pdfs: new Map([[1, fakePdf(id)]]) });
    for (let i = 0; i < scenario.downloads; i++) {
      arxiv.answerNext('pdf', { status: 503, headers: { 'retry-after': '1' } }, { status: 429 });
    }
    arxiv.redirectPdfs = true;
    let finished = 0;
    const work = [
      ...ids.map((id) =>
        fetcher.downloadPdf(parseVersionedId(`${id}v1`)!, () => undefined).then((staged) => staged.remove()),
      ),
      ...Array.from({ length: scenario.lookups }, (_, i) =>
        fetcher.latestVersion(parsePreprintId(ids[i % ids.length]!)!),
      ),
    ].map((p) => p.finally(() => finished++));
    const actors = work.length;
    // Discrete-event loop: once every actor waits (for a token, in a backoff, or is done) and the bucket's pump
    // is asleep, jump to the next wake-up.
    while (finished < actors) {
      await until('the actors to wait', () => {
        const pumpAsleep = limiter.waiting > 0 ? 1 : 0;
        return limiter.waiting + (clock.sleeping - pumpAsleep) + finished === actors;
      });
      if (finished === actors) break;
      clock.advanceToNext();
    }
    await Promise.all(work);
    return { times: arxiv.requests.map((r) => r.at), requests: arxiv.requests.length };
  } finally {
    await arxiv.close();
  }
}

describe('preprint rate limiter (virtual clock, retries and redirects counted)', () => {
  it('at the default 0.33/s, burst 2: at most 21 requests in any 60 s window', async () => {
    const { times, requests } = await run({ rps: 0.33, downloads: 12, lookups: 6 });
    expect(requests).toBe(12 * 4 + 6);
    expect(maxInWindow(times, 60_000)).toBe(21);
  }, 120_000);

  it('at SVC_PREPRINT_FETCH_RPS=1: at most 62 requests in any 60 s window', async () => {
    const { times, requests } = await run({ rps: 1, downloads: 30, lookups: 10 });
    expect(requests).toBe(30 * 4 + 10);
    expect(maxInWindow(times, 60_000)).toBe(62);
  }, 120_000);

  it('the bucket starts full with 2 tokens and refills at the float rate', async () => {
    const clock = new VirtualClock();
    const bucket = new TokenBucket(0.33, 2, clock, (await userDatabase()).buckets);
    const granted: number[] = [];
    const takes = Array.from({ length: 4 }, () => bucket.take().then(() => granted.push(clock.now() - start)));
    const start = clock.now();
    await until('the burst', () => granted.length === 2);
    while (granted.length < 4) {
      await until('the pump to sleep', () => clock.sleeping === 1 || granted.length === 4);
      clock.advanceToNext();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(takes);
    expect(granted).toEqual([0, 0, 3031, 6061]);
  });
});
