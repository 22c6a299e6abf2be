/**
 * Rebuild benchmark (run: `npx vitest run --config bench/support/vitest.config.ts sync`).
 *
 * Fills moto buckets with a few thousand objects (PDFs, markdown, images with sha256 metadata), then times, in the
 * same run: a raw ListObjectsV2 listing of the three buckets, the index rebuild (`syncFromObjects`, what
 * `pksd papers sync --full --from-objects --no-graph` runs) first without a previous index (every PDF and markdown
 * is HEADed for its sha256, 16 in parallel, §4.4) and then with one (sha256 copied for unchanged ETags). Target:
 * rebuild ≤ 1.2 × the raw listing. Targets are reported, not asserted.
 */
import { ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import pino from 'pino';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { ObjectStoreConfig } from '../src/server/config/types.js';
import { syncFromObjects } from '../src/server/papers/sync.js';
import { createS3Clients, type S3Clients } from '../src/server/storage/s3-client.js';
import { S3ObjectStore } from '../src/server/storage/s3-store.js';
import { startMoto, type MotoServer } from '../test/support/moto.js';
import { motoBuckets } from '../test/server/storage/backends.js';
import { machine, ms, report, verdict } from './support/papers-util.js';

const PAPERS = 2000;
const MD_SHARE = 0.4;
const IMAGES_PER_MD = 2;
const ROUNDS = 3;
const quiet = pino({ level: 'silent' });

let moto: MotoServer;
let s3: ObjectStoreConfig;
let clients: S3Clients;

beforeAll(async () => {
  moto = await startMoto();
  s3 = await motoBuckets(moto);
  clients = createS3Clients(s3, null);
});
afterAll(async () => {
  clients?.destroy();
  await moto?.stop();
});

async function pool<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

/** Every object of the three buckets through ListObjectsV2 (1000 per page), as the rebuild lists them. */
async function rawListing(): Promise<number> {
  let n = 0;
  for (const Bucket of Object.values(s3.buckets)) {
    let ContinuationToken: string | undefined;
    do {
      const page = await clients.internal.send(new ListObjectsV2Command({ Bucket, ContinuationToken }));
      n += page.Contents?.length ?? 0;
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
  }
  return n;
}

test('index rebuild vs raw listing', async () => {
  const puts: { Bucket: string; Key: string; Body: Buffer; ContentType: string }[] = [];
  for (let i = 1; i <= PAPERS; i++) {
    const stem = `2501.${String(i).padStart(5, '0')}v1`;
    puts.push({
      Bucket: s3.buckets.pdf,
      Key: `2501/${stem}.pdf`,
      Body: Buffer.from(`%PDF-1.7 ${stem}`),
      ContentType: 'application/pdf',
    });
    if (i % Math.round(1 / MD_SHARE) === 0 || i % 5 === 1) {
      puts.push({
        Bucket: s3.buckets.markdown,
        Key: `2501/${stem}.md`,
        Body: Buffer.from(`# ${stem}`),
        ContentType: 'text/markdown',
      });
      for (let k = 0; k < IMAGES_PER_MD; k++)
        puts.push({
          Bucket: s3.buckets.images,
          Key: `2501/${stem}/fig${k}.png`,
          Body: Buffer.from(`png ${stem} ${k}`),
          ContentType: 'image/png',
        });
    }
  }
  let t0 = performance.now();
  await pool(puts, 16, async (p) => {
    const sha256 = createHash('sha256').update(p.Body).digest('hex');
    await clients.internal.send(new PutObjectCommand({ ...p, Metadata: { sha256 } }));
  });
  report(
    `sync benchmark: ${puts.length} objects (${PAPERS} papers) put in ${ms(performance.now() - t0)}; ${machine()}`,
  );

  const store = new S3ObjectStore(clients, quiet);
  const rebuild = async () => {
    const t = performance.now();
    const r = await syncFromObjects(store, quiet, { dryRun: false, graph: null, progress: () => undefined });
    expect(r.papers).toBe(PAPERS);
    return performance.now() - t;
  };

  t0 = performance.now();
  expect(await rawListing()).toBe(puts.length);
  const firstListing = performance.now() - t0;
  const cold = await rebuild(); // no previous index: HEAD of every PDF and markdown
  const listings: number[] = [firstListing];
  const warm: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    t0 = performance.now();
    await rawListing();
    listings.push(performance.now() - t0);
    warm.push(await rebuild());
  }
  const bestListing = Math.min(...listings);
  const bestWarm = Math.min(...warm);
  report(`raw ListObjectsV2 of the three buckets: best ${ms(bestListing)} (${listings.map((v) => ms(v)).join(', ')})`);
  report(
    `rebuild without a previous index (HEADs for sha256): ${ms(cold)} = ${(cold / bestListing).toFixed(2)} × listing`,
  );
  report(
    `rebuild with the previous index: best ${ms(bestWarm)} = ${(bestWarm / bestListing).toFixed(2)} × listing — ` +
      `target ≤ 1.2×: ${verdict(bestWarm / bestListing <= 1.2)}`,
  );
});
