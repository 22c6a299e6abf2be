/**
 * Presigned GET URLs (CONTRACT §3.4): S3 signs for SVC_OBJ_PUBLIC_ENDPOINT with the given TTL and the URL fetches
 * the object; without a public endpoint, and on the local backend (§3.5), presigning is unavailable (`null`).
 */
import { describe, expect, it } from 'vitest';
import { S3ObjectStore } from '../../../src/server/storage/s3-store.js';
import { createS3Clients } from '../../../src/server/storage/s3-client.js';
import { useMoto } from '../../support/moto.js';
import { localFixture, motoBuckets, quietLogger } from './backends.js';

const moto = useMoto();
const KEY = 'pdf/2501/2501.00010v1.pdf';
const BYTES = Buffer.from('%PDF-1.7\npresign\n');
const put = { contentType: 'application/pdf', metadata: { sha256: 'x' } };

describe('presignGet', () => {
  it('S3 with SVC_OBJ_PUBLIC_ENDPOINT: a signed URL on the public host that fetches the object', async () => {
    const config = {
      ...(await motoBuckets(moto())),
      publicEndpoint: moto().endpoint.replace('127.0.0.1', 'localhost'),
    };
    const clients = createS3Clients(config, null);
    try {
      const store = new S3ObjectStore(clients, quietLogger());
      await store.put(KEY, BYTES, put);
      const url = new URL((await store.presignGet(KEY, 1800))!);
      expect(url.host).toBe(new URL(config.publicEndpoint).host);
      expect(url.pathname).toBe(`/${config.buckets.pdf}/2501/2501.00010v1.pdf`);
      expect(url.searchParams.get('X-Amz-Expires')).toBe('1800');
      expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
      const res = await fetch(url);
      expect([res.status, Buffer.from(await res.arrayBuffer())]).toEqual([200, BYTES]);
    } finally {
      clients.destroy();
    }
  });

  it('S3 without a public endpoint: null', async () => {
    const clients = createS3Clients(await motoBuckets(moto()), null);
    try {
      expect(await new S3ObjectStore(clients, quietLogger()).presignGet(KEY, 1800)).toBeNull();
    } finally {
      clients.destroy();
    }
  });

  it('local backend: null (the arXiv URL is used instead)', async () => {
    const fixture = await localFixture();
    try {
      await fixture.store.put(KEY, BYTES, put);
      expect(await fixture.store.presignGet(KEY, 1800)).toBeNull();
    } finally {
      await fixture.close();
    }
  });
});
