/**
 * Upload benchmark (run: `npm run build && npx vitest run --config bench/support/vitest.config.ts upload`).
 *
 * A 100 MiB PDF through `POST /api/papers/{id}/upload-pdf` of the built `bin/pksd` (child process, moto backend)
 * against a direct S3 PutObject of the same file to the same moto, same run, alternating, best of `ROUNDS` each.
 * Prints the throughput ratio (target ≥ 0.7) and the server's peak RSS growth during an upload (sampled from
 * `/proc/<pid>/status`, target < 64 MiB). Targets are reported, not asserted.
 */
import { HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { ObjectStoreConfig } from '../src/server/config/types.js';
import { createS3Clients, type S3Clients } from '../src/server/storage/s3-client.js';
import { freePort } from '../test/support/free-port.js';
import { startMoto, type MotoServer } from '../test/support/moto.js';
import { dirSettings, spawnPksd, waitForOutput } from '../test/support/server.js';
import { motoBuckets, objectStoreEnv } from '../test/server/storage/backends.js';
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

const SIZE = 100 * MiB; // exactly the upload limit (104 857 600 bytes)
const ROUNDS = 3;
const PAT = 'u'.repeat(24);

let base: string;
let moto: MotoServer;
let s3: ObjectStoreConfig;
let clients: S3Clients;
let server: ReturnType<typeof spawnPksd> | null = null;

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
    },
    base,
  );
  await waitForOutput(server, (o) => o.stderr.includes('pksd listening on'));
  const pid = server.child.pid!;

  const direct: number[] = [];
  const viaServer: number[] = [];
  const growth: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // Direct: the same file as a stream with a known length, to the same moto.
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

    const before = await procMemory(pid);
    const sampler = sampleRss(pid);
    t0 = performance.now();
    const res = await streamUpload(
      `http://127.0.0.1:${port}/api/papers/2501.${String(round + 1).padStart(5, '0')}v1/upload-pdf`,
      { Authorization: `Bearer ${PAT}` },
      file,
      SIZE,
    );
    viaServer.push(performance.now() - t0);
    const peak = await sampler.stop();
    expect(res.status, res.body).toBe(201);
    growth.push(peak - before.rss);
    report(
      `round ${round + 1}: direct ${ms(direct[round]!)}, upload-pdf ${ms(viaServer[round]!)}; ` +
        `server RSS before ${mib(before.rss)}, peak ${mib(peak)} (+${mib(peak - before.rss)})`,
    );
  }
  const head = await clients.internal.send(
    new HeadObjectCommand({ Bucket: s3.buckets.pdf, Key: '2501/2501.00001v1.pdf' }),
  );
  expect(head.ContentLength).toBe(SIZE);

  const bestDirect = Math.min(...direct);
  const bestServer = Math.min(...viaServer);
  const ratio = bestDirect / bestServer;
  const maxGrowth = Math.max(...growth);
  const hwm = (await procMemory(pid)).hwm;
  report(
    `direct PutObject: best ${ms(bestDirect)} (${((SIZE / MiB / bestDirect) * 1000).toFixed(0)} MiB/s); ` +
      `upload-pdf: best ${ms(bestServer)} (${((SIZE / MiB / bestServer) * 1000).toFixed(0)} MiB/s)`,
  );
  report(`throughput ratio (upload-pdf / direct): ${ratio.toFixed(2)} — target ≥ 0.7: ${verdict(ratio >= 0.7)}`);
  report(
    `server peak RSS growth during an upload: max ${mib(maxGrowth)} over ${ROUNDS} rounds — target < 64 MiB: ${verdict(
      maxGrowth < 64 * MiB,
    )}; server VmHWM ${mib(hwm)}`,
  );
});
