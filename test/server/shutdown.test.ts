/**
 * Clean shutdown (issue 20, CONTRACT §1.4 step 7): SIGTERM or SIGINT to `pksd serve` while a PDF download, a
 * conversion (a parser poll in flight) and ingest tasks run. The download and the poll are aborted, the parser slot
 * released, the staged file removed, unfinished tasks written `cancelled`, and the process exits 0 within 10 s. A
 * restart on the same directories serves normally; a contributor's claim (§5) is a lease of the contributor and
 * survives. In process, `close()` resolves only after every job ended: nothing writes into the directories later.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parsePreprintId, type VersionedPreprintId } from '../../src/shared/ids.js';
import { createLogger } from '../../src/server/logger.js';
import { freePort } from '../support/free-port.js';
import { dirSettings, LogCapture, REPO_ROOT, waitForOutput } from '../support/server.js';
import { until } from './access/support/clocks.js';
import { accessEnv, startDoubles, type Doubles } from './access/support/harness.js';
import { addPaper, jsonOf, pollJson } from './access/support/papers.js';
import { AUTH, composeServer, PAT, startAccessServer } from './access/support/server.js';

const REGISTER = path.join(REPO_ROOT, 'test/support/upstreams/ts-register.mjs');
const PKSD = path.join(REPO_ROOT, 'test/support/pksd-source.ts');
const MIB = 1024 * 1024;

let d: Doubles;
const children: ChildProcess[] = [];
const dirs: string[] = [];
beforeAll(async () => {
  d = await startDoubles();
});
afterEach(async () => {
  d.mineru.pollGate.open();
  d.arxiv.pdfBodyGate.open();
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});
afterAll(() => d?.close());

type Get = (pathname: string) => Promise<Response>;

const files = async (dir: string) => (existsSync(dir) ? readdir(dir) : []);

const post = (url: string, body?: unknown) =>
  fetch(url, {
    method: 'POST',
    headers: { ...AUTH, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

/** Polls of the parser double for tasks of `stem` (the `data_id` the server sent). */
function pollsOf(stem: string): number {
  const taskIds = new Set(
    [...d.mineru.tasks.values()].filter((t) => t.request['data_id'] === stem).map((t) => t.task_id),
  );
  return d.mineru.requests.filter((r) => r.method === 'GET' && taskIds.has(r.url.split('/').pop() ?? '')).length;
}

async function ingest(base: string, body: Record<string, unknown>): Promise<string> {
  const res = await post(`${base}/api/ingest/paper`, body);
  expect(res.status).toBe(202);
  return ((await res.json()) as { task_id: string }).task_id;
}

async function taskFile(dir: string, taskId: string): Promise<Record<string, unknown>> {
  const text = await readFile(path.join(dir, 'data/ingests', `${taskId}.json`), 'utf8');
  return JSON.parse(text) as Record<string, unknown>;
}

interface InFlight {
  /** Converting: its parser poll is held by the double. */
  readonly converting: string;
  /** Its PDF download is streaming. */
  readonly downloading: string;
  /** An ingest task following the conversion's job. */
  readonly followTask: string;
  /** An ingest task with `force_fetch`: its own download through the engine. */
  readonly ownTask: string;
  readonly ownPaper: string;
  /** A contributor's claim on a paper with a stored PDF. */
  readonly claimed: string;
  readonly claimId: string;
}

/**
 * Puts a server into the state shutdown must handle: a conversion whose poll is held, two PDF downloads streaming
 * (a job's, and an ingest task's own), an ingest task following the conversion, and a contributor's claim.
 */
async function startWork(base: string, get: Get, prefix: string): Promise<InFlight> {
  const paper = (n: number) => `${prefix}${n}v1`;
  const [converting, downloading, ownPaper, claimed] = [paper(1), paper(2), paper(3), paper(4)];
  for (const id of [converting, claimed]) addPaper(d.arxiv, id.slice(0, -2));
  // Larger than the MiB a held body sends: these downloads stay in flight until the body gate opens.
  for (const id of [downloading, ownPaper]) addPaper(d.arxiv, id.slice(0, -2), 1, 2 * MIB);

  // A contributor's claim on a paper whose PDF is stored.
  expect((await get(`/api/papers/${claimed}/pdf`)).status).toBe(202);
  await pollJson(get, `/api/papers/${claimed}/pdf/status`, (b) => b.state === 'cached');
  const claim = await post(`${base}/api/papers/${claimed}/parser-claim`);
  expect(claim.status).toBe(201);
  const { claim_id: claimId } = (await claim.json()) as { claim_id: string };

  d.mineru.pollGate.close();
  expect((await get(`/api/papers/${converting}/markdown`)).status).toBe(202);
  await until('a parser poll in flight', () => d.mineru.heldPolls === 1, 30_000, 10);
  const followTask = await ingest(base, { preprint_id: converting });

  d.arxiv.pdfBodyGate.close();
  expect((await get(`/api/papers/${downloading}/pdf`)).status).toBe(202);
  const ownTask = await ingest(base, { preprint_id: ownPaper, stop_after: 'fetch', force_fetch: true });
  await pollJson(get, `/api/papers/${downloading}/pdf/status`, (b) => Number(b.fetch?.['bytes_received']) >= MIB);
  await until(
    'the ingest download to stream',
    async () => {
      const task = await jsonOf(await get(`/api/ingest/${ownTask}`));
      const progress = (task['steps'] as { fetch: { progress: { bytes_downloaded?: number } | null } }).fetch.progress;
      return (progress?.bytes_downloaded ?? 0) >= MIB;
    },
    30_000,
    20,
  );
  await until('both PDF bodies held after their first MiB', () => d.arxiv.heldPdfBodies === 2, 30_000, 10);
  await until('the following task to run its parse step', async () => {
    const task = await jsonOf(await get(`/api/ingest/${followTask}`));
    return (task['steps'] as { parse: { status: string } }).parse.status === 'running';
  });
  return { converting, downloading, followTask, ownTask, ownPaper, claimed, claimId };
}

/** What a stopped server left behind: nothing staged, no partial object, unfinished tasks `cancelled`. */
async function expectCleanlyStopped(dir: string, w: InFlight, pollsBefore: number): Promise<void> {
  // The held poll was abandoned by the server, and no poll followed it.
  await until('the held parser poll to be abandoned', () => d.mineru.heldPolls === 0, 10_000, 10);
  expect(pollsOf(w.converting)).toBe(pollsBefore);
  expect(await files(path.join(dir, 'data/tmp'))).toEqual([]);
  expect(await files(path.join(dir, 'raw/.tmp'))).toEqual([]);
  const yymm = w.downloading.slice(0, 4);
  expect(existsSync(path.join(dir, `raw/pdf/${yymm}/${w.downloading}.pdf`))).toBe(false);
  expect(existsSync(path.join(dir, `raw/pdf/${yymm}/${w.ownPaper}.pdf`))).toBe(false);
  expect(existsSync(path.join(dir, `raw/markdown/${yymm}/${w.converting}.md`))).toBe(false);
  expect(await files(path.join(dir, `raw/images/${yymm}`))).toEqual([]);
  for (const [taskId, step] of [
    [w.followTask, 'parse'],
    [w.ownTask, 'fetch'],
  ] as const) {
    const task = await taskFile(dir, taskId);
    expect(task).toMatchObject({
      status: 'cancelled',
      message: 'server restarted before the task finished; use continue',
    });
    expect((task['steps'] as Record<string, unknown>)[step]).toMatchObject({
      status: 'failed',
      error: 'server stopped while the step ran',
    });
  }
}

/** A restarted server serves normally: health, the interrupted work restarts, the claim is still held. */
async function expectServesAfterRestart(base: string, get: Get, w: InFlight): Promise<void> {
  expect(((await jsonOf(await get('/api/health'))) as { code?: number }).code).toBe(200);
  expect((await jsonOf(await get(`/api/papers/${w.converting}/markdown/status`))).state).toBe('none');
  expect((await get(`/api/papers/${w.converting}/markdown`)).status).toBe(202);
  expect((await get(`/api/papers/${w.downloading}/pdf`)).status).toBe(202);
  await pollJson(get, `/api/papers/${w.converting}/markdown/status`, (b) => b.state === 'cached');
  await pollJson(get, `/api/papers/${w.downloading}/pdf/status`, (b) => b.state === 'cached');
  expect((await get(`/api/papers/${w.converting}/markdown`)).status).toBe(200);
  expect((await jsonOf(await get(`/api/ingest/${w.ownTask}`))).status).toBe('cancelled');
  const again = await post(`${base}/api/papers/${w.claimed}/parser-claim`);
  expect(again.status).toBe(409);
  expect(await again.json()).toMatchObject({ detail: `${w.claimed} is already claimed`, claim_id: w.claimId });
}

interface Child {
  readonly process: ChildProcess;
  readonly url: string;
  readonly get: Get;
  output(): { stdout: string; stderr: string };
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `pksd serve` (the real program, from the sources) on `dir` with paper access against the doubles. */
async function serve(dir: string, port: number): Promise<Child> {
  const env = {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: dir,
    ...dirSettings(dir),
    ...accessEnv(d),
    SVC_SYSTEM_PAT: PAT,
    SVC_LOG_LEVEL: 'info',
  };
  const child = spawn(process.execPath, ['--import', REGISTER, PKSD, 'serve', `--http=127.0.0.1:${port}`], {
    cwd: dir,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const proc = { child, output: () => ({ stdout, stderr }) };
  await waitForOutput(proc, (o) => o.stderr.includes('pksd listening on'), 60_000);
  const url = `http://127.0.0.1:${port}`;
  return { process: child, url, get: (p) => fetch(url + p, { headers: AUTH }), output: proc.output, exited };
}

describe('pksd serve stops its background work on a signal', () => {
  it.each([
    ['SIGTERM', '2510.0001'],
    ['SIGINT', '2510.0002'],
  ] as const)(
    '%s during a download, a conversion and ingest tasks: exit 0 within 10 s, nothing left behind; a restart serves',
    async (signal, prefix) => {
      const dir = await mkdtemp(path.join(os.tmpdir(), 'pksd-shutdown-'));
      dirs.push(dir);
      const port = await freePort();
      const first = await serve(dir, port);
      const work = await startWork(first.url, first.get, prefix);
      // Before the signal: the download is staged, the poll is held.
      expect(await files(path.join(dir, 'data/tmp'))).toHaveLength(2);
      const pollsBefore = pollsOf(work.converting);

      const signalled = Date.now();
      first.process.kill(signal);
      const exit = await first.exited;
      const elapsed = Date.now() - signalled;
      expect(exit).toEqual({ code: 0, signal: null });
      expect(elapsed).toBeLessThan(10_000);
      const { stderr } = first.output();
      expect(stderr).toContain(`received ${signal}; shutting down`);
      expect(stderr).toContain('stopped 2 paper-access jobs and 2 ingest tasks in progress');
      expect(stderr).toContain('pksd stopped');
      await expectCleanlyStopped(dir, work, pollsBefore);

      d.mineru.pollGate.open();
      d.arxiv.pdfBodyGate.open();
      const second = await serve(dir, port);
      await expectServesAfterRestart(second.url, second.get, work);
      second.process.kill('SIGTERM');
      expect(await second.exited).toEqual({ code: 0, signal: null });
    },
    120_000,
  );
});

describe('close() of a server in this process', () => {
  it('resolves after every job ended: no poll, download or file write follows; the directory goes without retries', async () => {
    const s = await startAccessServer(accessEnv(d));
    let removed = false;
    try {
      const work = await startWork(s.url, s.get, '2510.0003');
      const pollsBefore = pollsOf(work.converting);
      const pdfRequests = d.arxiv.requestsTo('pdf').length;
      await s.stop();
      expect(s.access.engine.jobCounts()).toEqual({ inflight: 0, queued: 0 });
      const job = s.access.engine.job(parsePreprintId(work.converting) as VersionedPreprintId);
      expect(job?.failure).toMatchObject({ kind: 'retryable', detail: 'server shutting down' });
      await expectCleanlyStopped(s.dir, work, pollsBefore);
      expect(d.arxiv.requestsTo('pdf')).toHaveLength(pdfRequests);
      // A submission that raced the shutdown is refused, not accepted for a task that would never run.
      await expect(s.ingest.submit(work.converting, {}, 'alice')).rejects.toMatchObject({
        kind: 'unavailable',
        message: 'server is shutting down; submit the task again once it is back',
        retryAfterSeconds: 5,
      });

      d.mineru.pollGate.open();
      d.arxiv.pdfBodyGate.open();
      const again = await composeServer(s.config, createLogger('warn', new LogCapture()));
      try {
        await expectServesAfterRestart(again.url, (p) => fetch(again.url + p, { headers: AUTH }), work);
      } finally {
        await again.close();
      }
      await rm(s.dir, { recursive: true });
      removed = true;
    } finally {
      if (!removed) await s.close();
    }
  }, 120_000);
});
