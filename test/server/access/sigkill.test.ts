/**
 * Faults, nothing lost (issue 10): SIGKILL of pksd during a PDF download and during a conversion. After a restart
 * on the same directories: no partial object, no staged file, the ingest task that was running is `cancelled`,
 * and a new trigger succeeds.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { freePort } from '../../support/free-port.js';
import { dirSettings, REPO_ROOT } from '../../support/server.js';
import { until } from './support/clocks.js';
import { accessEnv, startDoubles, type Doubles } from './support/harness.js';
import { addPaper, jsonOf, pollJson } from './support/papers.js';
import { AUTH, PAT } from './support/server.js';

const REGISTER = path.join(REPO_ROOT, 'test/support/upstreams/ts-register.mjs');
const CHILD = path.join(import.meta.dirname, 'support/child-server.ts');

let d: Doubles;
const children: ChildProcess[] = [];
const dirs: string[] = [];
beforeAll(async () => {
  d = await startDoubles();
});
afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});
afterAll(() => d?.close());

interface Child {
  readonly process: ChildProcess;
  readonly url: string;
  get(pathname: string): Promise<Response>;
  killed(): Promise<void>;
}

async function serve(dir: string, port: number): Promise<Child> {
  const env = {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: dir,
    ...dirSettings(dir),
    ...accessEnv(d),
    SVC_HTTP_ADDR: `127.0.0.1:${port}`,
    SVC_SYSTEM_PAT: PAT,
    SVC_LOG_LEVEL: 'info',
  };
  const child = spawn(process.execPath, ['--import', REGISTER, CHILD], {
    cwd: dir,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  child.stdout!.resume();
  await until(
    'the child pksd to listen',
    () => {
      if (child.exitCode !== null) throw new Error(`child exited: ${stderr}`);
      return stderr.includes('pksd listening on');
    },
    60_000,
    20,
  );
  const url = `http://127.0.0.1:${port}`;
  return {
    process: child,
    url,
    get: (pathname) => fetch(url + pathname, { headers: AUTH }),
    killed: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}

const files = async (dir: string) => (existsSync(dir) ? readdir(dir) : []);

async function setup(): Promise<{ dir: string; port: number }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pksd-sigkill-'));
  dirs.push(dir);
  return { dir, port: await freePort() };
}

async function submitIngest(child: Child, id: string): Promise<string> {
  const res = await fetch(`${child.url}/api/ingest/paper`, {
    method: 'POST',
    headers: { ...AUTH, 'Content-Type': 'application/json' },
    body: JSON.stringify({ preprint_id: id }),
  });
  return ((await res.json()) as { task_id: string }).task_id;
}

it('SIGKILL during a download: no partial object, no staged file, ingest task cancelled, a new trigger succeeds', async () => {
  const { dir, port } = await setup();
  addPaper(d.arxiv, '2508.00001', 1, 4 * 1024 * 1024);
  d.arxiv.pdfChunkDelayMs = 25;
  try {
    const first = await serve(dir, port);
    const taskId = await submitIngest(first, '2508.00001v1');
    await pollJson(
      first.get,
      '/api/papers/2508.00001v1/markdown/status',
      (b) => Number(b.fetch?.['bytes_received']) >= 1024 * 1024,
    );
    expect((await files(path.join(dir, 'data/tmp'))).length).toBe(1);
    await first.killed();
    d.arxiv.pdfChunkDelayMs = 0;

    const second = await serve(dir, port);
    expect(await files(path.join(dir, 'data/tmp'))).toEqual([]);
    expect(existsSync(path.join(dir, 'raw/pdf/2508/2508.00001v1.pdf'))).toBe(false);
    expect(await files(path.join(dir, 'raw/.tmp'))).toEqual([]);
    const task = await jsonOf(await second.get(`/api/ingest/${taskId}`));
    expect(task).toMatchObject({
      status: 'cancelled',
      message: 'server restarted before the task finished; use continue',
    });
    expect((await jsonOf(await second.get('/api/papers/2508.00001v1/markdown/status'))).state).toBe('none');
    expect((await second.get('/api/papers/2508.00001v1/markdown')).status).toBe(202);
    await pollJson(second.get, '/api/papers/2508.00001v1/markdown/status', (b) => b.state === 'cached');
    await second.killed();
  } finally {
    d.arxiv.pdfChunkDelayMs = 0;
  }
}, 120_000);

it('SIGKILL during a conversion: no markdown or images, no staged file, ingest task cancelled, a new trigger succeeds', async () => {
  const { dir, port } = await setup();
  addPaper(d.arxiv, '2508.00002');
  d.mineru.frozen = true;
  try {
    const first = await serve(dir, port);
    const taskId = await submitIngest(first, '2508.00002v1');
    await pollJson(
      first.get,
      '/api/papers/2508.00002v1/markdown/status',
      (b) => b.state === 'running' && b.phase === 'converting_md',
    );
    await first.killed();
    d.mineru.frozen = false;

    const second = await serve(dir, port);
    expect(await files(path.join(dir, 'data/tmp'))).toEqual([]);
    expect(existsSync(path.join(dir, 'raw/pdf/2508/2508.00002v1.pdf'))).toBe(true);
    expect(existsSync(path.join(dir, 'raw/markdown/2508/2508.00002v1.md'))).toBe(false);
    expect(await files(path.join(dir, 'raw/images/2508'))).toEqual([]);
    expect(await jsonOf(await second.get(`/api/ingest/${taskId}`))).toMatchObject({ status: 'cancelled' });
    expect((await jsonOf(await second.get('/api/papers/2508.00002v1/markdown/status'))).state).toBe('none');
    expect((await second.get('/api/papers/2508.00002v1/markdown')).status).toBe(202);
    const cached = await pollJson(second.get, '/api/papers/2508.00002v1/markdown/status', (b) => b.state === 'cached');
    expect([cached.pdf_ready, cached.md_ready]).toEqual([true, true]);
    await second.killed();
  } finally {
    d.mineru.frozen = false;
  }
}, 120_000);
