/**
 * Scholarly filter benchmark (run: `npx vitest run --config bench/support/vitest.config.ts scholarly-filter`).
 *
 * One generated upstream works part of at least 200 MiB of gzip (about 5 KiB per line; 2% quantum seeds and 3% other
 * works with arXiv ids, see `writeUpstreamPart`), filtered by the filter phase of `pksd scholarly bootstrap` (both passes,
 * references and citers on, kept lines written to a local snapshot bucket) against `gzip -dc part > /dev/null` of the
 * same file, alternating, best of 2 each, in the same run. Target: gzip time / filter time ≥ 0.6.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { LocalSnapshotBucket } from '../src/server/scholarly/bucket.js';
import { filterSnapshot, type FilterReport } from '../src/server/scholarly/filter.js';
import { openSource } from '../src/server/scholarly/source.js';
import { writeUpstreamPart } from './support/scholarly-gen.js';
import { machine, mib, report, verdict } from './support/papers-util.js';

const MIN_PART_BYTES = 200 * 1024 * 1024;
const ROUNDS = 2;

let dir: string;
let part: { file: string; size: number; lines: number };

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pks-filter-bench-'));
  const t0 = performance.now();
  part = await writeUpstreamPart(path.join(dir, 'source'), MIN_PART_BYTES);
  report(
    `generated ${part.lines} works, ${mib(part.size)} of gzip, in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function gunzipToNull(file: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn('sh', ['-c', 'gzip -dc "$0" > /dev/null', file], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve(performance.now() - t0) : reject(new Error(`gzip exited ${code}`)),
    );
  });
}

async function filter(round: number): Promise<{ ms: number; report: FilterReport; passes: number[] }> {
  const marks: number[] = [];
  const t0 = performance.now();
  const result = await filterSnapshot({
    source: openSource(path.join(dir, 'source')),
    bucket: new LocalSnapshotBucket(path.join(dir, `bucket-${round}`)),
    seedPattern: String.raw`\bquantum\b`,
    inIndex: () => false,
    references: true,
    citers: true,
    limitParts: null,
    entities: [],
    dryRun: false,
    tempDir: path.join(dir, 'tmp'),
    progress: (line) => line.startsWith('pass ') && line.includes('part 1/1') && marks.push(performance.now() - t0),
  });
  const ms = performance.now() - t0;
  return { ms, report: result, passes: [marks[0]!, marks[1]! - marks[0]!] };
}

test('filter throughput against gzip -dc of the same part', async () => {
  report(`scholarly filter — ${machine()}`);
  let gzip = Infinity;
  let best: Awaited<ReturnType<typeof filter>> | null = null;
  for (let round = 0; round < ROUNDS; round++) {
    gzip = Math.min(gzip, await gunzipToNull(part.file));
    const run = await filter(round);
    if (best === null || run.ms < best.ms) best = run;
    await rm(path.join(dir, `bucket-${round}`), { recursive: true, force: true });
  }
  const { ms, report: r, passes } = best!;
  expect(r.worksRead).toBe(part.lines);
  const rate = (t: number) => `${(part.size / 1024 / 1024 / (t / 1000)).toFixed(0)} MiB/s of gzip`;
  report(`gzip -dc > /dev/null: ${(gzip / 1000).toFixed(1)} s (${rate(gzip)})`);
  report(
    `filter: ${(ms / 1000).toFixed(1)} s (${rate(ms)}; pass 1 ${(passes[0]! / 1000).toFixed(1)} s, pass 2 ` +
      `${(passes[1]! / 1000).toFixed(1)} s); ${r.seeds} seeds, ${r.worksKept} of ${r.worksRead} works kept, ` +
      `${mib(r.bytesWritten)} written`,
  );
  report(`ratio gzip/filter: ${(gzip / ms).toFixed(2)} (${verdict(gzip / ms >= 0.6)} ≥ 0.6)`);
  report(`peak RSS: ${mib(process.resourceUsage().maxRSS * 1024)}`);
});
