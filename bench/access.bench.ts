/**
 * Paper-access benchmark (run: `npx vitest run --config bench/support/vitest.config.ts access`; see bench/README.md).
 *
 * 1. Cache-hit `GET /api/papers/{id}/markdown` on an in-process pksd with moto, against a direct S3 GetObject of
 *    the same object through the SDK, same run, alternating, median of `ROUNDS` each (target ratio ≥ 0.95, issue 25).
 *    Beside the throughput, the main thread's CPU time per request of each (`process.threadCpuUsage`; the load
 *    generator of the HTTP side runs on a worker thread): what pksd adds to the SDK call it makes, a figure that
 *    depends much less than throughput on what else the machine runs; and moto's CPU time per request on each side
 *    (from /proc: moto is a child of this process). Then the same comparison with moto taken out: a second pksd and
 *    the SDK on a stand-in store (a child Node process that forwards to moto until told to replay, then answers the
 *    GETs it recorded from memory, on kept-alive connections), to show what the ratio is when the store is not the
 *    bottleneck, and a bare Fastify route serving the same GetObject (piped, then as one buffer) to show what
 *    serving it over HTTP costs without pksd (with `ACCESS_BENCH_CPU_PROFILE=<file>`, one more round of hits on the
 *    stand-in store is profiled into `<file>`). The moto ratio is recorded as the issue's `markdown` row (bench/support/targets.ts).
 * 2. `GET …/markdown/status` of a job in progress against a bare Fastify route answering a snapshot of the same
 *    size (target ratio ≥ 0.6).
 * 3. 1,000 markdown jobs queued behind the parser slots: server RSS growth (target < 100 MiB) and status p99
 *    across all of them (target < 20 ms).
 * Targets are reported, not asserted.
 */
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import Fastify from 'fastify';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createS3Clients } from '../src/server/storage/s3-client.js';
import { startMoto, type MotoServer } from '../test/support/moto.js';
import { until } from '../test/server/access/support/clocks.js';
import { accessEnv, startDoubles, type Doubles } from '../test/server/access/support/harness.js';
import { addPaper } from '../test/server/access/support/papers.js';
import { AUTH, startAccessServer, type AccessServer } from '../test/server/access/support/server.js';
import { median, peakRssMiB, runLoad, threadCpuMicros, type LoadResult } from './support/load.js';
import { machine, loadAverage } from './support/papers-util.js';
import { recordTarget } from './support/targets.js';

const LOAD = { concurrency: 16, maxRequests: 20_000, maxMs: 5_000 };
const ROUNDS = 3;
/** Rounds of the cache-hit comparison (noisy: moto and the server share the machine's two cores). */
const HIT_ROUNDS = 5;
const JOBS = 1_000;

let moto: MotoServer;
let d: Doubles;
const report = (line: string) => console.log(line);
const verdict = (ok: boolean) => (ok ? 'meets target' : 'MISSES target');
const rssMiB = () => process.memoryUsage().rss / 1024 / 1024;

beforeAll(async () => {
  [moto, d] = await Promise.all([startMoto(), startDoubles()]);
  report(`${machine()}`);
});
afterAll(async () => {
  report(`peak RSS: ${peakRssMiB().toFixed(0)} MiB`);
  await d?.close();
  await moto?.stop();
});

async function best(run: () => Promise<LoadResult>): Promise<LoadResult> {
  let top: LoadResult | null = null;
  for (let i = 0; i < ROUNDS; i++) {
    const r = await run();
    expect(r.errors + r.non2xx).toBe(0);
    if (!top || r.rps > top.rps) top = r;
  }
  return top!;
}

/** Main-thread CPU time (user + system) per request, in µs, of `run`. */
async function withCpu<T extends { requests: number }>(run: () => Promise<T>): Promise<T & { cpuUs: number }> {
  const before = threadCpuMicros();
  const result = await run();
  return { ...result, cpuUs: (threadCpuMicros() - before) / Math.max(1, result.requests) };
}

/** GetObject of one key through the SDK, `concurrency` loops, body drained, for up to `maxMs`. */
async function sdkGets(s: AccessServer, key: string): Promise<{ rps: number; requests: number }> {
  const clients = createS3Clients(s.config.objectStore!, null);
  try {
    const Bucket = s.config.objectStore!.buckets.markdown;
    let done = 0;
    const start = performance.now();
    await Promise.all(
      Array.from({ length: LOAD.concurrency }, async () => {
        while (performance.now() - start < LOAD.maxMs && done < LOAD.maxRequests) {
          const r = await clients.internal.send(new GetObjectCommand({ Bucket, Key: key }));
          await r.Body!.transformToByteArray();
          done++;
        }
      }),
    );
    return { rps: (done / (performance.now() - start)) * 1000, requests: done };
  } finally {
    clients.destroy();
  }
}

const CLOCK_TICKS_PER_S = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

/** CPU time (user + system, all threads) process `pid` has used so far, in µs (`/proc/<pid>/stat`, clock ticks). */
function processCpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLOCK_TICKS_PER_S; // utime, stime (fields 14, 15)
}

/** The child process of this one listening on `endpoint`'s port (moto gets it as `-p <port>`). */
function childOnPort(endpoint: string): number {
  const port = new URL(endpoint).port;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== process.pid) continue;
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (argv.includes(port)) return Number(entry);
    } catch {
      // a process that ended meanwhile
    }
  }
  throw new Error(`no child process of ${process.pid} listens on ${endpoint}`);
}

/**
 * The stand-in store (plain CommonJS for `node -e`): forwards every request to the upstream (moto) and records the
 * 200 answers to GET and HEAD; after `GET /__stand-in/replay` it answers a recorded request from memory (same status,
 * headers and body, on a kept-alive connection) and forwards the rest. `GET /__stand-in/stats` counts both kinds.
 * It exits when its stdin closes, as moto's watchdog does.
 */
const STAND_IN = `
const http = require('node:http');
const upstream = new URL(process.argv[1]);
const recorded = new Map();
let replay = false, replayed = 0, forwarded = 0;
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
const server = http.createServer((req, res) => {
  if (req.url === '/__stand-in/replay') { replay = true; return res.end(String(recorded.size)); }
  if (req.url === '/__stand-in/stats') return res.end(JSON.stringify({ recorded: recorded.size, replayed, forwarded }));
  const key = req.method + ' ' + req.headers.host + req.url;
  const hit = replay ? recorded.get(key) : undefined;
  if (hit) { replayed++; res.writeHead(hit.status, hit.headers); return res.end(hit.body); }
  if (replay) forwarded++;
  const up = http.request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (ur) => {
    const chunks = [];
    ur.on('data', (c) => chunks.push(c));
    ur.on('end', () => {
      const body = Buffer.concat(chunks);
      const headers = { ...ur.headers };
      delete headers.connection; delete headers['keep-alive']; delete headers['transfer-encoding'];
      if (req.method !== 'HEAD' && headers['content-length'] === undefined) headers['content-length'] = String(body.length);
      if (ur.statusCode === 200 && (req.method === 'GET' || req.method === 'HEAD')) recorded.set(key, { status: 200, headers, body });
      res.writeHead(ur.statusCode, headers);
      res.end(body);
    });
  });
  up.on('error', () => { res.statusCode = 502; res.end(); });
  req.pipe(up);
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

interface StandIn {
  readonly endpoint: string;
  readonly child: ChildProcess;
}

async function startStandIn(upstream: string): Promise<StandIn> {
  const child = spawn(process.execPath, ['-e', STAND_IN, upstream], { stdio: ['pipe', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
    child.once('exit', (code) => reject(new Error(`stand-in store exited (${code})`)));
  });
  return { endpoint: `http://127.0.0.1:${port}`, child };
}

interface HitFigures {
  readonly ratio: number;
  readonly hitRps: number;
  readonly sdkRps: number;
  readonly hitCpu: number;
  readonly sdkCpu: number;
  readonly storeHitCpu: number;
  readonly storeSdkCpu: number;
}

/**
 * Cache-hit `GET …/markdown` of `s` against the SDK's GetObject of the same object, `HIT_ROUNDS` alternating rounds
 * after a warm-up; medians of throughput, of this process's main-thread CPU per request and of the store process's.
 */
async function compareHits(s: AccessServer, url: string, key: string, store: { name: string; pid: number }) {
  await runLoad({ ...LOAD, maxMs: 2_000, urls: [url], headers: AUTH });
  await sdkGets(s, key);
  type Round = { rps: number; cpuUs: number; storeUs: number };
  const measure = async (run: () => Promise<{ rps: number; requests: number }>): Promise<Round> => {
    const storeBefore = processCpuMicros(store.pid);
    const r = await withCpu(run);
    return { ...r, storeUs: (processCpuMicros(store.pid) - storeBefore) / Math.max(1, r.requests) };
  };
  const hits: Round[] = [];
  const sdks: Round[] = [];
  for (let i = 0; i < HIT_ROUNDS; i++) {
    hits.push(
      await measure(async () => {
        const hit = await runLoad({ ...LOAD, urls: [url], headers: AUTH });
        expect(hit.errors + hit.non2xx).toBe(0);
        return hit;
      }),
    );
    sdks.push(await measure(() => sdkGets(s, key)));
    report(
      `  round ${i + 1}: GET markdown ${hits[i]!.rps.toFixed(0)} req/s (main thread ${hits[i]!.cpuUs.toFixed(0)} µs, ` +
        `${store.name} ${hits[i]!.storeUs.toFixed(0)} µs CPU/request), SDK GetObject ${sdks[i]!.rps.toFixed(0)} req/s ` +
        `(${sdks[i]!.cpuUs.toFixed(0)} µs, ${store.name} ${sdks[i]!.storeUs.toFixed(0)} µs CPU/request); load average ${loadAverage()}`,
    );
  }
  const m = (rounds: Round[], f: (r: Round) => number) => median(rounds.map(f));
  const figures: HitFigures = {
    ratio: m(hits, (r) => r.rps) / m(sdks, (r) => r.rps),
    hitRps: m(hits, (r) => r.rps),
    sdkRps: m(sdks, (r) => r.rps),
    hitCpu: m(hits, (r) => r.cpuUs),
    sdkCpu: m(sdks, (r) => r.cpuUs),
    storeHitCpu: m(hits, (r) => r.storeUs),
    storeSdkCpu: m(sdks, (r) => r.storeUs),
  };
  report(
    `cache-hit GET markdown on ${store.name}: ${figures.hitRps.toFixed(0)} req/s (median of ${HIT_ROUNDS}); SDK GetObject: ` +
      `${figures.sdkRps.toFixed(0)} req/s; ratio ${figures.ratio.toFixed(2)} (target ≥ 0.95: ${verdict(figures.ratio >= 0.95)}); ` +
      `main-thread CPU per request ${figures.hitCpu.toFixed(0)} µs vs ${figures.sdkCpu.toFixed(0)} µs; ` +
      `${store.name}'s CPU per request ${figures.storeHitCpu.toFixed(0)} µs vs ${figures.storeSdkCpu.toFixed(0)} µs`,
  );
  return figures;
}

/** Converts paper `id` to markdown on `s` and waits until its markdown is served (a cache hit from then on). */
async function storedMarkdown(s: AccessServer, id: string): Promise<string> {
  addPaper(d.arxiv, id);
  await s.get(`/api/papers/${id}v1/markdown`);
  await until('the markdown', async () => (await s.get(`/api/papers/${id}v1/markdown`)).status === 200, 30_000, 50);
  return `${s.url}/api/papers/${id}v1/markdown`;
}

/**
 * What serving the GetObject over HTTP costs without pksd: a bare Fastify route answering the same object from the
 * same store through the same SDK client, its body piped (`stream`) or read whole and sent as one buffer (`buffer`);
 * main-thread CPU per request, median of `ROUNDS` alternating. pksd's hit minus the matching bare route is pksd's
 * own work (routing over its routes, hooks, guard, id resolution, headers).
 */
async function bareHits(s: AccessServer, key: string): Promise<void> {
  const clients = createS3Clients(s.config.objectStore!, null);
  const Bucket = s.config.objectStore!.buckets.markdown;
  const bare = Fastify();
  bare.get('/stream', async (_req, reply) => {
    const r = await clients.internal.send(new GetObjectCommand({ Bucket, Key: key }));
    reply.header('Content-Type', r.ContentType).header('Content-Length', String(r.ContentLength));
    return reply.send(r.Body);
  });
  bare.get('/buffer', async (_req, reply) => {
    const r = await clients.internal.send(new GetObjectCommand({ Bucket, Key: key }));
    const body = Buffer.from(await r.Body!.transformToByteArray());
    return reply.header('Content-Type', r.ContentType).send(body);
  });
  await bare.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(bare.server.address() as { port: number }).port}`;
  try {
    const cpu: Record<'stream' | 'buffer', number[]> = { stream: [], buffer: [] };
    for (let i = 0; i < ROUNDS; i++) {
      for (const mode of ['stream', 'buffer'] as const) {
        const r = await withCpu(() => runLoad({ ...LOAD, urls: [`${base}/${mode}`] }));
        expect(r.errors + r.non2xx).toBe(0);
        cpu[mode].push(r.cpuUs);
      }
    }
    report(
      `  bare Fastify route + SDK GetObject on the stand-in store, main-thread CPU per request (median of ${ROUNDS}): ` +
        `body piped ${median(cpu.stream).toFixed(0)} µs, sent as one buffer ${median(cpu.buffer).toFixed(0)} µs; ` +
        `load average ${loadAverage()}`,
    );
  } finally {
    await bare.close();
    clients.destroy();
  }
}

/**
 * With `ACCESS_BENCH_CPU_PROFILE=<file>`: one more round of cache hits on the stand-in store under the inspector's
 * sampling profiler (this thread: the server and its SDK calls; 100 µs), written to `<file>` (a .cpuprofile).
 */
async function profiledHits(url: string, file: string): Promise<void> {
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 100 });
    await session.post('Profiler.start');
    const hit = await runLoad({ ...LOAD, urls: [url], headers: AUTH });
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(file, JSON.stringify(profile));
    report(`  profiled round: ${hit.requests} hits, profile in ${file}`);
  } finally {
    session.disconnect();
  }
}

/**
 * The comparison with moto taken out: a second pksd whose store is the stand-in (forwarding to moto while the
 * markdown is converted and read once, then replaying the recorded GETs), against the SDK on the same stand-in.
 */
async function withoutMoto(): Promise<void> {
  const standIn = await startStandIn(moto.endpoint);
  const s2 = await startAccessServer(accessEnv(d), { moto: { ...moto, endpoint: standIn.endpoint } });
  try {
    const url = await storedMarkdown(s2, '2509.00003');
    await sdkGets(s2, '2509/2509.00003v1.md');
    await fetch(`${standIn.endpoint}/__stand-in/replay`);
    await compareHits(s2, url, '2509/2509.00003v1.md', { name: 'stand-in store', pid: standIn.child.pid! });
    await bareHits(s2, '2509/2509.00003v1.md');
    if (process.env.ACCESS_BENCH_CPU_PROFILE) await profiledHits(url, process.env.ACCESS_BENCH_CPU_PROFILE);
    const stats = (await (await fetch(`${standIn.endpoint}/__stand-in/stats`)).json()) as { forwarded: number };
    report(`  stand-in store: ${JSON.stringify(stats)} (forwarded: requests moto answered while replaying)`);
  } finally {
    await s2.close();
    standIn.child.stdin!.end();
    standIn.child.kill();
  }
}

test('cache-hit markdown vs direct S3 GetObject; status poll vs bare Fastify', async () => {
  const s = await startAccessServer(accessEnv(d), { moto });
  try {
    const url = await storedMarkdown(s, '2509.00001');
    const viaMoto = await compareHits(s, url, '2509/2509.00001v1.md', {
      name: 'moto',
      pid: childOnPort(moto.endpoint),
    });
    recordTarget(
      'markdown',
      `${viaMoto.ratio.toFixed(2)} (median of ${HIT_ROUNDS}; ${viaMoto.hitRps.toFixed(0)} vs ${viaMoto.sdkRps.toFixed(0)} req/s; ` +
        `moto CPU ${viaMoto.storeHitCpu.toFixed(0)} vs ${viaMoto.storeSdkCpu.toFixed(0)} µs/request)`,
      viaMoto.ratio >= 0.95,
    );
    await withoutMoto();

    addPaper(d.arxiv, '2509.00002');
    d.mineru.frozen = true;
    await s.get('/api/papers/2509.00002v1/markdown');
    const statusUrl = `${s.url}/api/papers/2509.00002v1/markdown/status`;
    await until(
      'the conversion to run',
      async () => (await (await fetch(statusUrl, { headers: AUTH })).json()).phase === 'converting_md',
    );
    const snapshot = await (await fetch(statusUrl, { headers: AUTH })).text();
    const poll = await best(() => runLoad({ ...LOAD, urls: [statusUrl], headers: AUTH }));
    const bare = Fastify();
    bare.get('/status', async (_req, reply) => reply.type('application/json; charset=utf-8').send(snapshot));
    await bare.listen({ host: '127.0.0.1', port: 0 });
    const bareUrl = `http://127.0.0.1:${(bare.server.address() as { port: number }).port}/status`;
    const base = await best(() => runLoad({ ...LOAD, urls: [bareUrl] }));
    await bare.close();
    d.mineru.frozen = false;
    const pollRatio = poll.rps / base.rps;
    report(
      `status poll: ${poll.rps.toFixed(0)} req/s (p99 ${poll.p99Ms.toFixed(1)} ms); bare Fastify: ${base.rps.toFixed(0)} req/s; ` +
        `ratio ${pollRatio.toFixed(2)} (target ≥ 0.6: ${verdict(pollRatio >= 0.6)})`,
    );
  } finally {
    await s.close();
  }
});

test('1,000 markdown jobs queued: RSS growth and status p99', async () => {
  // The default poll interval: the 4 running conversions poll the (in-process) parser double every 3 s.
  const s = await startAccessServer({ ...accessEnv(d), PARSER_MAX_CONCURRENT_JOBS: '4', PARSER_POLL_INTERVAL: '3' });
  try {
    const ids = Array.from({ length: JOBS }, (_, i) => `2510.${String(i + 1).padStart(5, '0')}`);
    for (const id of ids) addPaper(d.arxiv, id);
    d.mineru.frozen = true;
    globalThis.gc?.();
    const before = rssMiB();
    for (let i = 0; i < ids.length; i += 50) {
      await Promise.all(ids.slice(i, i + 50).map((id) => s.get(`/api/papers/${id}v1/markdown`)));
    }
    await until(
      'every job to wait for or hold a parser slot',
      () => {
        const c = s.access.counters();
        return c.inflight_jobs === JOBS && s.access.engine.jobCounts().queued === JOBS - 4;
      },
      300_000,
      200,
    );
    globalThis.gc?.();
    const growth = rssMiB() - before;
    const urls = ids.map((id) => `${s.url}/api/papers/${id}v1/markdown/status`);
    let load: LoadResult | null = null;
    for (let i = 0; i < ROUNDS; i++) {
      const r = await runLoad({ ...LOAD, urls, headers: AUTH });
      expect(r.errors + r.non2xx).toBe(0);
      if (!load || r.p99Ms < load.p99Ms) load = r;
    }
    report(
      `${JOBS} jobs queued: RSS growth ${growth.toFixed(1)} MiB (target < 100 MiB: ${verdict(growth < 100)}); ` +
        `status over all jobs (best of ${ROUNDS}) ${load!.rps.toFixed(0)} req/s, p50 ${load!.p50Ms.toFixed(2)} ms, ` +
        `p99 ${load!.p99Ms.toFixed(2)} ms (target p99 < 20 ms: ${verdict(load!.p99Ms < 20)}); ` +
        `load average ${loadAverage()}`,
    );
  } finally {
    d.mineru.frozen = false;
    await s.stop();
    await s.close();
  }
});
