/**
 * CONTRACT §21 in one process: two paper-access engines (instances `A` and `B`) on one PostgreSQL database and one
 * object store, driven by one controllable clock. The same paper triggered on both at once → one arXiv download and
 * one parser submission, and status calls on either answer the one job's snapshot. The holder dying (its database
 * writes cut, then the process stopped without releasing) → the other instance takes the job over once the clock
 * passed 60 s since the last renewal, and finishes it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { openPaperAccess } from '../../../src/server/access/open.js';
import type { PaperAccess, TriggerResult } from '../../../src/server/access/service.js';
import type { Resolution } from '../../../src/server/access/resolver.js';
import type { Snapshot } from '../../../src/server/access/snapshot.js';
import { jobLeaseStoreOf, type JobLeaseStore } from '../../../src/server/db/job-lease-store.js';
import { PostgresUserDatabase } from '../../../src/server/db/postgres-user-database.js';
import { createLogger } from '../../../src/server/logger.js';
import { openPaperAssets, type PaperAssets } from '../../../src/server/papers/assets.js';
import { parseVersionedId } from '../../../src/shared/ids.js';
import { usePostgres } from '../../support/postgres.js';
import { LogCapture, testConfig } from '../../support/server.js';
import { OffsetClock, until } from './support/clocks.js';
import { accessEnv, startDoubles, type Doubles } from './support/harness.js';
import { addPaper } from './support/papers.js';

const postgres = usePostgres();
let d: Doubles;
let root: string;
beforeAll(async () => {
  d = await startDoubles();
  root = await mkdtemp(path.join(os.tmpdir(), 'pksd-cluster-jobs-'));
});
afterAll(async () => {
  await d?.close();
  await rm(root, { recursive: true, force: true });
});

/** A store whose calls fail once `severed` (the instance lost the database, or died): it writes nothing more. */
function severable(store: JobLeaseStore): { store: JobLeaseStore; sever(): void } {
  let severed = false;
  const cut = new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) =>
        severed
          ? Promise.reject(new Error('connection lost'))
          : (value as (...a: unknown[]) => unknown).apply(target, args);
    },
  });
  return { store: cut, sever: () => void (severed = true) };
}

interface Instance {
  readonly name: string;
  readonly access: PaperAccess;
  readonly papers: PaperAssets;
  readonly logs: LogCapture;
  sever(): void;
  close(): Promise<void>;
}

const open: Instance[] = [];
afterEach(async () => {
  for (const i of open.splice(0)) await i.close();
});

/** One instance: its own data directories and database pool, the shared raw store and database. */
async function instance(name: string, clock: OffsetClock, raw: string): Promise<Instance> {
  const config = testConfig(path.join(root, `${name}-${open.length}-${Date.now()}`), {
    ...accessEnv(d),
    SVC_RAW_DIR: raw,
    SVC_INSTANCE_ID: name,
    SVC_DB_URL: postgres.url,
  });
  const logs = new LogCapture();
  const logger = createLogger('warn', logs);
  const db = await PostgresUserDatabase.open(postgres.url);
  const leases = severable(jobLeaseStoreOf(db)!);
  const papers = await openPaperAssets(config, logger, { s3: null, graph: null });
  const access = openPaperAccess(config, logger, papers, { clock, leases: leases.store });
  let closed = false;
  const inst: Instance = {
    name,
    access,
    papers,
    logs,
    sever: leases.sever,
    async close() {
      if (closed) return;
      closed = true;
      await access.close();
      await papers.close();
      await db.close();
    },
  };
  open.push(inst);
  return inst;
}

/** Instances A and B on one clock, sharing the raw store `raw-shared-<n>` and the database. */
async function twoInstances(n: number): Promise<{ clock: OffsetClock; a: Instance; b: Instance }> {
  const clock = new OffsetClock();
  const raw = path.join(root, `raw-shared-${n}`);
  return { clock, a: await instance('A', clock, raw), b: await instance('B', clock, raw) };
}

const resolution = (raw: string): Resolution => ({ id: parseVersionedId(raw)!, requestedId: raw, defaults: [] });

function snapshotOf(result: TriggerResult): Snapshot {
  if (result.type !== 'snapshot') throw new Error('expected a snapshot, got bytes');
  return result.snapshot;
}

async function bytesOf(inst: Instance, id: string): Promise<Buffer> {
  const result = await inst.access.trigger(resolution(id), 'markdown');
  if (result.type !== 'content') throw new Error(`expected the stored markdown, got ${result.snapshot.state}`);
  const chunks: Buffer[] = [];
  for await (const chunk of result.body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const pdfDownloads = (id: string) => d.arxiv.requestsTo('pdf').filter((r) => r.url === `/pdf/${id}`).length;
const submissions = (id: string) => d.mineru.creations.filter((c) => c.dataId === id).length;

it('the same paper triggered on two instances at once: one download, one conversion, one snapshot on both', async () => {
  const { a, b } = await twoInstances(1);
  const id = '2504.00001v1';
  addPaper(d.arxiv, '2504.00001', 1, 64 * 1024);
  d.arxiv.pdfGate.close();
  const [onA, onB] = await Promise.all([
    a.access.trigger(resolution(id), 'markdown'),
    b.access.trigger(resolution(id), 'markdown'),
  ]);
  const [sa, sb] = [snapshotOf(onA), snapshotOf(onB)];
  expect([onA.type === 'snapshot' && onA.outcome, onB.type === 'snapshot' && onB.outcome]).toEqual([
    'accepted',
    'accepted',
  ]);
  // Both answers are the one job's: the same submission time (the follower answers the holder's stored snapshot).
  expect(sa.submitted_at).toBeDefined();
  expect(sb.submitted_at).toBe(sa.submitted_at);

  // While the download is held: status on either instance answers the running job's snapshot.
  await until('the download to start', () => d.arxiv.pdfGate.held === 1);
  const running = async (inst: Instance) => inst.access.status(resolution(id), 'markdown');
  await until('both instances to show the running fetch', async () => {
    const [x, y] = [await running(a), await running(b)];
    return x.state === 'running' && y.state === 'running';
  });
  const [xa, xb] = [await running(a), await running(b)];
  expect(xb).toMatchObject({
    preprint_id: id,
    state: 'running',
    phase: 'fetching_pdf',
    submitted_at: xa.submitted_at,
    started_at: xa.started_at,
  });
  // A trigger on the other instance meanwhile answers the same job (202, the running snapshot).
  const again = await b.access.trigger(resolution(id), 'markdown');
  expect(again).toMatchObject({ type: 'snapshot', outcome: 'accepted', snapshot: { state: 'running' } });
  // The cluster's job list on either instance shows it once.
  for (const inst of [a, b]) {
    const listed = (await inst.access.jobs()).filter((j) => j.snapshot.preprint_id === id);
    expect(listed.map((j) => [j.asset, j.snapshot.state])).toEqual([['markdown', 'running']]);
  }

  d.arxiv.pdfGate.open();
  await until('markdown cached on both', async () => {
    const [x, y] = [await running(a), await running(b)];
    return x.state === 'cached' && y.state === 'cached';
  });
  expect(pdfDownloads(id)).toBe(1);
  expect(submissions(id)).toBe(1);
  const [ma, mb] = [await bytesOf(a, id), await bytesOf(b, id)];
  expect(ma.length).toBeGreaterThan(0);
  expect(mb).toEqual(ma);
});

it('the holder dies: the other instance takes the job over 60 s after the last renewal and finishes it', async () => {
  const { clock, a, b } = await twoInstances(2);
  const id = '2504.00002v1';
  addPaper(d.arxiv, '2504.00002', 1, 64 * 1024);
  d.arxiv.pdfGate.close();
  const first = snapshotOf(await a.access.trigger(resolution(id), 'markdown'));
  await until('A to download', () => d.arxiv.pdfGate.held === 1);
  const followed = snapshotOf(await b.access.trigger(resolution(id), 'markdown'));
  expect(followed.submitted_at).toBe(first.submitted_at);

  // A dies: no more writes reach the database, then its process stops without releasing the lease.
  a.sever();
  await a.close();
  // Before the lease ran out, B still answers A's job (the last snapshot A stored) and starts nothing.
  clock.advance(50_000);
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  expect(pdfDownloads(id)).toBe(1);
  expect(await b.access.status(resolution(id), 'markdown')).toMatchObject({ submitted_at: first.submitted_at });

  // 60 s after A's last renewal (its acquire), B takes the job over and finishes it.
  d.arxiv.pdfGate.open();
  clock.advance(11_000);
  await until('B to take the job over and store the markdown', async () => {
    return (await b.access.status(resolution(id), 'markdown')).state === 'cached';
  });
  expect(pdfDownloads(id)).toBe(2);
  expect(submissions(id)).toBe(1);
  const listed = (await b.access.jobs()).filter((j) => j.snapshot.preprint_id === id);
  expect(listed.map((j) => j.snapshot.state)).toEqual(['cached']);
});

it('a failure on one instance is answered by the other until its cooldown ends', async () => {
  const { clock, a, b } = await twoInstances(3);
  const id = '2504.99999v1';
  const failed = await a.access.trigger(resolution(id), 'pdf').then(async (r) => {
    if (snapshotOf(r).state === 'failed') return r;
    await until(
      'the fetch to fail on A',
      async () => (await a.access.status(resolution(id), 'pdf')).state === 'failed',
    );
    return a.access.trigger(resolution(id), 'pdf');
  });
  expect(failed).toMatchObject({ outcome: 'not_found', snapshot: { state: 'failed', kind: 'fatal' } });
  await until('A to record the failure', async () => (await b.access.status(resolution(id), 'pdf')).state === 'failed');
  expect(await b.access.status(resolution(id), 'pdf')).toMatchObject({
    state: 'failed',
    phase: 'error_fetching',
    kind: 'fatal',
    detail: snapshotOf(failed).detail,
  });
  const onB = await b.access.trigger(resolution(id), 'pdf');
  expect(onB).toMatchObject({ outcome: 'not_found', snapshot: { state: 'failed', detail: snapshotOf(failed).detail } });
  expect(pdfDownloads(id)).toBe(1);
  // After the cooldown a trigger on B starts a new job (fetching again).
  clock.advance(61_000);
  await b.access.trigger(resolution(id), 'pdf');
  await until('B to fetch again', () => pdfDownloads(id) === 2);
});

it('the job records unreachable: the trigger fails retryable with the reason, and starts no download', async () => {
  const clock = new OffsetClock();
  const a = await instance('A', clock, path.join(root, 'raw-shared-4'));
  const id = '2504.00004v1';
  addPaper(d.arxiv, '2504.00004', 1);
  a.sever();
  const answer = await a.access.trigger(resolution(id), 'pdf');
  expect(answer).toMatchObject({
    type: 'snapshot',
    outcome: 'failed',
    snapshot: {
      state: 'failed',
      phase: 'error_fetching',
      kind: 'retryable',
      detail: 'paper-access job record unavailable: connection lost',
    },
  });
  expect(pdfDownloads(id)).toBe(0);
});

it('a holder that could not renew for 55 s gives its job up before another instance may take it over: one conversion', async () => {
  const { clock, a, b } = await twoInstances(5);
  const id = '2504.00005v1';
  addPaper(d.arxiv, '2504.00005', 1, 64 * 1024);
  d.arxiv.pdfGate.close();
  snapshotOf(await a.access.trigger(resolution(id), 'markdown'));
  await until('A to download', () => d.arxiv.pdfGate.held === 1);

  // A loses the database but keeps running: its renewals fail. 55 s after its last renewal it gives the job up.
  a.sever();
  clock.advance(56_000);
  await until('A to give its job up', () => a.access.counters().inflight_jobs === 0);
  // The lease ran out: B takes the job over and converts the paper.
  clock.advance(5_000);
  snapshotOf(await b.access.trigger(resolution(id), 'markdown'));
  await until('B to download', () => d.arxiv.pdfGate.held === 2);
  d.arxiv.pdfGate.open();
  await until('B to store the markdown', async () => {
    return (await b.access.status(resolution(id), 'markdown')).state === 'cached';
  });
  // A's download, already on the wire, finishes; A converts nothing after it.
  await until('A to finish its download', () => a.access.counters().inflight_preprint_fetches === 0);
  await until('A to settle', () => a.access.counters().inflight_jobs === 0);
  expect(submissions(id)).toBe(1);
  expect(a.access.counters().submitted).toBe(0);
  expect(a.logs.text).toContain('no renewal for 55 s');
});
