/**
 * Upload benchmark (run: `npm run build && npx vitest run --config bench/support/vitest.config.ts upload`).
 *
 * A 100 MiB PDF through `POST /api/papers/{id}/upload-pdf?expected_sha256=…` (as `pks contrib pdf` sends it) of
 * the built `bin/pksd` (child process, moto backend) against a direct S3 PutObject of the same file to the same
 * moto, same run, alternating, `ROUNDS` each. Prints the ratio of the medians (target ≥ 0.9) and the server's peak
 * RSS growth during an upload (sampled from `/proc/<pid>/status`, target < 32 MiB every round), both recorded for
 * issue 25's table. Beside wall-clock times it prints the CPU time of pksd and of moto per round (`/proc/<pid>/stat`):
 * moto, single-threaded Python, is the bottleneck of both sides. `PKS_BENCH_CPU_PROF=<dir>` runs pksd with
 * `--cpu-prof` into that directory. Targets are reported, not asserted.
 */
import { HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { ObjectStoreConfig } from '../src/server/config/types.js';
import { createS3Clients, type S3Clients } from '../src/server/storage/s3-client.js';
import { freePort } from '../test/support/free-port.js';
import { startMoto, type MotoServer } from '../test/support/moto.js';
import { dirSettings, spawnPksd, waitForOutput } from '../test/support/server.js';
import { motoBuckets, objectStoreEnv } from '../test/server/storage/backends.js';
import { median } from './support/load.js';
import {
  machine,
  mib,
  MiB,
  ms,
  procMemory,
  report,
  sampleRss,
  streamUpload,
  verdict,
  writePdfFile,
} from './support/papers-util.js';
import { recordTarget } from './support/targets.js';

const SIZE = 100 * MiB; // exactly the upload limit (104 857 600 bytes)
const ROUNDS = 5;
const PAT = 'u'.repeat(24);

let base: string;
let moto: MotoServer;
let s3: ObjectStoreConfig;
let clients: S3Clients;
let server: ReturnType<typeof spawnPksd> | null = null;

/** CPU time (user + system) of a process so far, in ms. */
async function cpuMs(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in clock ticks (USER_HZ 100)
}

/** The moto server's process: the Python process listening on `endpoint`'s port. */
async function motoPid(endpoint: string): Promise<number> {
  const port = new URL(endpoint).port;
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const args = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    const argv = args.split('\0');
    if (args.includes('moto.server') && argv[argv.indexOf('-p') + 1] === port) return Number(entry);
  }
  throw new Error(`no moto process on port ${port}`);
}

beforeAll(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), 'pks-upload-bench-'));
  moto = await startMoto();
  s3 = await motoBuckets(moto);
  clients = createS3Clients(s3, null);
  report(`upload benchmark: ${mib(SIZE)} PDF, moto at ${moto.endpoint}; ${machine()}`);
});
afterAll(async () => {
  if (server && server.child.exitCode === null) {
    server.child.kill('SIGTERM');
    await server.done;
  }
  // With a profile, pksd's output beside it (e.g. `--trace-gc` lines, when the variable adds that flag).
  const profileDir = process.env['PKS_BENCH_CPU_PROF']?.split(' ')[0];
  if (server && profileDir) await writeFile(path.join(profileDir, 'pksd-stdout.log'), server.output().stdout);
  clients?.destroy();
  await moto?.stop();
  await rm(base, { recursive: true, force: true });
});

test('upload-pdf throughput vs direct PutObject, and server RSS growth', async () => {
  const file = path.join(base, 'paper.pdf');
  writePdfFile(file, SIZE);

  const port = await freePort();
  server = spawnPksd(
    ['serve'],
    {
      HOME: base,
      ...dirSettings(base),
      SVC_HTTP_ADDR: `127.0.0.1:${port}`,
      SVC_SYSTEM_PAT: PAT,
      ...objectStoreEnv(s3),
      ...(process.env['PKS_BENCH_CPU_PROF']
        ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${process.env['PKS_BENCH_CPU_PROF']}` }
        : {}),
    },
    base,
  );
  await waitForOutput(server, (o) => o.stderr.includes('pksd listening on'));
  const pid = server.child.pid!;
  const motoProcess = await motoPid(moto.endpoint);
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  const expectedSha256 = hash.digest('hex');
  const upload = (n: number) =>
    streamUpload(
      `http://127.0.0.1:${port}/api/papers/2501.${String(n).padStart(5, '0')}v1/upload-pdf?expected_sha256=${expectedSha256}`,
      { Authorization: `Bearer ${PAT}` },
      file,
      SIZE,
    );

  // Each round: a direct PutObject, then upload-pdf with expected_sha256 (the way `pks contrib pdf` uploads),
  // alternating so the machine's load falls on both alike.
  const direct: number[] = [];
  const viaServer: number[] = [];
  const growth: number[] = [];
  const cpu = { directMoto: [] as number[], serverMoto: [] as number[], pksd: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    // Direct: the same file as a stream with a known length, to the same moto.
    let motoCpu = await cpuMs(motoProcess);
    let t0 = performance.now();
    await clients.internal.send(
      new PutObjectCommand({
        Bucket: s3.buckets.pdf,
        Key: `direct/${round}.pdf`,
        Body: createReadStream(file),
        ContentLength: SIZE,
        ContentType: 'application/pdf',
      }),
    );
    direct.push(performance.now() - t0);
    cpu.directMoto.push((await cpuMs(motoProcess)) - motoCpu);

    const before = await procMemory(pid);
    const sampler = sampleRss(pid);
    motoCpu = await cpuMs(motoProcess);
    const pksdCpu = await cpuMs(pid);
    t0 = performance.now();
    const res = await upload(round + 1);
    viaServer.push(performance.now() - t0);
    cpu.serverMoto.push((await cpuMs(motoProcess)) - motoCpu);
    cpu.pksd.push((await cpuMs(pid)) - pksdCpu);
    const peak = await sampler.stop();
    expect(res.status, res.body).toBe(201);
    growth.push(peak - before.rss);
    report(
      `round ${round + 1}: direct ${ms(direct[round]!)}, upload-pdf ${ms(viaServer[round]!)}; ` +
        `server RSS before ${mib(before.rss)}, peak ${mib(peak)} (+${mib(peak - before.rss)}); CPU: moto ` +
        `${ms(cpu.directMoto[round]!)} (direct) / ${ms(cpu.serverMoto[round]!)} (upload-pdf), pksd ${ms(cpu.pksd[round]!)}`,
    );
  }
  const head = await clients.internal.send(
    new HeadObjectCommand({ Bucket: s3.buckets.pdf, Key: '2501/2501.00001v1.pdf' }),
  );
  expect(head.ContentLength).toBe(SIZE);

  const rate = (t: number) => `${((SIZE / MiB / t) * 1000).toFixed(0)} MiB/s`;
  const medianDirect = median(direct);
  const medianServer = median(viaServer);
  const ratio = medianDirect / medianServer;
  const maxGrowth = Math.max(...growth);
  report(
    `direct PutObject: median ${ms(medianDirect)} (${rate(medianDirect)}); ` +
      `upload-pdf: median ${ms(medianServer)} (${rate(medianServer)})`,
  );
  report(
    `throughput ratio (upload-pdf / direct, medians of ${ROUNDS}): ${ratio.toFixed(2)} — target ≥ 0.9: ` +
      verdict(ratio >= 0.9),
  );
  report(
    `server peak RSS growth during an upload: median ${mib(median(growth))}, max ${mib(maxGrowth)} over ${ROUNDS} ` +
      `rounds — target < 32 MiB: ${verdict(maxGrowth < 32 * MiB)}; server VmHWM ${mib((await procMemory(pid)).hwm)}`,
  );
  const perMiB = (t: number) => `${(t / (SIZE / MiB)).toFixed(1)} ms/MiB`;
  report(
    `CPU per 100 MiB (medians): moto ${ms(median(cpu.directMoto))} for a direct PutObject ` +
      `(${perMiB(median(cpu.directMoto))}), ${ms(median(cpu.serverMoto))} for an upload-pdf; pksd ` +
      `${ms(median(cpu.pksd))} (${perMiB(median(cpu.pksd))}); ${machine()}`,
  );
  recordTarget(
    'upload-ratio',
    `${ratio.toFixed(2)} (median of ${ROUNDS}; ${rate(medianServer)} vs ${rate(medianDirect)})`,
    ratio >= 0.9,
  );
  recordTarget(
    'upload-rss',
    `+${mib(maxGrowth)} max, +${mib(median(growth))} median of ${ROUNDS}`,
    maxGrowth < 32 * MiB,
  );
});
