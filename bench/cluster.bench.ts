/**
 * Cluster mode scale-out (issue 24, CONTRACT §21): a read mix (PAT-authenticated `GET /api/pages/{id}` and
 * `GET /api/papers`) against one `pksd serve` and against two, each pinned to its own core with `taskset` when
 * present, on one PostgreSQL, one moto S3 and the same wiki. Target: two instances ÷ one ≥ 1.7. The load generator
 * (bench/support/load.ts, a worker thread) and PostgreSQL are not pinned: on a 2-core machine they share the
 * instances' cores, so the CPU seconds of every process during each run are printed from /proc — the measured
 * reason when the target is missed.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startCluster, type Cluster } from '../test/support/cluster.js';
import { runCluster } from '../test/support/postgres.js';
import { REPO_ROOT } from '../test/support/server.js';
import { multipart } from '../test/server/papers/helpers.js';
import { fakePdf } from '../test/support/upstreams/arxiv.js';
import { runLoad, type LoadResult } from './support/load.js';
import { machine } from './support/papers-util.js';

const PAPERS = 20;
const ROUNDS = 3;
const RUN_MS = 8_000;
const CONCURRENCY = 32;
const TARGET = 1.7;

const cores = os.cpus().length;
const hasTaskset = ((): boolean => {
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

let base: string;
let c: Cluster;
let pat: string;
let pageIds: string[];

/** User + system CPU seconds of a process so far (/proc/<pid>/stat, clock ticks of 1/100 s). */
function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** The PostgreSQL server's processes: the postmaster (first line of postmaster.pid) and its children. */
function postgresPids(home: string): number[] {
  const pidFile = path.join(home, 'data', 'postmaster.pid');
  if (!existsSync(pidFile)) return [];
  const postmaster = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  const children = readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster;
      } catch {
        return false;
      }
    })
    .map(Number);
  return [postmaster, ...children];
}

/** Busy CPU seconds of the whole machine so far (/proc/stat: every state but idle and iowait). */
function machineBusySeconds(): number {
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const idle = (cpu[3] ?? 0) + (cpu[4] ?? 0);
  return (cpu.reduce((a, b) => a + b, 0) - idle) / 100;
}

interface Measured {
  readonly load: LoadResult;
  /** CPU seconds per process group during the run. */
  readonly cpu: Record<string, number>;
}

async function measure(urls: readonly string[], pgHome: string): Promise<Measured> {
  const groups = (): Record<string, number> => ({
    'instance a': cpuSeconds(c.instances[0]!.pid),
    'instance b': cpuSeconds(c.instances[1]!.pid),
    'load generator (bench process)': cpuSeconds(process.pid),
    postgresql: postgresPids(pgHome).reduce((sum, pid) => sum + cpuSeconds(pid), 0),
    'whole machine': machineBusySeconds(),
  });
  const before = groups();
  const load = await runLoad({
    urls,
    headers: { Authorization: `Bearer ${pat}` },
    concurrency: CONCURRENCY,
    maxRequests: 1_000_000,
    maxMs: RUN_MS,
  });
  const after = groups();
  const cpu = Object.fromEntries(Object.entries(after).map(([k, v]) => [k, v - before[k]!]));
  const ours = Object.entries(cpu)
    .filter(([k]) => k !== 'whole machine')
    .reduce((sum, [, v]) => sum + v, 0);
  cpu['other processes'] = Math.max(0, cpu['whole machine']! - ours);
  delete cpu['whole machine'];
  return { load, cpu };
}

/** Request i: every third a paper list, the others wiki pages, on `instances` in turn. */
function readMix(instances: readonly string[]): string[] {
  const urls: string[] = [];
  for (let i = 0; i < 600; i++) {
    const baseUrl = instances[i % instances.length]!;
    urls.push(i % 3 === 2 ? `${baseUrl}/api/papers?limit=20` : `${baseUrl}/api/pages/${pageIds[i % pageIds.length]}`);
  }
  return urls;
}

beforeAll(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), 'pks-cluster-bench-'));
  // Each instance its own checkout of the same wiki (here: copies of the sample wiki).
  for (const id of ['a', 'b'])
    await cp(path.join(REPO_ROOT, 'sample-wiki'), path.join(base, `wiki-${id}`), { recursive: true });
  c = await startCluster({
    env: { SVC_LOG_LEVEL: 'warn' },
    instanceEnv: (i) => ({ SVC_WIKI_DIR: path.join(base, `wiki-${'ab'[i]}`) }),
    wrap: (i) => (hasTaskset && cores >= 2 ? ['taskset', '-c', String(i % cores)] : []),
  });
  pat = await c.superuserPat();
  // Papers for the list: uploaded on A, whose index is flushed when it stops; B loads it when it starts.
  for (let i = 1; i <= PAPERS; i++) {
    const id = `2503.${String(i).padStart(5, '0')}v1`;
    const { body, contentType } = multipart([
      { name: 'pdf', filename: 'paper.pdf', content: fakePdf(id), contentType: 'application/pdf' },
    ]);
    const res = await fetch(`${c.instances[0]!.url}/api/papers/${id}/upload-pdf`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${c.systemPat}`, 'Content-Type': contentType },
      body,
    });
    expect(res.status).toBe(201);
  }
  await c.restart(0);
  await c.restart(1);
  const pages = await fetch(`${c.instances[0]!.url}/api/pages`, { headers: { Authorization: `Bearer ${pat}` } });
  expect(pages.status).toBe(200);
  pageIds = ((await pages.json()) as { pages: { id: string }[] }).pages.map((p) => p.id);
  expect(pageIds.length).toBeGreaterThan(0);
  for (const inst of c.instances) {
    const res = await fetch(`${inst.url}/api/papers?limit=20`, { headers: { Authorization: `Bearer ${pat}` } });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
  }
}, 600_000);

afterAll(async () => {
  await c?.stop();
  if (base) await rm(base, { recursive: true, force: true });
});

const fmtCpu = (cpu: Record<string, number>, seconds: number): string =>
  Object.entries(cpu)
    .map(([k, v]) => `${k} ${v.toFixed(2)} s (${((v / seconds) * 100).toFixed(0)}% of a core)`)
    .join(', ');

test('cluster: two instances ÷ one on a read mix', async () => {
  const pg = await runCluster();
  console.log(
    `cluster bench — ${machine()}; taskset ${hasTaskset && cores >= 2 ? 'on (a → core 0, b → core 1)' : 'off'}`,
  );
  console.log(
    `read mix: 2/3 GET /api/pages/{id} (${pageIds.length} pages), 1/3 GET /api/papers?limit=20 (${PAPERS} papers), user PAT, ${CONCURRENCY} connections, ${RUN_MS / 1000} s per run, best of ${ROUNDS}`,
  );
  const one = readMix([c.instances[0]!.url]);
  const two = readMix(c.instances.map((i) => i.url));
  await measure(one, pg.home); // warm-up: JIT, caches, connection pools
  await measure(two, pg.home);
  let bestOne: Measured | undefined;
  let bestTwo: Measured | undefined;
  for (let r = 0; r < ROUNDS; r++) {
    const m1 = await measure(one, pg.home);
    const m2 = await measure(two, pg.home);
    for (const m of [m1, m2]) expect(m.load.errors + m.load.non2xx).toBe(0);
    console.log(`  round ${r + 1}: one ${m1.load.rps.toFixed(0)} req/s, two ${m2.load.rps.toFixed(0)} req/s`);
    if (!bestOne || m1.load.rps > bestOne.load.rps) bestOne = m1;
    if (!bestTwo || m2.load.rps > bestTwo.load.rps) bestTwo = m2;
  }
  const ratio = bestTwo!.load.rps / bestOne!.load.rps;
  const seconds = (m: Measured) => m.load.elapsedMs / 1000;
  console.log(
    `one instance:  ${bestOne!.load.rps.toFixed(0)} req/s (p50 ${bestOne!.load.p50Ms.toFixed(1)} ms, p99 ${bestOne!.load.p99Ms.toFixed(1)} ms); CPU: ${fmtCpu(bestOne!.cpu, seconds(bestOne!))}`,
  );
  console.log(
    `two instances: ${bestTwo!.load.rps.toFixed(0)} req/s (p50 ${bestTwo!.load.p50Ms.toFixed(1)} ms, p99 ${bestTwo!.load.p99Ms.toFixed(1)} ms); CPU: ${fmtCpu(bestTwo!.cpu, seconds(bestTwo!))}`,
  );
  console.log(`ratio two ÷ one: ${ratio.toFixed(2)} — ${ratio >= TARGET ? 'meets' : 'MISSES'} target ≥ ${TARGET}`);
  if (ratio < TARGET) {
    const share = (m: Measured, ...keys: string[]) => keys.reduce((sum, k) => sum + (m.cpu[k] ?? 0), 0) / seconds(m);
    const perK = (m: Measured) => ((m.cpu['postgresql']! / m.load.requests) * 1000 * 1000).toFixed(0);
    console.log(
      `  why (measured, in cores of ${cores}): instances ${share(bestOne!, 'instance a', 'instance b').toFixed(2)} → ` +
        `${share(bestTwo!, 'instance a', 'instance b').toFixed(2)}; load generator ` +
        `${share(bestOne!, 'load generator (bench process)').toFixed(2)} → ` +
        `${share(bestTwo!, 'load generator (bench process)').toFixed(2)}; PostgreSQL ` +
        `${share(bestOne!, 'postgresql').toFixed(2)} → ${share(bestTwo!, 'postgresql').toFixed(2)} ` +
        `(${perK(bestOne!)} → ${perK(bestTwo!)} ms CPU per 1000 requests); other processes on the machine ` +
        `${share(bestOne!, 'other processes').toFixed(2)} → ${share(bestTwo!, 'other processes').toFixed(2)}. ` +
        `Two pinned instances can only double the rate when each gets a whole core; here the load generator, ` +
        `PostgreSQL and the rest of the machine run on the same ${cores} cores.`,
    );
    // What one request costs in all (instance + generator + PostgreSQL), from the one-instance run: even with the
    // whole machine to ourselves, the cores cannot serve more than cores ÷ that cost.
    const costPerRequest =
      (bestOne!.cpu['instance a']! + bestOne!.cpu['load generator (bench process)']! + bestOne!.cpu['postgresql']!) /
      bestOne!.load.requests;
    const ceiling = cores / costPerRequest / bestOne!.load.rps;
    console.log(
      `  ceiling: one request costs ${(costPerRequest * 1e6).toFixed(0)} µs of CPU in all (instance, generator, ` +
        `PostgreSQL), so ${cores} cores serve at most ${(cores / costPerRequest).toFixed(0)} req/s: a ratio of at ` +
        `most ${ceiling.toFixed(2)} on this machine even with nothing else running`,
    );
  }
});
