/**
 * The job-lease store (CONTRACT §21: "a paper-access job for one canonical id runs on one instance at a time (a row
 * lease renewed every 20 s, taken over 60 s after its holder stops renewing)") on a real PostgreSQL: one winner of
 * concurrent acquires, renewals, takeover after expiry, ends that free the id at once or after a cooldown, release
 * at shutdown, and the cluster's job list. The embedded SQLite database has no store: one instance, jobs in memory.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import pino from 'pino';
import { JobLeases, RENEW_MS } from '../../../src/server/access/job-lease.js';
import { PostgresJobLeaseStore } from '../../../src/server/db/job-lease-postgres.js';
import { UnavailableError } from '../../../src/shared/domain-errors.js';
import { freePort } from '../../support/free-port.js';
import type { Clock } from '../../../src/server/access/clock.js';
import { jobLeaseStoreOf, type JobLeaseClaim, type JobLeaseStore } from '../../../src/server/db/job-lease-store.js';
import { PostgresUserDatabase } from '../../../src/server/db/postgres-user-database.js';
import { SqliteUserDatabase } from '../../../src/server/db/sqlite-user-database.js';
import { usePostgres } from '../../support/postgres.js';

const postgres = usePostgres();
const silent = pino({ level: 'silent' });
const fixedClock = (at: number): Clock => ({ now: () => at, sleep: () => new Promise<void>(() => undefined) });
const LEASE = 60_000;
const T0 = 1_800_000_000_000;

const claim = (preprintId: string, holder: string, now: number, over: Partial<JobLeaseClaim> = {}): JobLeaseClaim => ({
  preprintId,
  kind: 'markdown',
  holder,
  now,
  leaseMs: LEASE,
  snapshot: { preprint_id: preprintId, state: 'queued', phase: 'fetching_pdf', by: holder },
  ...over,
});

describe('job leases on PostgreSQL', () => {
  let a: PostgresUserDatabase;
  let b: PostgresUserDatabase;
  let storeA: JobLeaseStore;
  let storeB: JobLeaseStore;
  beforeAll(async () => {
    // Two instances: two pools on one database.
    a = await PostgresUserDatabase.open(postgres.url);
    b = await PostgresUserDatabase.open(postgres.url);
    storeA = jobLeaseStoreOf(a)!;
    storeB = jobLeaseStoreOf(b)!;
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it('migration 4 is applied', async () => {
    expect(await a.schemaVersion()).toBeGreaterThanOrEqual(4);
    expect(storeA).not.toBeNull();
  });

  it('of many instances acquiring one free id at once, exactly one wins; the others get its row', async () => {
    const holders = Array.from({ length: 12 }, (_, i) => `host-${i}:${100 + i}`);
    const results = await Promise.all(
      holders.map((h, i) => (i % 2 === 0 ? storeA : storeB).acquire(claim('2501.00001v1', h, T0))),
    );
    const winners = results.filter((r) => r.won);
    expect(winners).toHaveLength(1);
    const winner = winners[0]!.row!;
    expect(winner).toEqual({
      preprintId: '2501.00001v1',
      kind: 'markdown',
      holder: winner.holder,
      leaseUntil: T0 + LEASE,
      snapshot: { preprint_id: '2501.00001v1', state: 'queued', phase: 'fetching_pdf', by: winner.holder },
      endedAt: null,
      failure: null,
      updatedAt: T0,
    });
    for (const r of results.filter((x) => !x.won)) expect(r.row).toEqual(winner);
  });

  it('a renewed lease holds; one not renewed for 60 s is taken over, and its old holder can no longer write', async () => {
    const id = '2501.00002v1';
    expect((await storeA.acquire(claim(id, 'A', T0))).won).toBe(true);
    expect(await storeA.renew(id, 'A', T0 + 20_000, LEASE)).toBe(true);
    expect(await storeB.renew(id, 'B', T0 + 20_000, LEASE)).toBe(false);
    // 60 s after the start the renewed lease (until T0 + 80 s) still holds.
    const early = await storeB.acquire(claim(id, 'B', T0 + 79_999));
    expect(early.won).toBe(false);
    expect(early.row).toMatchObject({ holder: 'A', leaseUntil: T0 + 80_000 });
    // A stops renewing: 60 s after its last renewal B takes the job over.
    const late = await storeB.acquire(claim(id, 'B', T0 + 80_000, { kind: 'pdf' }));
    expect(late.won).toBe(true);
    expect(late.row).toMatchObject({ holder: 'B', kind: 'pdf', leaseUntil: T0 + 140_000, endedAt: null });
    expect(await storeA.renew(id, 'A', T0 + 81_000, LEASE)).toBe(false);
    expect(await storeA.publish(id, 'A', 'pdf', { state: 'running' }, T0 + 81_000)).toBe(false);
    expect(await storeA.end(id, 'A', { kind: 'pdf', snapshot: {}, failure: null, freeAt: 0, now: 0 })).toBe(false);
    expect(await storeA.get(id)).toMatchObject({ holder: 'B', snapshot: { by: 'B' } });
  });

  it('the holder publishes its snapshot and kind; other instances read it', async () => {
    const id = '2501.00003v1';
    await storeA.acquire(claim(id, 'A', T0, { kind: 'pdf' }));
    const running = { preprint_id: id, state: 'running', phase: 'fetching_pdf', fetch: { bytes_received: 1048576 } };
    expect(await storeA.publish(id, 'A', 'markdown', running, T0 + 1_500)).toBe(true);
    expect(await storeB.get(id)).toMatchObject({ kind: 'markdown', snapshot: running, updatedAt: T0 + 1_500 });
  });

  it('a success frees the id at once; a failure keeps it until its cooldown ends and tells how it failed', async () => {
    const ok = '2501.00004v1';
    await storeA.acquire(claim(ok, 'A', T0));
    const cached = { preprint_id: ok, state: 'cached', phase: 'ready', markdown_url: `/api/papers/${ok}/markdown` };
    expect(
      await storeA.end(ok, 'A', {
        kind: 'markdown',
        snapshot: cached,
        failure: null,
        freeAt: T0 + 5_000,
        now: T0 + 5_000,
      }),
    ).toBe(true);
    expect(await storeB.get(ok)).toMatchObject({ snapshot: cached, endedAt: T0 + 5_000, failure: null });
    expect(await storeA.renew(ok, 'A', T0 + 6_000, LEASE)).toBe(false);
    expect((await storeB.acquire(claim(ok, 'B', T0 + 5_000))).won).toBe(true);

    const bad = '2501.00005v1';
    await storeA.acquire(claim(bad, 'A', T0));
    const failure = {
      kind: 'fatal',
      stage: 'fetch',
      detail: 'arXiv has no paper 2501.00005v1 (HTTP 404)',
      notFound: true,
    } as const;
    const failed = {
      preprint_id: bad,
      state: 'failed',
      phase: 'error_fetching',
      kind: 'fatal',
      detail: failure.detail,
    };
    await storeA.end(bad, 'A', { kind: 'pdf', snapshot: failed, failure, freeAt: T0 + 65_000, now: T0 + 5_000 });
    const cooling = await storeB.acquire(claim(bad, 'B', T0 + 64_999));
    expect(cooling).toEqual({
      won: false,
      row: {
        preprintId: bad,
        kind: 'pdf',
        holder: 'A',
        leaseUntil: T0 + 65_000,
        snapshot: failed,
        endedAt: T0 + 5_000,
        failure,
        updatedAt: T0 + 5_000,
      },
    });
    const next = await storeB.acquire(claim(bad, 'B', T0 + 65_000));
    expect(next.won).toBe(true);
    expect(next.row).toMatchObject({ holder: 'B', endedAt: null, failure: null });
  });

  it('a release (shutdown) frees the id at once; a restarted instance keeping its id takes its own row back', async () => {
    const id = '2501.00006v1';
    await storeA.acquire(claim(id, 'A', T0));
    expect(await storeA.release(id, 'A', T0 + 1_000)).toBe(true);
    expect(await storeA.renew(id, 'A', T0 + 2_000, LEASE)).toBe(false);
    expect((await storeB.acquire(claim(id, 'B', T0 + 1_000))).won).toBe(true);

    const own = '2501.00007v1';
    await storeA.acquire(claim(own, 'A', T0));
    expect((await storeB.acquire(claim(own, 'A', T0 + 1_000))).won).toBe(true);
  });

  it("a failure's cooldown holds for its own holder too: restarted under the same id, it answers the failure", async () => {
    const id = '2501.00008v1';
    const failure = {
      kind: 'daily_limit' as const,
      stage: 'convert' as const,
      detail: 'parser quota',
      notFound: false,
    };
    await storeA.acquire(claim(id, 'A', T0));
    await storeA.end(id, 'A', { kind: 'markdown', snapshot: {}, failure, freeAt: T0 + 3_600_000, now: T0 + 1_000 });
    // A restarted: a new pool and a fresh JobLeases under the same SVC_INSTANCE_ID.
    const restarted = await PostgresUserDatabase.open(postgres.url);
    try {
      const store = jobLeaseStoreOf(restarted)!;
      const refused = await store.acquire(claim(id, 'A', T0 + 2_000));
      expect(refused).toMatchObject({ won: false, row: { holder: 'A', failure, leaseUntil: T0 + 3_600_000 } });
      const leases = new JobLeases({ store, holder: 'A', clock: fixedClock(T0 + 2_000), logger: silent });
      expect(await leases.elsewhere(id)).toMatchObject({ holder: 'A', failure });
      expect((await leases.elsewhereAll([id])).get(id)).toMatchObject({ failure });
      // Once the cooldown ended, the id is free again — for A as for anyone.
      expect((await store.acquire(claim(id, 'A', T0 + 3_600_000))).won).toBe(true);
    } finally {
      await restarted.close();
    }
  });

  it('U+0000 in a snapshot or failure detail (JSONB cannot hold it) is stored as U+FFFD, not refused', async () => {
    const id = '2501.00009v1';
    const snapshot = { preprint_id: id, detail: 'bad \u0000 byte' };
    expect((await storeA.acquire(claim(id, 'A', T0, { snapshot }))).won).toBe(true);
    expect(await storeA.publish(id, 'A', 'pdf', { detail: 'x\u0000y' }, T0 + 1)).toBe(true);
    expect((await storeB.get(id))?.snapshot).toEqual({ detail: 'x\uFFFDy' });
    const failure = { kind: 'fatal' as const, stage: 'fetch' as const, detail: 'arXiv said \u0000', notFound: false };
    expect(await storeA.end(id, 'A', { kind: 'pdf', snapshot, failure, freeAt: T0 + 60_000, now: T0 + 2 })).toBe(true);
    expect(await storeB.get(id)).toMatchObject({
      snapshot: { preprint_id: id, detail: 'bad \uFFFD byte' },
      failure: { detail: 'arXiv said \uFFFD' },
    });
  });

  it('lists rows written since a time, newest first, bounded; prunes old rows whose lease is over', async () => {
    const c = await PostgresUserDatabase.open(await postgres.newDatabase());
    try {
      const store = jobLeaseStoreOf(c)!;
      for (let i = 0; i < 5; i++) await store.acquire(claim(`2502.0000${i}v1`, 'A', T0 + i * 1_000));
      expect((await store.list(T0 + 2_000, 10)).map((r) => r.preprintId)).toEqual([
        '2502.00004v1',
        '2502.00003v1',
        '2502.00002v1',
      ]);
      expect(await store.list(T0, 2)).toHaveLength(2);
      // Rows of T0 and T0 + 1 s: leases until T0 + 60 s and 61 s.
      expect(await store.prune(T0 + 60_500)).toBe(1);
      expect((await store.list(0, 10)).map((r) => r.preprintId)).not.toContain('2502.00000v1');
      expect(await store.get('2502.00001v1')).not.toBeNull();
    } finally {
      await c.close();
    }
  });
});

describe('the job records as the service reads them (JobLeases)', () => {
  it('reads never prune; acquires prune old rows at most once per renewal period', async () => {
    const db = await PostgresUserDatabase.open(await postgres.newDatabase());
    try {
      const store = jobLeaseStoreOf(db)!;
      const prune = vi.spyOn(store, 'prune');
      let now = T0;
      const clock: Clock = { now: () => now, sleep: () => new Promise<void>(() => undefined) };
      const leases = new JobLeases({ store, holder: 'A', clock, logger: silent });
      for (let i = 0; i < 3; i++) await leases.listed(now - 3_600_000, 50);
      expect(prune).not.toHaveBeenCalled();
      const view = () => ({ kind: 'pdf' as const, snapshot: {} });
      const held = [];
      for (const id of ['2503.00001v1', '2503.00002v1']) held.push(await leases.acquire(id, view));
      expect(prune).toHaveBeenCalledTimes(1);
      now += RENEW_MS;
      held.push(await leases.acquire('2503.00003v1', view));
      expect(prune).toHaveBeenCalledTimes(2);
      for (const claim of held) await claim.lease?.release();
    } finally {
      await db.close();
    }
  });

  it('a database that cannot answer a read → 503 naming the job records, not a 500', async () => {
    const pool = new pg.Pool({
      connectionString: `postgres://x@127.0.0.1:${await freePort()}/x`,
      connectionTimeoutMillis: 2000,
    });
    pool.on('error', () => undefined);
    try {
      const leases = new JobLeases({
        store: new PostgresJobLeaseStore(pool),
        holder: 'A',
        clock: fixedClock(T0),
        logger: silent,
      });
      const reads = [
        () => leases.elsewhere('2503.00001v1'),
        () => leases.elsewhereAll(['2503.00001v1']),
        () => leases.listed(T0 - 3_600_000, 50),
      ];
      for (const read of reads) {
        const err = await read().then(
          () => null,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(UnavailableError);
        expect((err as Error).message).toBe(
          'paper-access job records unavailable (database unreachable); retry shortly',
        );
      }
    } finally {
      await pool.end();
    }
  });
});

describe('job leases on SQLite', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'pks-lease-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('the embedded database has no job-lease store: its one instance keeps jobs in memory', async () => {
    const db = new SqliteUserDatabase(path.join(dir, 'pb_data'));
    try {
      expect(jobLeaseStoreOf(db)).toBeNull();
      expect(await db.schemaVersion()).toBeGreaterThanOrEqual(4);
    } finally {
      await db.close();
    }
  });
});
