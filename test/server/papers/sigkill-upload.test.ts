/**
 * Issue 4: "Killing the server (SIGKILL) mid-upload leaves no object and, after restart, no staged temp file."
 * Runs the built `bin/pksd` (`npm run build` first) against the local backend and against moto.
 */
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ObjectStoreConfig } from '../../../src/server/config/types.js';
import { createS3Clients } from '../../../src/server/storage/s3-client.js';
import { freePort } from '../../support/free-port.js';
import { useMoto } from '../../support/moto.js';
import { dirSettings, spawnPksd, waitForOutput } from '../../support/server.js';
import { motoBuckets, objectStoreEnv } from '../storage/backends.js';
import { PAT } from './helpers.js';

const ID = '2501.00001v1';
const KEY = 'pdf/2501/2501.00001v1.pdf';
const BOUNDARY = '----pks-sigkill-test';

const moto = useMoto();

const children: ReturnType<typeof spawnPksd>[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const c of children.splice(0))
    if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill('SIGKILL');
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

/** Resolves once `condition` holds (checked every 20 ms); rejects after `timeoutMs` with `what`. */
async function until(what: string, condition: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function serve(env: Record<string, string>) {
  const proc = spawnPksd(['serve'], env, env['HOME']);
  children.push(proc);
  await waitForOutput(proc, (o) => o.stderr.includes('pksd listening on'));
  return proc;
}

/** Staged uploads in `<SVC_DATA_DIR>/tmp/` with at least one byte written. */
async function stagedFiles(tmp: string): Promise<string[]> {
  const names = existsSync(tmp) ? await readdir(tmp) : [];
  const out: string[] = [];
  for (const n of names) if ((await stat(path.join(tmp, n)).catch(() => null))?.size) out.push(n);
  return out;
}

/**
 * Starts an upload whose body stops after the multipart head and the first 1 MiB of a 4 MiB PDF: the request
 * stays open (the server is staging it) until the test ends it.
 */
function stalledUpload(port: number): { request: http.ClientRequest } {
  const head = Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="pdf"; filename="p.pdf"\r\n` +
      `Content-Type: application/pdf\r\n\r\n`,
  );
  const total = head.length + 4 * 1024 * 1024 + `\r\n--${BOUNDARY}--\r\n`.length;
  const request = http.request({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path: `/api/papers/${ID}/upload-pdf`,
    headers: {
      Authorization: `Bearer ${PAT}`,
      'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`,
      'Content-Length': String(total),
    },
  });
  request.on('error', () => undefined); // the server dies under it
  const first = Buffer.alloc(1024 * 1024, 0x20);
  Buffer.from('%PDF-1.7\n').copy(first);
  request.write(Buffer.concat([head, first]));
  return { request };
}

async function headS3(config: ObjectStoreConfig): Promise<number> {
  const clients = createS3Clients(config, null);
  try {
    await clients.internal.send(new HeadObjectCommand({ Bucket: config.buckets.pdf, Key: KEY.slice('pdf/'.length) }));
    return 200;
  } catch (err) {
    return (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode ?? 0;
  } finally {
    clients.destroy();
  }
}

describe.each(['local', 's3'] as const)('SIGKILL mid-upload (%s backend, built bin/pksd)', (backend) => {
  it('leaves no object, and the restarted server removes the staged temp file', async () => {
    const base = await mkdtemp(path.join(os.tmpdir(), 'pksd-sigkill-'));
    dirs.push(base);
    const port = await freePort();
    const s3 = backend === 's3' ? await motoBuckets(moto()) : null;
    const env: Record<string, string> = {
      HOME: base,
      ...dirSettings(base),
      SVC_HTTP_ADDR: `127.0.0.1:${port}`,
      SVC_SYSTEM_PAT: PAT,
      ...(s3 ? objectStoreEnv(s3) : {}),
    };
    const tmp = path.join(base, 'data', 'tmp');

    const first = await serve(env);
    const { request } = stalledUpload(port);
    await until('a staged upload in <SVC_DATA_DIR>/tmp/', async () => (await stagedFiles(tmp)).length === 1);

    first.child.kill('SIGKILL');
    expect((await first.done).signal).toBe('SIGKILL');
    request.destroy();

    // The crash left the staged file behind, and no object.
    expect(await stagedFiles(tmp)).toHaveLength(1);
    if (s3) expect(await headS3(s3)).toBe(404);
    else expect(existsSync(path.join(base, 'raw', ...KEY.split('/')))).toBe(false);

    const second = await serve(env);
    expect(await readdir(tmp)).toEqual([]);
    if (s3) expect(await headS3(s3)).toBe(404);
    else expect(existsSync(path.join(base, 'raw', ...KEY.split('/')))).toBe(false);
    second.child.kill('SIGTERM');
    expect((await second.done).code).toBe(0);
  });
});
