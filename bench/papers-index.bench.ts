/**
 * Index benchmark (run: `npx vitest run --config bench/support/vitest.config.ts index`).
 *
 * Generates a realistic 2.6M-row `index/papers.parquet` (CONTRACT §4.1) in a local raw dir, loads it through the
 * real catalog (`LocalObjectStore` → `StoreIndexPersistence` → `PaperIndex`) and times the service calls behind
 * `GET /api/papers/stats` and `GET /api/papers/needs-parser` (target p50 < 2 ms), then the HTTP routes of an
 * in-process pksd on the same raw dir. Also prints the load time and the heap it takes, the write-through cost,
 * and a flush of the loaded index (encode in the worker thread + write) with the longest event-loop stall during
 * it (target: load < 15 s and < 1.5 GiB heap; flush < 30 s, no stall over ~50 ms). Needs `npm run build` first
 * (the encoder worker runs from dist/) and the 12 GiB heap of the papers config.
 */
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import v8 from 'node:v8';
import pino from 'pino';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Config } from '../src/server/config/types.js';
import { Catalog, PaperIndex } from '../src/server/papers/catalog.js';
import { FileClaimStore, type Claim, type ClaimStore } from '../src/server/papers/claims.js';
import { encodeTable } from '../src/server/papers/index/encoder.js';
import { StoreIndexPersistence } from '../src/server/papers/index-parquet.js';
import { PaperService } from '../src/server/papers/service.js';
import { Stager } from '../src/server/papers/staging.js';
import { LocalObjectStore } from '../src/server/storage/local-store.js';
import { requireUploadId } from '../src/shared/ids.js';
import { startTestServer } from '../test/support/server.js';
import { generateTable } from './support/papers-index-gen.js';
import { machine, mib, MiB, ms, percentile, report, summary, timeCalls, verdict } from './support/papers-util.js';

const ROWS = 2_600_000;
const CLAIMS = 20;
const PAT = 'i'.repeat(24);
const quiet = pino({ level: 'silent' });
const gc = (globalThis as { gc?: () => void }).gc;
const heapUsed = () => {
  gc?.();
  return process.memoryUsage().heapUsed;
};

let base: string;
beforeAll(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), 'pks-index-bench-'));
  report(`index benchmark: ${ROWS} rows; ${machine()}`);
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

/** Runs `fn` and reports the longest event-loop stall during it (ms). */
async function stalls<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number; maxStallMs: number }> {
  const h = monitorEventLoopDelay({ resolution: 5 });
  h.enable();
  const t0 = performance.now();
  const value = await fn();
  const elapsed = performance.now() - t0;
  h.disable();
  return { value, ms: elapsed, maxStallMs: h.max / 1e6 };
}

/** A claim store answering from memory: the needs-parser figure without claim-store I/O. */
function memoryClaims(claims: Map<string, Claim>): ClaimStore {
  return { active: async () => claims } as unknown as ClaimStore;
}

test('stats and needs-parser on a 2.6M-row index', async () => {
  const heapLimit = v8.getHeapStatistics().heap_size_limit;
  if (heapLimit < 8 * 1024 * MiB) {
    report(`skipped: heap limit ${mib(heapLimit)}; run with --config bench/support/vitest.config.ts`);
    return;
  }
  const raw = path.join(base, 'raw');
  const indexFile = path.join(raw, 'index', 'papers.parquet');

  // 1. Generate and encode (in the worker thread, as a flush does).
  {
    let t0 = performance.now();
    const table = generateTable(ROWS);
    const genMs = performance.now() - t0;
    t0 = performance.now();
    const encoded = await stalls(() => encodeTable(table));
    await mkdir(path.dirname(indexFile), { recursive: true });
    await writeFile(indexFile, encoded.value);
    report(
      `generated ${table.length} rows in ${ms(genMs)}; encodeTable ${ms(encoded.ms)} ` +
        `(longest event-loop stall ${ms(encoded.maxStallMs)}), ${mib(encoded.value.length)} Parquet`,
    );
  }
  expect((await stat(indexFile)).size).toBeGreaterThan(0);

  // 2. Load through the real catalog.
  const heap0 = heapUsed();
  const rss0 = process.memoryUsage().rss;
  const t0 = performance.now();
  const store = new LocalObjectStore(raw);
  const index = new PaperIndex(quiet, new StoreIndexPersistence(store, quiet), { flushDelayMs: 3_600_000 });
  await index.load();
  const loadMs = performance.now() - t0;
  const rssAfterLoad = process.memoryUsage().rss;
  const heap1 = heapUsed();
  expect(index.available).toBe(true);
  report(
    `load (read + decode + index + counters + needs-parser order): ${ms(loadMs)} — target < 15 s: ${verdict(
      loadMs < 15_000,
    )}; heap held ${mib(heap1 - heap0)} (${((heap1 - heap0) / ROWS).toFixed(0)} B/row) — target < 1.5 GiB: ${verdict(
      heap1 - heap0 < 1536 * MiB,
    )}; process RSS +${mib(rssAfterLoad - rss0)} right after load`,
  );
  const stats = index.stats();
  report(`stats: ${JSON.stringify({ ...stats, loaded_at: undefined })}`);

  // 3. Service calls.
  const candidates = [...index.needsParser()].slice(0, 1000);
  const claimMap = new Map<string, Claim>();
  const fileClaims = new FileClaimStore(path.join(base, 'parser-claims'));
  for (let i = 0; i < CLAIMS; i++) {
    const row = candidates[i * 7]!;
    const r = await fileClaims.acquire(requireUploadId(row.preprint_id), 'bench', 3600, new Date());
    if (r.ok) claimMap.set(row.preprint_id, r.claim);
  }
  const service = (claims: ClaimStore) =>
    new PaperService({
      config: {} as Config,
      logger: quiet,
      store,
      stager: new Stager(path.join(base, 'tmp')),
      catalog: new Catalog(index, null, quiet),
      claims,
    });
  const inMemory = service(memoryClaims(claimMap));
  const onFiles = service(fileClaims);

  const statsTimes = await timeCalls(5000, () => inMemory.stats());
  const needs100 = await timeCalls(2000, () => inMemory.needsParser(100, false));
  const needs100All = await timeCalls(2000, () => inMemory.needsParser(100, true));
  const needsFiles = await timeCalls(500, () => onFiles.needsParser(10, false));
  const sample = (await inMemory.needsParser(100, false)) as { total_claimed: number; returned: number };
  expect(sample.total_claimed).toBe(CLAIMS);
  expect(sample.returned).toBe(100);
  report(`service stats(): ${summary(statsTimes)} — target p50 < 2 ms: ${verdict(percentile(statsTimes, 0.5) < 2)}`);
  report(
    `service needsParser(limit 100, ${CLAIMS} claims in memory): ${summary(needs100)} — target p50 < 2 ms: ${verdict(
      percentile(needs100, 0.5) < 2,
    )}`,
  );
  report(`service needsParser(limit 100, include_claimed): ${summary(needs100All)}`);
  report(`service needsParser(limit 10, ${CLAIMS} claims in the file claim store): ${summary(needsFiles)}`);

  // 4. Write-through: an upload's row update keeps counters and order exact.
  const ids = candidates.slice(0, 1000).map((r) => requireUploadId(r.preprint_id));
  let k = 0;
  const updates = await timeCalls(
    1000,
    () => {
      const id = ids[k++ % ids.length]!;
      index.update(id, { has_md: true, md_uploaded_at: new Date(), image_count: 3 });
    },
    0,
  );
  report(`write-through update (counters + order): ${summary(updates)}`);
  const after = index.stats();
  expect(after.needs_parser).toBe((stats.needs_parser ?? 0) - 1000);

  // 5. A flush of the loaded index after those writes (§4.2): snapshot → worker encode → CAS write.
  const rssBefore = process.memoryUsage().rss;
  const flushed = await stalls(() => index.flush());
  expect(index.dirty).toBe(false);
  report(
    `flush (${ROWS} rows: snapshot + worker encode + write): ${ms(flushed.ms)} — target < 30 s: ${verdict(
      flushed.ms < 30_000,
    )}; longest event-loop stall ${ms(flushed.maxStallMs)} — target ~50 ms: ${verdict(flushed.maxStallMs < 60)}; ` +
      `RSS after ${mib(process.memoryUsage().rss)} (+${mib(process.memoryUsage().rss - rssBefore)})`,
  );

  // 6. HTTP routes of an in-process pksd loading the same index.
  const t1 = performance.now();
  const server = await startTestServer({ SVC_RAW_DIR: raw, SVC_SYSTEM_PAT: PAT });
  const startMs = performance.now() - t1;
  try {
    const auth = { headers: { Authorization: `Bearer ${PAT}` } };
    const get = async (p: string) => {
      const res = await server.fetch(p, auth);
      if (res.status !== 200) throw new Error(`${p}: ${res.status}`);
      return res.json() as Promise<Record<string, unknown>>;
    };
    expect((await get('/api/papers/stats'))['total']).toBe(ROWS);
    const httpStats = await timeCalls(1000, () => get('/api/papers/stats'));
    const httpNeeds = await timeCalls(500, () => get('/api/papers/needs-parser?limit=100'));
    report(`in-process pksd start with this index: ${ms(startMs)}`);
    report(`HTTP GET /api/papers/stats: ${summary(httpStats)}`);
    report(`HTTP GET /api/papers/needs-parser?limit=100: ${summary(httpNeeds)}`);
  } finally {
    await server.close();
  }
});
