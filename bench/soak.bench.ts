/**
 * Soak benchmark (run: `npm run build && npx vitest run --config bench/support/vitest.config.ts soak`, ~80 s).
 *
 * The built `bin/pksd` (child process; local storage, a 2,000-page wiki checkout, no graph) under 60 s of mixed
 * traffic from 64 keep-alive loopback connections on a worker thread: reads (page list, page, search, wiki stats,
 * paper stats, needs-parser, health anonymous and with a credential) and writes (PDF uploads of fresh papers,
 * parser claims taken and released) with the system PAT. Figures: errors (target 0: network errors and any answer
 * other than the expected status), read p99 (target < 50 ms), write p50/p99, throughput, and the server's RSS at
 * the end against its RSS after the first 10 s (target within 10%). Targets are reported, not asserted; the run
 * fails only on errors.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { freePort } from '../test/support/free-port.js';
import { dirSettings, spawnPksd } from '../test/support/server.js';
import { generateWiki } from '../test/wiki/generate.js';
import { machine, mib, ms, procMemory, report, verdict } from './support/papers-util.js';

const DURATION_MS = 60_000;
const WARMUP_MS = 10_000;
const CONNECTIONS = 64;
const PAGES = 2_000;
const PAT = 'soak-system-pat-000000000001';
/** One paper per connection for claims (taken and released in turn, so no two connections compete). */
const CLAIM_PAPERS = Array.from({ length: CONNECTIONS }, (_, i) => `2512.${String(90000 + i).padStart(5, '0')}v1`);

interface KindFigures {
  readonly count: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}
interface SoakResult {
  readonly elapsedMs: number;
  readonly requests: number;
  readonly errors: number;
  readonly errorSamples: readonly string[];
  readonly reads: KindFigures;
  readonly writes: KindFigures;
  readonly byKind: Readonly<Record<string, KindFigures>>;
}

/**
 * The load: `connections` loops, each picking the next request from a weighted mix with its own seeded PRNG.
 * Plain JavaScript evaluated in a worker (no TypeScript loader there), so the client never shares the server's
 * or the test's event loop.
 */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const { port, pat, pageIds, claimPapers, connections, durationMs } = workerData;
const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
const auth = { authorization: 'Bearer ' + pat };
function rng(seed) {
  let a = seed >>> 0;
  return () => { a = (a + 0x6d2b79f5) >>> 0; let t = a; t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61); return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
}
const TERMS = ['qubit', 'entanglement', 'fourier transform', 'surface code', 'phase', 'oracle search', 'noise'];
const READS = [
  ['pages', 8, (r) => ({ path: '/api/pages?tags=' + ['qubit','gate','circuit'][Math.floor(r() * 3)], headers: auth })],
  ['page', 30, (r) => ({ path: '/api/pages/' + pageIds[Math.floor(r() * pageIds.length)], headers: auth })],
  ['search', 20, (r) => ({ path: '/api/search?limit=10&q=' + encodeURIComponent(TERMS[Math.floor(r() * TERMS.length)]), headers: auth })],
  ['stats', 5, () => ({ path: '/api/stats', headers: auth })],
  ['papers-stats', 5, () => ({ path: '/api/papers/stats', headers: auth })],
  ['needs-parser', 8, () => ({ path: '/api/papers/needs-parser?limit=20', headers: auth })],
  ['health', 6, (r) => ({ path: '/api/health', headers: r() < 0.5 ? {} : auth })],
];
const WRITE_SHARE = 18; // of 100: uploads 10, claim steps 8
const latencies = {};
const errorSamples = [];
let requests = 0, errors = 0;
function record(kind, t0, ok, detail) {
  requests++;
  (latencies[kind] ??= []).push(performance.now() - t0);
  if (!ok) { errors++; if (errorSamples.length < 10) errorSamples.push(kind + ': ' + detail); }
}
function send(method, path, headers, body) {
  return new Promise((resolve) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, agent, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString() }));
    });
    req.on('error', (err) => resolve({ status: 0, text: err.message }));
    req.end(body);
  });
}
let uploadSeq = 0;
// Valid <yymm> shards 2001..2512: with 90,000 numbers each, every connection's uploads get ids of their own.
const MONTHS = Array.from({ length: 72 }, (_, i) => String(20 + Math.floor(i / 12)) + String(1 + (i % 12)).padStart(2, '0'));
function uploadBody(id) {
  const boundary = '----soak' + id;
  const pdf = '%PDF-1.7\\n' + id + ' ' + 'x'.repeat(2000) + '\\n%%EOF\\n';
  const body = '--' + boundary + '\\r\\nContent-Disposition: form-data; name="pdf"; filename="p.pdf"\\r\\n' +
    'Content-Type: application/pdf\\r\\n\\r\\n' + pdf + '\\r\\n--' + boundary + '--\\r\\n';
  return { body, type: 'multipart/form-data; boundary=' + boundary };
}
async function loop(index) {
  const r = rng(1000 + index);
  const claimPaper = claimPapers[index];
  let claimId = null;
  const readWeight = READS.reduce((n, [, w]) => n + w, 0);
  const end = start + durationMs;
  while (performance.now() < end) {
    const roll = r() * (readWeight + WRITE_SHARE);
    const t0 = performance.now();
    if (roll < readWeight) {
      let acc = 0;
      const [kind, , make] = READS.find(([, w]) => (acc += w) > roll);
      const { path, headers } = make(r);
      const res = await send('GET', path, headers);
      record(kind, t0, res.status === 200, res.status + ' ' + path + ' ' + res.text.slice(0, 120));
    } else if (roll < readWeight + 10) {
      const n = index * 100000 + uploadSeq++;
      const id = MONTHS[Math.floor(n / 90000) % MONTHS.length] + '.' + String(10000 + (n % 90000)) + 'v1';
      const { body, type } = uploadBody(id);
      const res = await send('POST', '/api/papers/' + id + '/upload-pdf', { ...auth, 'content-type': type }, body);
      record('upload-pdf', t0, res.status === 201, res.status + ' ' + id + ' ' + res.text.slice(0, 120));
    } else if (claimId === null) {
      const res = await send('POST', '/api/papers/' + claimPaper + '/parser-claim', auth);
      if (res.status === 201) claimId = JSON.parse(res.text).claim_id;
      record('claim', t0, res.status === 201, res.status + ' ' + res.text.slice(0, 120));
    } else {
      const res = await send('DELETE', '/api/papers/' + claimPaper + '/parser-claim/' + claimId, auth);
      claimId = null;
      record('release', t0, res.status === 204, res.status + ' ' + res.text.slice(0, 120));
    }
  }
}
function figures(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const q = (p) => sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] : 0;
  return { count: sorted.length, p50: q(0.5), p99: q(0.99), max: sorted.length ? sorted[sorted.length - 1] : 0 };
}
const start = performance.now();
Promise.all(Array.from({ length: connections }, (_, i) => loop(i))).then(() => {
  const elapsedMs = performance.now() - start;
  agent.destroy();
  const readKinds = new Set(READS.map(([k]) => k));
  const all = Object.entries(latencies);
  parentPort.postMessage({
    elapsedMs, requests, errors, errorSamples,
    reads: figures(all.filter(([k]) => readKinds.has(k)).flatMap(([, v]) => v)),
    writes: figures(all.filter(([k]) => !readKinds.has(k)).flatMap(([, v]) => v)),
    byKind: Object.fromEntries(all.map(([k, v]) => [k, figures(v)])),
  });
});
`;

let base: string;
let server: ReturnType<typeof spawnPksd> | null = null;
let url: string;
let pageIds: string[];

beforeAll(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), 'pks-soak-'));
  const wiki = path.join(base, 'wiki');
  pageIds = (await generateWiki(wiki, PAGES)).ids;
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', wiki, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { stdio: 'pipe' });
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('commit', '-qm', 'generated wiki');
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  server = spawnPksd(['serve'], {
    ...dirSettings(base),
    SVC_WIKI_DIR: wiki,
    SVC_HTTP_ADDR: `127.0.0.1:${port}`,
    SVC_SYSTEM_PAT: PAT,
    SVC_LOG_LEVEL: 'warn',
  });
  await waitForHealth();
  for (const id of CLAIM_PAPERS) await uploadPdf(id);
  report(
    `soak benchmark: ${DURATION_MS / 1000} s, ${CONNECTIONS} connections, ${PAGES}-page wiki, local storage; ${machine()}`,
  );
});
afterAll(async () => {
  if (server && server.child.exitCode === null) {
    server.child.kill('SIGTERM');
    await server.done;
  }
  await rm(base, { recursive: true, force: true });
});

async function waitForHealth(): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      if ((await fetch(`${url}/api/health`)).status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline || server?.child.exitCode !== null)
      throw new Error(`pksd did not start: ${server?.output().stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function uploadPdf(id: string): Promise<void> {
  const boundary = `----setup${id}`;
  const body =
    `--${boundary}\r\nContent-Disposition: form-data; name="pdf"; filename="p.pdf"\r\nContent-Type: application/pdf\r\n\r\n` +
    `%PDF-1.7\n${id}\n%%EOF\n\r\n--${boundary}--\r\n`;
  const res = await fetch(`${url}/api/papers/${id}/upload-pdf`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${PAT}`, 'Content-Type': `multipart/form-data; boundary=${boundary}` },
    body,
  });
  expect(res.status).toBe(201);
}

function runSoak(port: number): Promise<SoakResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER, {
      eval: true,
      workerData: {
        port,
        pat: PAT,
        pageIds,
        claimPapers: CLAIM_PAPERS,
        connections: CONNECTIONS,
        durationMs: DURATION_MS,
      },
    });
    worker.once('message', (result: SoakResult) => {
      void worker.terminate();
      resolve(result);
    });
    worker.once('error', reject);
  });
}

test('60 s of mixed reads and writes from 64 connections', async () => {
  const pid = server!.child.pid!;
  const rssAtStart = (await procMemory(pid)).rss;
  const samples: { atMs: number; rss: number }[] = [];
  const started = Date.now();
  const sampler = setInterval(() => {
    void procMemory(pid).then(
      ({ rss }) => samples.push({ atMs: Date.now() - started, rss }),
      () => undefined,
    );
  }, 1_000);
  const result = await runSoak(Number(new URL(url).port));
  clearInterval(sampler);
  // Each figure is the mean of five one-second samples, so one garbage collection does not decide it.
  const mean = (list: readonly { rss: number }[]) => list.reduce((n, s) => n + s.rss, 0) / list.length;
  const rssAfterWarmup = mean(samples.filter((s) => s.atMs >= WARMUP_MS).slice(0, 5));
  const rssEnd = mean(samples.slice(-5));
  const growth = (rssEnd - rssAfterWarmup) / rssAfterWarmup;

  const line = (name: string, f: KindFigures) =>
    `  ${name.padEnd(13)} ${String(f.count).padStart(7)}  p50 ${ms(f.p50).padStart(9)}  p99 ${ms(f.p99).padStart(9)}  max ${ms(f.max)}`;
  report(
    `requests: ${result.requests} in ${(result.elapsedMs / 1000).toFixed(1)} s (${((result.requests / result.elapsedMs) * 1000).toFixed(0)}/s), errors: ${result.errors}`,
  );
  for (const [kind, f] of Object.entries(result.byKind)) report(line(kind, f));
  report(line('all reads', result.reads));
  report(line('all writes', result.writes));
  report(`read p99 ${ms(result.reads.p99)} (target < 50 ms): ${verdict(result.reads.p99 < 50)}`);
  report(
    `server RSS: ${mib(rssAtStart)} at start, ${mib(rssAfterWarmup)} after ${WARMUP_MS / 1000} s, ${mib(rssEnd)} at the end, ` +
      `peak ${mib(Math.max(...samples.map((s) => s.rss)))} ` +
      `(${(growth * 100).toFixed(1)}%; target within 10%): ${verdict(Math.abs(growth) <= 0.1)}`,
  );
  report(`errors: ${result.errors} (target 0): ${verdict(result.errors === 0)}`);
  expect(result.errorSamples).toEqual([]);
  expect(result.errors).toBe(0);
  expect(result.requests).toBeGreaterThan(1_000);
});
