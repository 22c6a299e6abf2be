/**
 * The ingest task-store port (CONTRACT §10.6, §21): one contract suite run on the file adapter (the embedded
 * server) and on the PostgreSQL adapter (cluster mode), then what only a shared database shows — a task of instance
 * A answered by instance B, and a starting or sweeping instance B cancelling A's task only once A's lease ran out.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { PostgresTaskStore, TASK_LEASE } from '../../../src/server/db/postgres-task-store.js';
import { PostgresUserDatabase } from '../../../src/server/db/postgres-user-database.js';
import { pendingStep, type TaskDocument, type TaskStatus } from '../../../src/server/ingest/task.js';
import type { IngestTaskStore } from '../../../src/server/ingest/task-store-port.js';
import { TaskStore } from '../../../src/server/ingest/task-store.js';
import { usePostgres } from '../../support/postgres.js';
import { DEFAULT_OPTIONS } from './support/options.js';

const logger = pino({ level: 'silent' });
const T0 = Date.parse('2026-05-01T12:00:00Z');
const RESTARTED = 'server restarted before the task finished; use continue';

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

function task(id: string, submittedAt: number, status: TaskStatus = 'queued'): TaskDocument {
  return {
    task_id: id,
    preprint_id: '2501.00010v1',
    status,
    message: `ingest queued; poll GET /api/ingest/${id}`,
    requester: 'alice',
    options: DEFAULT_OPTIONS,
    steps: { fetch: pendingStep(true), parse: pendingStep(true) },
    submitted_at: iso(submittedAt),
    started_at: null,
    finished_at: status === 'queued' || status === 'running' ? null : iso(submittedAt),
    updated_at: iso(submittedAt),
  };
}

/** The task as a running fetch step leaves it. */
function running(doc: TaskDocument): TaskDocument {
  doc.status = 'running';
  doc.started_at = doc.submitted_at;
  doc.steps.fetch = { ...doc.steps.fetch, status: 'running', message: 'running', started_at: doc.submitted_at };
  return doc;
}

const postgres = usePostgres();
const dirs: string[] = [];
const databases: PostgresUserDatabase[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
  for (const db of databases) await db.close();
});

interface Backend {
  /** A store on this test's storage, as a (re)started process of one instance opens it (`open()` not yet called). */
  store(now: () => number): IngestTaskStore;
}

const backends: [string, () => Promise<Backend>][] = [
  [
    'file',
    async () => {
      const dir = await mkdtemp(path.join(os.tmpdir(), 'pks-ingest-store-'));
      dirs.push(dir);
      return { store: (now) => new TaskStore(path.join(dir, 'ingests'), logger, now) };
    },
  ],
  [
    'postgres',
    async () => {
      const db = await PostgresUserDatabase.open(await postgres.newDatabase());
      databases.push(db);
      return { store: (now) => new PostgresTaskStore(db.pool, 'host-a:100', logger, now) };
    },
  ],
];

describe.each(backends)('ingest task store contract (%s)', (_name, make) => {
  let backend: Backend;
  let now: number;
  const clock = () => now;
  const opened: IngestTaskStore[] = [];
  const open = async (): Promise<IngestTaskStore> => {
    const store = backend.store(clock);
    await store.open();
    opened.push(store);
    return store;
  };
  beforeEach(async () => {
    backend = await make();
    now = T0;
  });
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
  });

  it('new ids are 8 hex chars; a task added is read back; the list is newest first with the total and a limit', async () => {
    const store = await open();
    expect(await store.list(50)).toEqual({ total: 0, tasks: [] });
    const ids = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const id = await store.newId();
      expect(id).toMatch(/^[0-9a-f]{8}$/);
      expect(ids.has(id)).toBe(false);
      ids.add(id);
      await store.add(task(id, T0 + (i % 3) * 1000, 'succeeded'));
    }
    const [first] = ids;
    expect(await store.get(first!)).toEqual(task(first!, T0, 'succeeded'));
    expect(await store.get('deadbeef')).toBeUndefined();
    const all = await store.list(500);
    expect(all.total).toBe(5);
    const order = all.tasks.map((t) => `${t.submitted_at} ${t.task_id}`);
    expect(order).toEqual([...order].sort().reverse());
    expect(await store.list(2)).toEqual({ total: 5, tasks: all.tasks.slice(0, 2) });
  });

  it('a status change is written at once: a restarted process reads it back', async () => {
    const store = await open();
    const doc = task('00000001', T0);
    await store.add(doc);
    running(doc);
    await store.save(doc);
    doc.status = 'succeeded';
    doc.message = 'ingest succeeded (fetch, parse)';
    await store.save(doc);
    const again = await open();
    expect(await again.get('00000001')).toEqual(doc);
  });

  it('progress changes within a second are one write, holding the last change; a status change cuts the wait', async () => {
    const store = await open();
    const persist = vi.spyOn(store as unknown as { persist(d: TaskDocument): Promise<void> }, 'persist');
    const doc = running(task('00000002', T0));
    await store.add(doc);
    for (let n = 1; n <= 20; n++) {
      doc.steps.fetch.progress = { phase: 'download', n };
      store.progress(doc);
    }
    expect(persist).toHaveBeenCalledTimes(1);
    await expect.poll(() => persist.mock.calls.length).toBe(2);
    expect(persist.mock.calls[1]![0].steps.fetch.progress).toEqual({ phase: 'download', n: 20 });
    // A progress write waiting for its second, then a status change: written at once, the waiting write dropped.
    doc.steps.fetch.progress = { phase: 'download', n: 21 };
    store.progress(doc);
    doc.steps.fetch.status = 'succeeded';
    await store.save(doc);
    expect(persist).toHaveBeenCalledTimes(3);
    expect(persist.mock.calls[2]![0].steps.fetch).toMatchObject({ status: 'succeeded', progress: { n: 21 } });
    const fresh = await open();
    expect((await fresh.get('00000002'))?.steps.fetch.status).toBe('succeeded');
  });

  it('a restarted process cancels the tasks it left unfinished (the running step fails); finished ones stay', async () => {
    const crashed = await open();
    const queued = task('0000000a', T0);
    const run = running(task('0000000b', T0 + 1000));
    const done = task('0000000c', T0 + 2000, 'failed');
    for (const doc of [queued, run, done]) await crashed.add(doc);
    now = T0 + 5000;
    const restarted = await open();
    const at = iso(T0 + 5000);
    expect(await restarted.get('0000000a')).toMatchObject({ status: 'cancelled', message: RESTARTED, finished_at: at });
    expect(await restarted.get('0000000b')).toMatchObject({
      status: 'cancelled',
      message: RESTARTED,
      steps: {
        fetch: {
          status: 'failed',
          error: 'server stopped while the step ran',
          message: 'interrupted',
          finished_at: at,
        },
        parse: { status: 'pending' },
      },
    });
    expect(await restarted.get('0000000c')).toEqual(done);
  });

  it('close cancels the unfinished tasks; nothing is written after it; remove forgets a task', async () => {
    const store = await open();
    const doc = running(task('00000003', T0));
    await store.add(doc);
    const gone = task('00000004', T0);
    await store.add(gone);
    await store.remove('00000004');
    expect(await store.get('00000004')).toBeUndefined();
    await store.close();
    expect(doc.status).toBe('cancelled');
    doc.status = 'succeeded';
    await store.save(doc);
    store.progress(doc);
    const fresh = await open();
    expect(await fresh.get('00000003')).toMatchObject({ status: 'cancelled', message: RESTARTED });
    expect(await fresh.get('00000004')).toBeUndefined();
    expect((await fresh.list(10)).total).toBe(1);
  });

  it('a start keeps the newest 1000 tasks', async () => {
    const store = await open();
    for (let i = 0; i < 1003; i++) {
      await store.add(task(i.toString(16).padStart(8, '0'), T0 + i * 1000, 'succeeded'));
    }
    const fresh = await open();
    const { total, tasks } = await fresh.list(500);
    expect(total).toBe(1000);
    expect(tasks[0]!.task_id).toBe((1002).toString(16).padStart(8, '0'));
    for (const oldest of ['00000000', '00000001', '00000002']) expect(await fresh.get(oldest)).toBeUndefined();
    expect(await fresh.get('00000003')).toBeDefined();
  });
});

describe('PostgreSQL: tasks shared by two instances (§21)', () => {
  let url: string;
  let dbA: PostgresUserDatabase;
  let dbB: PostgresUserDatabase;
  let nowA: number;
  let nowB: number;
  const stores: PostgresTaskStore[] = [];
  const instance = async (db: PostgresUserDatabase, id: string, clock: () => number) => {
    const store = new PostgresTaskStore(db.pool, id, logger, clock);
    await store.open();
    stores.push(store);
    return store;
  };
  /** Instance A's running task `id`, and instance B with its clock where A's lease ran out (A renewed nothing). */
  const leftRunningByA = async (id: string) => {
    const a = await instance(dbA, 'host-a:1', () => nowA);
    await a.add(running(task(id, T0)));
    const b = await instance(dbB, 'host-b:2', () => nowB);
    nowB = T0 + TASK_LEASE.leaseMs;
    return b;
  };
  beforeAll(async () => {
    url = await postgres.newDatabase();
    dbA = await PostgresUserDatabase.open(url);
    dbB = await PostgresUserDatabase.open(url);
  });
  afterAll(async () => {
    await dbA.close();
    await dbB.close();
  });
  beforeEach(async () => {
    await dbA.pool.query('DELETE FROM ingest_tasks');
    nowA = T0;
    nowB = T0;
  });
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
  });

  it("a task created on A is answered by B, with its status and in B's list", async () => {
    const a = await instance(dbA, 'host-a:1', () => nowA);
    const b = await instance(dbB, 'host-b:2', () => nowB);
    const doc = task(await a.newId(), T0);
    await a.add(doc);
    expect(await b.get(doc.task_id)).toMatchObject({ task_id: doc.task_id, status: 'queued' });
    running(doc);
    await a.save(doc);
    expect(await b.get(doc.task_id)).toEqual(doc);
    expect(await b.list(50)).toEqual({ total: 1, tasks: [doc] });
    doc.status = 'succeeded';
    await a.save(doc);
    expect((await b.get(doc.task_id))?.status).toBe('succeeded');
    const row = await dbB.pool.query('SELECT owner, status FROM ingest_tasks WHERE task_id = $1', [doc.task_id]);
    expect(row.rows).toEqual([{ owner: 'host-a:1', status: 'succeeded' }]);
  });

  it("B starting never cancels A's live task, and cancels it once A's lease ran out; A's late writes are dropped", async () => {
    const a = await instance(dbA, 'host-a:1', () => nowA);
    const doc = running(task('aaaa0001', T0));
    await a.add(doc);
    // Within the lease: B starts (and sweeps) without touching A's task.
    nowB = T0 + TASK_LEASE.leaseMs - 1000;
    const b = await instance(dbB, 'host-b:2', () => nowB);
    await b.maintain();
    expect((await b.get('aaaa0001'))?.status).toBe('running');
    // A renews 30 s in: the lease now runs to 90 s, so B starting at 61 s still leaves the task alone.
    nowA = T0 + 30_000;
    await a.maintain();
    nowB = T0 + 61_000;
    await instance(dbB, 'host-b:3', () => nowB);
    expect((await b.get('aaaa0001'))?.status).toBe('running');
    // A stops renewing; past its lease, the next instance to start cancels the task.
    nowB = T0 + 30_000 + TASK_LEASE.leaseMs + 1;
    await instance(dbB, 'host-b:4', () => nowB);
    expect(await b.get('aaaa0001')).toMatchObject({
      status: 'cancelled',
      message: RESTARTED,
      steps: { fetch: { status: 'failed', error: 'server stopped while the step ran' } },
    });
    // A, back from a stall, finishes the task: the cancellation stands.
    doc.status = 'succeeded';
    await a.save(doc);
    expect((await b.get('aaaa0001'))?.status).toBe('cancelled');
    expect((await a.get('aaaa0001'))?.status).toBe('cancelled');
  });

  it("the renewal sweep cancels the task of an instance that stopped renewing; a start cancels the instance's own leftovers", async () => {
    const b = await leftRunningByA('aaaa0002');
    await b.maintain();
    expect((await b.get('aaaa0002'))?.status).toBe('cancelled');

    // An instance restarting under the same id cancels its own unfinished task at once, lease or not.
    nowA = nowB;
    const c = await instance(dbA, 'host-c:3', () => nowA);
    await c.add(task('aaaa0003', T0));
    await instance(dbB, 'host-b:5', () => nowB);
    expect((await b.get('aaaa0003'))?.status).toBe('queued');
    await instance(dbB, 'host-c:3', () => nowA);
    expect((await b.get('aaaa0003'))?.status).toBe('cancelled');
  });

  it("a sweep whose connection dies while it waits on another's row lock fails that tick only: no crash, the next tick cancels", async () => {
    const b = await leftRunningByA('aaaa0004');
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown) => uncaught.push(err);
    process.on('uncaughtException', onUncaught);
    const locker = new pg.Client({ connectionString: url });
    const admin = new pg.Client({ connectionString: url });
    await locker.connect();
    await admin.connect();
    try {
      await locker.query('BEGIN');
      await locker.query(`SELECT 1 FROM ingest_tasks WHERE task_id = 'aaaa0004' FOR UPDATE`);
      const sweep = b.maintain().then(
        () => 'finished',
        (err: Error) => err.message,
      );
      // The sweep's backend, waiting for the lock, is terminated (a database restart or an operator's kill).
      await expect
        .poll(async () => {
          // Not on the locker: inside its transaction, pg_stat_activity is a snapshot taken at its first read.
          const { rows } = await admin.query<{ pid: number }>(
            `SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%FOR UPDATE%'
               AND pid <> pg_backend_pid()`,
          );
          if (rows[0]) await admin.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
          return rows.length;
        })
        .toBe(1);
      expect(await sweep).toMatch(/terminat/i);
      await locker.query('ROLLBACK');
      // An event still in flight would surface now.
      await new Promise<void>((resolve) => setImmediate(resolve));
      expect(uncaught).toEqual([]);
      await b.maintain();
      expect((await b.get('aaaa0004'))?.status).toBe('cancelled');
    } finally {
      process.off('uncaughtException', onUncaught);
      await locker.end();
      await admin.end();
    }
  });
});
