/**
 * Helpers of the paper benchmarks (`bench/papers-*.bench.ts`): figures, RSS sampling of a child process,
 * streamed multipart uploads, big test files.
 */
import { randomFillSync } from 'node:crypto';
import { createReadStream, openSync, closeSync, writeSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import { pipeline } from 'node:stream/promises';

export const MiB = 1024 * 1024;

export const lines: string[] = [];
export function report(line: string): void {
  lines.push(line);
  console.log(line);
}

export const ms = (v: number) => `${v.toFixed(v < 10 ? 3 : 1)} ms`;
export const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;
export const verdict = (ok: boolean) => (ok ? 'meets target' : 'MISSES target');

/** The 1, 5 and 15 minute load averages, e.g. `1.3 2.0 2.1`. */
export const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

/** The header line of a benchmark's output: Node, CPUs and load, which the figures depend on. */
export function machine(): string {
  return `node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), load average ${loadAverage()}`;
}

/** The q-quantile (0..1) of `values` (nearest rank). */
export function percentile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
}

/** Times `fn` `n` times (after `warmup` untimed calls); returns the per-call durations in ms. */
export async function timeCalls(n: number, fn: () => unknown, warmup = Math.min(100, n)): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn();
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    out.push(performance.now() - t0);
  }
  return out;
}

export const summary = (d: readonly number[]) =>
  `p50 ${ms(percentile(d, 0.5))}, p99 ${ms(percentile(d, 0.99))}, max ${ms(Math.max(...d))}`;

/** `VmRSS` / `VmHWM` of a process in bytes (Linux `/proc/<pid>/status`). */
export async function procMemory(pid: number): Promise<{ rss: number; hwm: number }> {
  const text = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

/** Samples a process's RSS every `everyMs` until stopped; resolves to the peak seen. */
export function sampleRss(pid: number, everyMs = 10): { stop(): Promise<number> } {
  let peak = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      try {
        peak = Math.max(peak, (await procMemory(pid)).rss);
      } catch {
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return peak;
    },
  };
}

/** Writes `size` bytes starting with `%PDF-1.7` and otherwise random (incompressible) to `file`. */
export function writePdfFile(file: string, size: number): void {
  const fd = openSync(file, 'w');
  try {
    const chunk = Buffer.alloc(MiB);
    for (let written = 0; written < size;) {
      randomFillSync(chunk);
      if (written === 0) Buffer.from('%PDF-1.7\n').copy(chunk);
      const n = Math.min(chunk.length, size - written);
      writeSync(fd, chunk, 0, n);
      written += n;
    }
  } finally {
    closeSync(fd);
  }
}

/** Streams `file` as the `pdf` part of a multipart POST (known Content-Length); resolves to status and body. */
export async function streamUpload(
  url: string,
  headers: Record<string, string>,
  file: string,
  size: number,
): Promise<{ status: number; body: string }> {
  const boundary = '----pks-bench-upload';
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="pdf"; filename="paper.pdf"\r\n` +
      `Content-Type: application/pdf\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: target.hostname,
        port: target.port,
        method: 'POST',
        path: target.pathname + target.search,
        headers: {
          ...headers,
          'Content-Type': `multipart/form-data; boundary=${boundary}`,
          'Content-Length': String(head.length + size + tail.length),
        },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', reject);
      },
    );
    request.on('error', reject);
    request.write(head);
    pipeline(createReadStream(file, { highWaterMark: MiB }), request, { end: false })
      .then(() => request.end(tail))
      .catch(reject);
  });
}
