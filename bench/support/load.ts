/**
 * A small HTTP load loop for benchmarks (autocannon is not installed): `concurrency` keep-alive connections on a
 * worker thread (so the client does not share the server's event loop), bounded by a request count and a time.
 */
import { Worker } from 'node:worker_threads';

export interface LoadOptions {
  /** Absolute URLs; request i goes to urls[i % urls.length]. */
  readonly urls: readonly string[];
  readonly headers?: Record<string, string>;
  readonly concurrency: number;
  readonly maxRequests: number;
  readonly maxMs: number;
}

export interface LoadResult {
  readonly requests: number;
  readonly errors: number;
  readonly non2xx: number;
  readonly elapsedMs: number;
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly bytes: number;
}

// Plain JavaScript run with `eval: true` (CommonJS), so no TypeScript loader is needed in the worker.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const { urls, headers, concurrency, maxRequests, maxMs } = workerData;
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
const lat = [];
let next = 0, done = 0, errors = 0, non2xx = 0, bytes = 0;
const start = performance.now();
function one() {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const req = http.get(urls[next++ % urls.length], { agent, headers }, (res) => {
      if (res.statusCode < 200 || res.statusCode >= 300) non2xx++;
      res.on('data', (c) => (bytes += c.length));
      res.on('end', () => { lat.push(performance.now() - t0); done++; resolve(); });
    });
    req.on('error', () => { errors++; done++; resolve(); });
  });
}
async function loop() {
  while (next < maxRequests && performance.now() - start < maxMs) await one();
}
Promise.all(Array.from({ length: concurrency }, loop)).then(() => {
  const elapsedMs = performance.now() - start;
  lat.sort((a, b) => a - b);
  const q = (p) => lat.length ? lat[Math.min(lat.length - 1, Math.floor(p * lat.length))] : 0;
  agent.destroy();
  parentPort.postMessage({ requests: done, errors, non2xx, elapsedMs, rps: (done / elapsedMs) * 1000, p50Ms: q(0.5), p99Ms: q(0.99), bytes });
});
`;

export function runLoad(options: LoadOptions): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER, {
      eval: true,
      workerData: { ...options, urls: [...options.urls], headers: options.headers ?? {} },
    });
    worker.once('message', (result: LoadResult) => {
      void worker.terminate();
      resolve(result);
    });
    worker.once('error', reject);
  });
}

/** Percentile (0..1) of a sorted list. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

/** Median of an unsorted list. */
export const median = (values: readonly number[]): number =>
  percentile(
    [...values].sort((a, b) => a - b),
    0.5,
  );

/** Peak resident set size of this process so far, in MiB. */
export function peakRssMiB(): number {
  return process.resourceUsage().maxRSS / 1024;
}

/**
 * CPU time (user + system, µs) of the calling thread so far: `process.threadCpuUsage` (Node ≥ 23.9, not yet in the
 * installed @types/node). The server's side of an in-process benchmark, whose load runs on a worker thread.
 */
export function threadCpuMicros(): number {
  const usage = (process as unknown as { threadCpuUsage(): NodeJS.CpuUsage }).threadCpuUsage();
  return usage.user + usage.system;
}
