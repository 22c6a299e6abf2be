/**
 * Paper registry reads benchmark (run: `npx vitest run --config bench/support/vitest.config.ts registry`; see
 * bench/README.md). Each figure beside its baseline in the same run:
 *
 * 1. `GET /api/papers` over 100,000 stored papers, a page of 20 (random pages; with and without `q`, and a
 *    `has_md` filter): the index's kept orders against sorting and filtering all rows per request (the service),
 *    then the HTTP route against a bare Fastify route answering a body of the same size. Target p99 < 20 ms.
 * 2. `GET /api/papers/status/batch` of 200 ids (versioned, versionless, DOIs, unknown) over the same index, against
 *    the bare route. Target p99 < 50 ms.
 * 3. Figures of a 60-figure paper: `extractFigures` alone, and `GET /api/papers/{id}/figures` against the bare
 *    route. Target < 20 ms (p99).
 * 4. `GET /api/papers/{id}/images/zip` of 40 × 4 MiB images: throughput against reading the same files, and the
 *    server's RSS growth while streaming (the zip is never held in memory). No contract target; RSS should stay
 *    well under the zip's size.
 * Targets are reported, not asserted; the run fails only on wrong answers.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import Fastify from 'fastify';
import { afterAll, beforeAll, expect, test } from 'vitest';
import pino from 'pino';
import { extractFigures } from '../src/server/papers/figures.js';
import { imagesZip } from '../src/server/papers/images-zip.js';
import { storedImages, storedMarkdown } from '../src/server/papers/paper-images.js';
import { encodeTableSync } from '../src/server/papers/index/encoder.js';
import type { IndexTable } from '../src/server/papers/index/table.js';
import { PaperIndex } from '../src/server/papers/paper-index.js';
import { PaperListService, type PaperListQuery } from '../src/server/papers/paper-list.js';
import { parseVersionedId } from '../src/shared/ids.js';
import { mulberry32 } from '../test/support/random.js';
import { startTestServer, type TestServer } from '../test/support/server.js';
import { sixtyFigurePaper } from '../test/server/papers/figures-corpus.js';
import { storePaper } from '../test/server/papers/registry-support.js';
import { peakRssMiB } from './support/load.js';
import { generateTable } from './support/papers-index-gen.js';
import { machine, MiB, mib, ms, percentile, report, summary, timeCalls, verdict } from './support/papers-util.js';

const ROWS = 100_000;
const PAT = 'r'.repeat(24);
const AUTH = { Authorization: `Bearer ${PAT}` };
const quiet = pino({ level: 'silent' });
const rng = mulberry32(11);
const pick = <T>(items: readonly T[]) => items[Math.floor(rng() * items.length)]!;

let table: IndexTable;
let server: TestServer;
let base: string;

/** A bare Fastify route answering `body` (JSON): the floor of an HTTP answer of that size on this machine. */
async function bare(body: string): Promise<{ url: string; close(): Promise<void> }> {
  const app = Fastify();
  app.get('/bare', async (_request, reply) => reply.type('application/json; charset=utf-8').send(body));
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { url: `http://127.0.0.1:${(app.server.address() as { port: number }).port}/bare`, close: () => app.close() };
}

/** Sequential GETs of `paths()` (one per call): per-request latency, not throughput under load. */
async function httpTimes(n: number, next: () => string, base = server.url): Promise<number[]> {
  return timeCalls(n, async () => {
    const res = await fetch(base + next(), { headers: AUTH });
    if (res.status !== 200) throw new Error(`${next()}: ${res.status}`);
    await res.arrayBuffer();
  });
}

beforeAll(async () => {
  report(`registry benchmark: ${ROWS} stored papers; ${machine()}`);
  table = generateTable(ROWS, 3);
  // Every 10th paper has a DOI (the status/batch DOIs resolve through the index's doi column).
  for (let i = 0; i < ROWS; i += 10) table.setText(i, 'doi', `10.5555/bench.${i}`);
  base = await mkdtemp(path.join(os.tmpdir(), 'pks-registry-bench-'));
  const raw = path.join(base, 'raw');
  await mkdir(path.join(raw, 'index'), { recursive: true });
  await writeFile(path.join(raw, 'index', 'papers.parquet'), encodeTableSync(table));
  server = await startTestServer({ SVC_RAW_DIR: raw, SVC_SYSTEM_PAT: PAT, SVC_LOG_LEVEL: 'error' });
});
afterAll(async () => {
  await server?.close();
  await rm(base, { recursive: true, force: true });
  report(`peak RSS of the benchmark process: ${peakRssMiB().toFixed(0)} MiB`);
});

test('GET /api/papers: a page of 20 over 100,000 stored papers', async () => {
  const index = new PaperIndex(quiet, { load: async () => table } as never);
  await index.load();
  const service = new PaperListService(index);
  const query = (q: string | null, hasMd: boolean | null = null): PaperListQuery => ({
    q,
    hasMd,
    hasPdf: null,
    sort: 'updated_at',
    page: 1 + Math.floor(rng() * 50),
    perPage: 20,
  });
  /**
   * The baseline: what a list without kept orders does — filter the columns and sort the matching row numbers per
   * request (the same columns and lower-cased text, so only the ordering strategy differs).
   */
  const lowerIds = table.ids.map((id) => id.toLowerCase());
  const lowerTitles = table.text.title.map((t) => t?.toLowerCase() ?? null);
  const updatedAt = table.times.updated_at;
  const naive = (p: PaperListQuery) => {
    const needle = p.q?.toLowerCase() ?? '';
    const rows: number[] = [];
    for (let i = 0; i < table.length; i++) {
      if (p.hasMd !== null && (table.flags.has_md[i] === 1) !== p.hasMd) continue;
      if (needle && !lowerIds[i]!.includes(needle) && !lowerTitles[i]?.includes(needle)) continue;
      rows.push(i);
    }
    rows.sort((a, b) => updatedAt[b]! - updatedAt[a]! || (table.ids[a]! < table.ids[b]! ? -1 : 1));
    return rows.slice((p.page - 1) * p.perPage, p.page * p.perPage);
  };
  const t0 = performance.now();
  service.page(query(null));
  report(`first list request after a load (builds the kept orders): ${ms(performance.now() - t0)}`);
  const terms = ['topic 42', 'TOPIC 9', '2403.', 'nothing-matches', 'v1', 'generated'];
  for (const [name, make] of [
    ['no filter', () => query(null)],
    ['q (title or id)', () => query(pick(terms))],
    ['has_md=true', () => query(null, true)],
  ] as const) {
    const kept = await timeCalls(500, () => service.page(make()));
    const sorted = await timeCalls(30, () => naive(make()), 3);
    const ratio = percentile(sorted, 0.5) / percentile(kept, 0.5);
    report(
      `service page, ${name}: ${summary(kept)}; filtering and sorting the rows per request: ${summary(sorted)}; ` +
        `ratio of p50 ${ratio.toFixed(1)}`,
    );
  }
  expect(service.page({ ...query(null), page: 1 }).total).toBe(ROWS);

  const sample = await (await fetch(`${server.url}/api/papers?per_page=20`, { headers: AUTH })).text();
  expect((JSON.parse(sample) as { total: number }).total).toBe(ROWS);
  const floor = await bare(sample);
  try {
    const floorTimes = await httpTimes(500, () => '', floor.url);
    for (const [name, next] of [
      ['no q', () => `/api/papers?page=${1 + Math.floor(rng() * 5000)}`],
      ['with q', () => `/api/papers?q=${encodeURIComponent(pick(terms))}&page=${1 + Math.floor(rng() * 3)}`],
      ['has_md=true&sort=id', () => `/api/papers?has_md=true&sort=id&page=${1 + Math.floor(rng() * 100)}`],
    ] as const) {
      const times = await httpTimes(500, next);
      report(
        `HTTP GET /api/papers (${name}): ${summary(times)} — target p99 < 20 ms: ${verdict(
          percentile(times, 0.99) < 20,
        )}; bare Fastify, same body size: ${summary(floorTimes)}`,
      );
    }
  } finally {
    await floor.close();
  }
});

test('GET /api/papers/status/batch of 200 ids', async () => {
  const ids = Array.from({ length: 200 }, (_, k) => {
    const i = Math.floor(rng() * ROWS);
    const id = table.ids[i]!;
    switch (k % 5) {
      case 0:
        return id.replace(/v\d+$/, '');
      case 1:
        return `10.5555/bench.${Math.floor(i / 10) * 10}`;
      case 2:
        return `2512.${String(90000 + k)}v1`;
      default:
        return id;
    }
  });
  const path1 = `/api/papers/status/batch?ids=${encodeURIComponent(ids.join(','))}`;
  const body = await (await fetch(server.url + path1, { headers: AUTH })).text();
  const results = (JSON.parse(body) as { results: { error: string }[] }).results;
  expect(results).toHaveLength(200);
  expect(results.filter((r) => r.error !== '')).toHaveLength(0);
  const floor = await bare(body);
  try {
    const times = await httpTimes(300, () => path1);
    const floorTimes = await httpTimes(300, () => '', floor.url);
    report(
      `HTTP GET status/batch (200 ids: versioned, versionless, DOIs, unknown): ${summary(times)} — target p99 < 50 ms: ${verdict(
        percentile(times, 0.99) < 50,
      )}; bare Fastify, same body: ${summary(floorTimes)}; ratio of p50 ${(
        percentile(times, 0.5) / percentile(floorTimes, 0.5)
      ).toFixed(1)}`,
    );
  } finally {
    await floor.close();
  }
});

test('figures of a 60-figure paper', async () => {
  const { markdown, images } = sixtyFigurePaper();
  const url = (name: string) => `/api/papers/2512.99999v1/images/${name}`;
  const pure = await timeCalls(1000, () => extractFigures(markdown, images, url));
  expect(extractFigures(markdown, images, url).figures).toHaveLength(60);
  report(
    `extractFigures (${(markdown.length / 1024).toFixed(0)} KiB markdown, 60 figures, ${images.length} images): ${summary(
      pure,
    )} — target < 20 ms: ${verdict(percentile(pure, 0.99) < 20)}`,
  );
  const files = Object.fromEntries(images.map((image) => [image.name, Buffer.alloc(image.size, 1)]));
  await storePaper({ fetch: server.fetch, auth: AUTH }, '2512.99999v1', markdown, files);
  const body = await (await fetch(`${server.url}/api/papers/2512.99999v1/figures`, { headers: AUTH })).text();
  expect((JSON.parse(body) as { figures: unknown[] }).figures).toHaveLength(60);
  const floor = await bare(body);
  try {
    const times = await httpTimes(300, () => '/api/papers/2512.99999v1/figures');
    const floorTimes = await httpTimes(300, () => '', floor.url);
    const id = parseVersionedId('2512.99999v1')!;
    const papers = server.server.papers;
    const reads = await timeCalls(300, () => Promise.all([storedMarkdown(papers, id), storedImages(papers, id)]));
    report(
      `HTTP GET figures (markdown read + image listing + extract): ${summary(times)} — target < 20 ms: ${verdict(
        percentile(times, 0.99) < 20,
      )}; bare Fastify, same body: ${summary(floorTimes)}; the store reads alone (markdown + listing of ` +
        `${images.length} images): ${summary(reads)}`,
    );
  } finally {
    await floor.close();
  }
});

test('images/zip of 40 × 4 MiB images: streamed', async () => {
  const count = 40;
  const size = 4 * MiB;
  const files: Record<string, Buffer> = {};
  // Incompressible bytes: the upload refuses a bundle whose compression ratio looks like a zip bomb.
  for (let k = 0; k < count; k++) files[`img${String(k).padStart(2, '0')}.png`] = randomBytes(size);
  await storePaper({ fetch: server.fetch, auth: AUTH }, '2512.99998v1', 'images\n', files);
  const imageDir = path.join(server.config.rawDir, 'images', '2512', '2512.99998v1');
  const names = Object.keys(files).sort();

  /** Best of 3 downloads of `url`: time, and the process's RSS growth while receiving (sampled per MiB). */
  const download = async (url: string, headers: Record<string, string>) => {
    let best = Infinity;
    let growth = 0;
    for (let round = 0; round < 3; round++) {
      globalThis.gc?.();
      const before = process.memoryUsage.rss();
      let peak = before;
      const t0 = performance.now();
      const res = await fetch(url, { headers });
      expect(res.status).toBe(200);
      let received = 0;
      let sampled = 0;
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        received += chunk.length;
        if (received - sampled >= MiB) {
          sampled = received;
          peak = Math.max(peak, process.memoryUsage.rss());
        }
      }
      best = Math.min(best, performance.now() - t0);
      growth = Math.max(growth, peak - before);
      expect(received).toBeGreaterThanOrEqual(count * size);
    }
    return { ms: best, growth };
  };

  const zip = await download(`${server.url}/api/papers/2512.99998v1/images/zip`, AUTH);
  // The baseline: the same files streamed one after the other by a bare Fastify route (same transport, no zip).
  const app = Fastify();
  app.get('/files', async (_request, reply) => {
    async function* all() {
      for (const name of names) yield* createReadStream(path.join(imageDir, name));
    }
    return reply.type('application/octet-stream').send(Readable.from(all()));
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const files0 = await download(`http://127.0.0.1:${(app.server.address() as { port: number }).port}/files`, {});
  await app.close();
  // The server's side alone: the zip piped into a consumer that takes one chunk per event-loop turn; every 8 MiB a
  // full GC, then the live heap and buffers (what the zip holds, not garbage waiting for a collection).
  const live = () => {
    globalThis.gc?.();
    const m = process.memoryUsage();
    return m.heapUsed + m.arrayBuffers;
  };
  let serverGrowth = 0;
  for (let round = 0; round < 3; round++) {
    const before = live();
    let peak = before;
    let received = 0;
    const zip = await imagesZip(server.server.papers, parseVersionedId('2512.99998v1')!);
    await pipeline(
      zip.body,
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          received += chunk.length;
          if (received % (8 * MiB) < chunk.length) peak = Math.max(peak, live());
          setImmediate(done);
        },
      }),
    );
    expect(received).toBe(zip.size);
    serverGrowth = Math.max(serverGrowth, peak - before);
  }
  const total = count * size;
  const rate = (t: number) => `${(total / MiB / (t / 1000)).toFixed(0)} MiB/s`;
  report(
    `HTTP GET images/zip (${mib(total)}): ${ms(zip.ms)} (${rate(zip.ms)}); the same files streamed by a bare ` +
      `Fastify route: ${ms(files0.ms)} (${rate(files0.ms)}); ratio ${(files0.ms / zip.ms).toFixed(2)}; RSS growth ` +
      `during the download ${mib(zip.growth)} (bare route ${mib(files0.growth)}; client and server share the process)`,
  );
  report(
    `images/zip into a slow consumer (the server's side alone): live heap + buffers grow ${mib(serverGrowth)} at ` +
      `most for a ${mib(total)} zip — streamed, not buffered (< 16 MiB): ${verdict(serverGrowth < 16 * MiB)}`,
  );
});
