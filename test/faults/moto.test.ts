/**
 * Issue 9, item 9: the object store (moto) stopping under a running pksd — during an upload, and while the server
 * starts. Each case ends with nothing lost and the server serving. Runs the built `bin/pksd` (`npm run build` first).
 */
import { GetObjectCommand, HeadObjectCommand } from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createBuckets, motoS3Client, startMotoProcess, type MotoProcess } from './support/moto-process.js';
import {
  AUTH,
  heldUpload,
  pdfBytes,
  stagedFiles,
  stagingLeftovers,
  startPksd,
  uploadPdf,
  type Pksd,
} from './support/pksd.js';
import { until } from './support/processes.js';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

async function moto(): Promise<MotoProcess> {
  const m = await startMotoProcess();
  cleanups.push(() => m.stop());
  return m;
}
async function pksd(settings: Record<string, string>, options?: Parameters<typeof startPksd>[1]): Promise<Pksd> {
  const p = await startPksd(settings, options);
  cleanups.push(() => p.remove());
  return p;
}

/** The stored bytes of `key` in the pdf bucket, or `null` when there is no such object. */
async function storedPdf(m: MotoProcess, settings: Record<string, string>, key: string): Promise<Buffer | null> {
  const client = motoS3Client(m);
  try {
    const out = await client.send(new GetObjectCommand({ Bucket: settings['SVC_OBJ_BUCKET_PDF'], Key: key }));
    return Buffer.from(await out.Body!.transformToByteArray());
  } catch (err) {
    if ((err as { name?: string }).name === 'NoSuchKey') return null;
    throw err;
  } finally {
    client.destroy();
  }
}

async function indexExists(m: MotoProcess, settings: Record<string, string>): Promise<boolean> {
  const client = motoS3Client(m);
  try {
    await client.send(new HeadObjectCommand({ Bucket: settings['SVC_OBJ_BUCKET_PDF'], Key: 'index/papers.parquet' }));
    return true;
  } catch {
    return false;
  } finally {
    client.destroy();
  }
}

/** The server answers: health (whatever its verdict on the store) and a wiki read. */
async function serving(p: Pksd): Promise<void> {
  const health = await p.fetch('/api/health', { headers: AUTH });
  expect(health.status).toBe(200);
  expect((await p.fetch('/api/stats', { headers: AUTH })).status).toBe(200);
}

const stats = async (p: Pksd) =>
  (await (await p.fetch('/api/papers/stats', { headers: AUTH })).json()) as Record<string, unknown>;

describe('moto stops during an upload', () => {
  it('stopped (SIGSTOP) while the PDF is being stored: the upload completes when moto continues', async () => {
    const m = await moto();
    const settings = await createBuckets(m, 'freeze');
    const p = await pksd(settings);
    const a = pdfBytes('paper A');
    expect((await uploadPdf(p, '2501.00001v1', a)).status).toBe(201);

    const b = pdfBytes('paper B', 2 * 1024 * 1024);
    const upload = heldUpload(p.port, '2501.00002v1', b, 1024 * 1024);
    await until('the server to stage the first half', async () => (await stagedFiles(p, 512 * 1024)).length === 1);
    m.freeze();
    try {
      upload.finish();
      await until('the staged file to be complete', async () => (await stagedFiles(p, b.length)).length === 1);
      await serving(p); // the store is frozen, the server is not
    } finally {
      m.thaw();
    }
    const answer = await upload.response;
    expect(answer.status).toBe(201);
    expect(JSON.parse(answer.body)).toMatchObject({ preprint_id: '2501.00002v1', pdf_sha256: sha(b) });

    expect(sha((await storedPdf(m, settings, '2501/2501.00002v1.pdf'))!)).toBe(sha(b));
    expect(sha((await storedPdf(m, settings, '2501/2501.00001v1.pdf'))!)).toBe(sha(a));
    expect(await stagingLeftovers(p)).toEqual([]);
    expect(await stats(p)).toMatchObject({ available: true, total: 2, has_pdf: 2 });
  });

  it('killed while the PDF is being stored: 500 object store error, nothing half-stored, the retry succeeds', async () => {
    const m = await moto();
    const settings = await createBuckets(m, 'kill');
    const p = await pksd(settings);

    const b = pdfBytes('paper B', 2 * 1024 * 1024);
    const upload = heldUpload(p.port, '2501.00002v1', b, 1024 * 1024);
    await until('the server to stage the first half', async () => (await stagedFiles(p, 512 * 1024)).length === 1);
    await m.kill();
    upload.finish();
    const answer = await upload.response;
    expect(answer.status).toBe(500);
    expect((JSON.parse(answer.body) as { detail: string }).detail).toMatch(/^object store error: /);
    expect(await stagingLeftovers(p)).toEqual([]);
    await serving(p);

    // The operator brings the store back (moto keeps nothing across a restart, so the buckets are made again).
    await m.restart();
    await createBuckets(m, 'kill');
    expect(await storedPdf(m, settings, '2501/2501.00002v1.pdf')).toBeNull();
    const retry = await uploadPdf(p, '2501.00002v1', b);
    expect(retry.status).toBe(201);
    expect(sha((await storedPdf(m, settings, '2501/2501.00002v1.pdf'))!)).toBe(sha(b));
    expect(await stagingLeftovers(p)).toEqual([]);
  });
});

describe('moto stopped while the server starts', () => {
  it('the server starts and serves; once moto continues, the index loads with every paper', async () => {
    const m = await moto();
    const settings = await createBuckets(m, 'start');
    const first = await pksd(settings);
    const a = pdfBytes('paper A');
    expect((await uploadPdf(first, '2501.00001v1', a)).status).toBe(201);
    await first.stop(); // flushes the index
    expect(await indexExists(m, settings)).toBe(true);

    m.freeze();
    let p: Pksd;
    try {
      // Bucket versioning (5 s) and the index load (10 s) are bounded: the server listens anyway.
      p = await pksd(settings, { listenTimeoutMs: 60_000 });
      await serving(p);
      expect(await stats(p)).toEqual({ available: false });
    } finally {
      m.thaw();
    }

    const b = pdfBytes('paper B');
    const upload = await uploadPdf(p, '2501.00002v1', b);
    expect(upload.status).toBe(201);
    expect(upload.headers.get('x-catalog-sync')).toBe('deferred'); // the index is still unavailable
    // The unavailable index is retried every 60 s; paper B's row is re-applied on top of what it loads.
    await until('the index to load', async () => (await stats(p))['available'] === true, 90_000, 500);
    expect(await stats(p)).toMatchObject({ available: true, total: 2, has_pdf: 2 });
    expect(sha((await storedPdf(m, settings, '2501/2501.00001v1.pdf'))!)).toBe(sha(a));
    expect(sha((await storedPdf(m, settings, '2501/2501.00002v1.pdf'))!)).toBe(sha(b));
  }, 180_000);
});
