/**
 * Test backends for the object-store contract suite: a local temp directory and a real S3 API (moto).
 */
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import type { ObjectStoreConfig } from '../../../src/server/config/types.js';
import { LocalObjectStore } from '../../../src/server/storage/local-store.js';
import type { CallOptions, ObjectStore } from '../../../src/server/storage/object-store.js';
import { createS3Clients } from '../../../src/server/storage/s3-client.js';
import { S3ObjectStore } from '../../../src/server/storage/s3-store.js';
import type { MotoServer } from '../../support/moto.js';

export interface StoreFixture {
  readonly store: ObjectStore;
  /** Local: the raw dir; S3: null. */
  readonly root: string | null;
  readonly objectStore: ObjectStoreConfig | null;
  close(): Promise<void>;
}

export const quietLogger = () => pino({ level: 'silent' });

/**
 * Publishes `bytes` as the index the way the service does: written into `indexTempPath()`, then `writeIndexFile`.
 * Returns its answer (the new ETag, or `null` on a failed precondition) and the temp file's path.
 */
export async function publishIndex(
  store: ObjectStore,
  bytes: Buffer,
  expectedEtag: string | null,
  options?: CallOptions,
): Promise<{ etag: string | null; temp: string }> {
  const temp = await store.indexTempPath();
  await writeFile(temp, bytes, { flag: 'wx' });
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  return { etag: await store.writeIndexFile({ path: temp, size: bytes.length, sha256 }, expectedEtag, options), temp };
}

export async function localFixture(): Promise<StoreFixture> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'pks-store-'));
  const store = new LocalObjectStore(root);
  await store.start();
  return { store, root, objectStore: null, close: () => rm(root, { recursive: true, force: true }) };
}

/** Fresh buckets (unique names) on a running moto; versioning is enabled by `start()`. */
export async function motoBuckets(moto: MotoServer): Promise<ObjectStoreConfig> {
  const suffix = randomBytes(4).toString('hex');
  const config: ObjectStoreConfig = {
    endpoint: moto.endpoint,
    publicEndpoint: null,
    region: moto.region,
    accessKeyId: moto.accessKeyId,
    secretAccessKey: moto.secretAccessKey,
    buckets: { pdf: `pdf-${suffix}`, markdown: `md-${suffix}`, images: `img-${suffix}` },
  };
  const clients = createS3Clients(config, null);
  try {
    for (const Bucket of Object.values(config.buckets))
      await clients.internal.send(new CreateBucketCommand({ Bucket }));
  } finally {
    clients.destroy();
  }
  return config;
}

export async function s3Fixture(moto: MotoServer, options: { listPageSize?: number } = {}): Promise<StoreFixture> {
  const config = await motoBuckets(moto);
  const clients = createS3Clients(config, null);
  const store = new S3ObjectStore(clients, quietLogger(), options);
  await store.start();
  return { store, root: null, objectStore: config, close: async () => clients.destroy() };
}

/** The env settings selecting the moto buckets for `startTestServer`. */
export function objectStoreEnv(config: ObjectStoreConfig): Record<string, string> {
  return {
    SVC_OBJ_ENDPOINT: config.endpoint,
    SVC_OBJ_REGION: config.region,
    SVC_OBJ_ACCESS_KEY_ID: config.accessKeyId,
    SVC_OBJ_SECRET_ACCESS_KEY: config.secretAccessKey,
    SVC_OBJ_BUCKET_PDF: config.buckets.pdf,
    SVC_OBJ_BUCKET_MD: config.buckets.markdown,
    SVC_OBJ_BUCKET_IMAGES: config.buckets.images,
  };
}
