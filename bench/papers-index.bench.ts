/**
 * Index benchmark (run: `npm run build && npx vitest run --config bench/support/vitest.config.ts index`).
 *
 * Generates a realistic 2.6M-row `index/papers.parquet` (CONTRACT §4.1) in a local raw dir, then measures issue
 * 25's three index rows and records them (`recordTarget`):
 * - `index-start`: from spawning the built `pksd serve` on that raw dir until it answers
 *   `GET /api/papers/needs-parser?limit=1` (a request that needs the loaded index) — target < 2 s;
 * - `index-rss`: that serving process's RSS right after it answered — target < 200 MiB;
 * - `index-flush`: the longest event-loop stall (`monitorEventLoopDelay`) of this process while it flushes the
 *   loaded 2.6M-row index through the real catalog (the cold columns still in the file decoded slice by slice →
 *   snapshot → the worker thread encodes into a file → CAS publish) — < 10 ms.
 * Besides, it times the HTTP routes of the spawned pksd and, in process, the load, the service calls behind
 * `GET /api/papers/stats` and `GET /api/papers/needs-parser` (target p50 < 2 ms) and the write-through. Needs
 * `npm run build` first (the spawned pksd and the encoder worker run from dist/) and the 12 GiB heap of the bench
 * config.
 */
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
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
import { freePort } from '../test/support/free-port.js';
import { dirSettings, spawnPksd } from '../test/support/server.js';
import { generateTable } from './support/papers-index-gen.js';
import {
  loadAverage,
  machine,
  mib,
  MiB,
  ms,
  percentile,
  procMemory,
  report,
  summary,
  timeCalls,
  verdict,
} from './support/papers-util.js';
import { recordTarget } from './support/targets.js';

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
interface Stalls<T> {
  value: T;
  ms: number;
  maxStallMs: number;
  peakRss: number;
  /** The longest garbage collection of this thread meanwhile (`PerformanceObserver` 'gc'), and its kind. */
  longestGc: { ms: number; kind: string };
}

const GC_KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak callbacks',
};

async function stalls<T>(fn: () => Promise<T>): Promise<Stalls<T>> {
  const h = monitorEventLoopDelay({ resolution: 2 });
  h.enable();
  const longestGc = { ms: 0, kind: 'none' };
  const gcs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (e.duration <= longestGc.ms) continue;
      longestGc.ms = e.duration;
      longestGc.kind = GC_KINDS[(e as unknown as { detail?: { kind?: number } }).detail?.kind ?? 0] ?? 'other';
    }
  });
  gcs.observe({ entryTypes: ['gc'] });
  // The process's RSS (the encoder worker's memory included), sampled every 20 ms.
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);
  const t0 = performance.now();
  const value = await fn();
  const elapsed = performance.now() - t0;
  clearInterval(sampler);
  h.disable();
  gcs.disconnect();
  return { value, ms: elapsed, maxStallMs: h.max / 1e6, peakRss, longestGc };
}

/** A claim store answering from memory: the needs-parser figure without claim-store I/O. */
function memoryClaims(claims: Map<string, Claim>): ClaimStore {
  return { active: async () => claims } as unknown as ClaimStore;
}

/** User + system CPU time of process `pid` so far (`/proc/<pid>/stat`, in clock ticks of 10 ms). */
async function procCpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Polls `url` until it answers 200 (or the child ends, or `timeoutMs` passes); resolves to the answer's body. */
async function firstAnswer(
  url: string,
  init: RequestInit,
  child: ReturnType<typeof spawnPksd>,
  timeoutMs = 300_000,
): Promise<unknown> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`pksd did not answer ${url}: ${child.output().stderr.slice(-2000)}`);
    }
    try {
      const res = await fetch(url, init);
      if (res.status === 200) return await res.json();
      await res.body?.cancel();
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Generates the index and writes it into the local store at `raw` as the service writes it. */
async function writeGeneratedIndex(raw: string): Promise<void> {
  let t0 = performance.now();
  const table = generateTable(ROWS);
  const genMs = performance.now() - t0;
  t0 = performance.now();
  // Encoded into the store's temp area, then `writeIndexFile` (a rename, and the sha256 sidecar).
  const store = new LocalObjectStore(raw);
  await store.writeIndexFile(await encodeTable(table, await store.indexTempPath()), null);
  report(`generated ${table.length} rows in ${ms(genMs)}; encodeTable ${ms(performance.now() - t0)}`);
}

test('pksd serve start, RSS and flush stall with a 2.6M-row index', async () => {
  const heapLimit = v8.getHeapStatistics().heap_size_limit;
  if (heapLimit < 8 * 1024 * MiB) {
    report(`skipped: heap limit ${mib(heapLimit)}; run with --config bench/support/vitest.config.ts`);
    return;
  }
  const raw = path.join(base, 'raw');
  const indexFile = path.join(raw, 'index', 'papers.parquet');

  // 1. Generate and encode; the generated table is garbage before anything is measured (its heap would otherwise
  // lengthen every collection of this process, the flush's stalls included). In a function of its own: a block of
  // this async function would keep it alive in the function's context across the awaits (361 MiB of heap).
  await writeGeneratedIndex(raw);
  const fileSize = (await stat(indexFile)).size;
  report(`index/papers.parquet: ${mib(fileSize)} (${(fileSize / ROWS).toFixed(0)} B/row)`);
  heapUsed();

  // 2. `pksd serve` (the built program) on that raw dir: spawn → first answer of a request that needs the index.
  const auth = { headers: { Authorization: `Bearer ${PAT}` } };
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const load0 = loadAverage();
  const t0 = performance.now();
  const server = spawnPksd(
    ['serve'],
    { HOME: base, ...dirSettings(base), SVC_HTTP_ADDR: `127.0.0.1:${port}`, SVC_SYSTEM_PAT: PAT },
    base,
  );
  try {
    const first = (await firstAnswer(`${url}/api/papers/needs-parser?limit=1`, auth, server)) as { returned: number };
    const startMs = performance.now() - t0;
    const pid = server.child.pid!;
    const mem = await procMemory(pid);
    const cpuMs = await procCpuMs(pid);
    expect(first.returned).toBe(1);
    const startOk = startMs < 2_000;
    const rssOk = mem.rss < 200 * MiB;
    report(
      `pksd serve start (spawn → first answer of GET /api/papers/needs-parser?limit=1): ${ms(startMs)} — ` +
        `target < 2 s: ${verdict(startOk)}; its CPU ${ms(cpuMs)} (load average ${load0} → ${loadAverage()})`,
    );
    report(
      `pksd serve RSS right after start: ${mib(mem.rss)} (peak during start ${mib(mem.hwm)}) — target < 200 MiB: ${verdict(rssOk)}`,
    );
    recordTarget(
      'index-start',
      `${(startMs / 1000).toFixed(2)} s (spawn → first needs-parser answer; CPU ${(cpuMs / 1000).toFixed(2)} s)`,
      startOk,
    );
    recordTarget('index-rss', `${mib(mem.rss)} after start (peak ${mib(mem.hwm)})`, rssOk);

    const get = async (p: string) => {
      const res = await fetch(url + p, auth);
      if (res.status !== 200) throw new Error(`${p}: ${res.status}`);
      return res.json() as Promise<Record<string, unknown>>;
    };
    expect((await get('/api/papers/stats'))['total']).toBe(ROWS);
    // The first full page after the start reads ~100 candidates spread over most of the row groups.
    const firstPageAt = performance.now();
    await get('/api/papers/needs-parser?limit=100');
    report(
      `HTTP GET /api/papers/needs-parser?limit=100, the first after start: ${ms(performance.now() - firstPageAt)}; ` +
        `pksd RSS then ${mib((await procMemory(pid)).rss)}`,
    );
    // The first DOI lookup and the first list page read one or a few cold columns of every row (issue 25, session
    // 15: they decoded every column before, ~9 s and +760 MiB for the lookup).
    for (const [what, p] of [
      ['DOI lookup (GET /api/papers/lookup?ids=doi:…)', '/api/papers/lookup?ids=doi:10.1000/none'],
      ['list page (GET /api/papers?per_page=10)', '/api/papers?per_page=10'],
    ] as const) {
      const at = performance.now();
      await get(p);
      report(
        `HTTP ${what}, the first: ${ms(performance.now() - at)}; pksd RSS then ${mib((await procMemory(pid)).rss)}`,
      );
    }
    const httpStats = await timeCalls(1000, () => get('/api/papers/stats'));
    const httpNeeds = await timeCalls(500, () => get('/api/papers/needs-parser?limit=100'));
    report(`HTTP GET /api/papers/stats: ${summary(httpStats)}`);
    report(`HTTP GET /api/papers/needs-parser?limit=100: ${summary(httpNeeds)}`);
    report(`pksd serve RSS after those requests: ${mib((await procMemory(pid)).rss)}`);
  } finally {
    server.child.kill('SIGTERM');
    await server.done;
  }

  // 3. Load in this process through the real catalog.
  const heap0 = heapUsed();
  const rss0 = process.memoryUsage().rss;
  const l0 = performance.now();
  const store = new LocalObjectStore(raw);
  const index = new PaperIndex(quiet, new StoreIndexPersistence(store, quiet), { flushDelayMs: 3_600_000 });
  await index.load();
  const loadMs = performance.now() - l0;
  const rssAfterLoad = process.memoryUsage().rss;
  const heap1 = heapUsed();
  expect(index.available).toBe(true);
  report(
    `in-process load (open + hot columns + index + counters + needs-parser order): ${ms(loadMs)}; heap held ` +
      `${mib(heap1 - heap0)} (${((heap1 - heap0) / ROWS).toFixed(0)} B/row); process RSS +${mib(rssAfterLoad - rss0)}`,
  );
  const stats = index.stats();
  report(`stats: ${JSON.stringify({ ...stats, loaded_at: undefined })}`);

  // 4. Service calls.
  const candidates: string[] = [];
  for (const row of index.needsParser()) {
    candidates.push(row.preprint_id);
    if (candidates.length === 1000) break;
  }
  const claimMap = new Map<string, Claim>();
  const fileClaims = new FileClaimStore(path.join(base, 'parser-claims'));
  for (let i = 0; i < CLAIMS; i++) {
    const r = await fileClaims.acquire(requireUploadId(candidates[i * 7]!), 'bench', 3600, new Date());
    if (r.ok) claimMap.set(candidates[i * 7]!, r.claim);
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

  // 5. Write-through: an upload's row update keeps counters and order exact.
  const ids = candidates.map((id) => requireUploadId(id));
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
  expect(index.stats().needs_parser).toBe((stats.needs_parser ?? 0) - 1000);

  // 6. A flush of the loaded index after those writes (§4.2): snapshot → worker encode into a file → CAS publish.
  const rssBefore = process.memoryUsage().rss;
  const cpu0 = process.cpuUsage();
  const flushed = await stalls(() => index.flush());
  const cpu = process.cpuUsage(cpu0);
  expect(index.dirty).toBe(false);
  const flushOk = flushed.maxStallMs < 10;
  report(
    `flush (${ROWS} rows: typed cold columns decoded, text posted as the file's bytes, worker encode, write): ` +
      `${ms(flushed.ms)}, process CPU ` +
      `(main thread + encoder worker) ` +
      `${ms((cpu.user + cpu.system) / 1000)}; longest event-loop stall ${ms(flushed.maxStallMs)} — target < 10 ms: ` +
      `${verdict(flushOk)} (longest GC meanwhile: ${ms(flushed.longestGc.ms)}, ${flushed.longestGc.kind}); RSS before ${mib(rssBefore)}, peak during +${mib(flushed.peakRss - rssBefore)}, after ` +
      `+${mib(process.memoryUsage().rss - rssBefore)} (load average ${loadAverage()})`,
  );
  recordTarget(
    'index-flush',
    `${ms(flushed.maxStallMs)} longest stall (flush ${(flushed.ms / 1000).toFixed(1)} s)`,
    flushOk,
  );
});
