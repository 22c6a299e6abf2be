/**
 * A failing object store reaches the client through the one domain error, `UpstreamError('object_store')`: the
 * S3 backend with its PDF bucket removed under a running server answers the contract's 500 with the underlying
 * message (SPEC "Errors"), logged once as that error with its cause.
 */
import { DeleteBucketCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ObjectStoreConfig } from '../../../src/server/config/types.js';
import { createS3Clients } from '../../../src/server/storage/s3-client.js';
import { startMoto, type MotoServer } from '../../support/moto.js';
import { startTestServer, type TestServer } from '../../support/server.js';
import { multipart, pdfBytes } from '../papers/helpers.js';
import { motoBuckets } from './backends.js';

const SYSTEM_PAT = 'store-failure-system-pat-01';

describe('an object store failure through the real server (S3, bucket removed)', () => {
  let moto: MotoServer;
  let buckets: ObjectStoreConfig;
  let srv: TestServer;

  beforeAll(async () => {
    moto = await startMoto();
    buckets = await motoBuckets(moto);
    srv = await startTestServer({
      SVC_SYSTEM_PAT: SYSTEM_PAT,
      SVC_OBJ_ENDPOINT: moto.endpoint,
      SVC_OBJ_ACCESS_KEY_ID: moto.accessKeyId,
      SVC_OBJ_SECRET_ACCESS_KEY: moto.secretAccessKey,
      SVC_OBJ_BUCKET_PDF: buckets.buckets.pdf,
      SVC_OBJ_BUCKET_MD: buckets.buckets.markdown,
      SVC_OBJ_BUCKET_IMAGES: buckets.buckets.images,
    });
  });
  afterAll(async () => {
    await srv?.close();
    await moto?.stop();
  });

  it('answers 500 `object store error: <op> <key>: <reason>` and logs one UpstreamError with its cause', async () => {
    const clients = createS3Clients(buckets, null);
    try {
      await clients.internal.send(new DeleteBucketCommand({ Bucket: buckets.buckets.pdf }));
    } finally {
      clients.destroy();
    }
    const { body, contentType } = multipart([{ name: 'pdf', content: pdfBytes('store failure') }]);
    const before = srv.logs.lines.length;
    const res = await srv.fetch('/api/papers/2501.00011v1/upload-pdf', {
      method: 'POST',
      headers: { Authorization: `Bearer ${SYSTEM_PAT}`, 'Content-Type': contentType },
      body,
    });
    const answer = (await res.json()) as Record<string, unknown>;
    expect(res.status, JSON.stringify(answer)).toBe(500);
    expect(Object.keys(answer)).toEqual(['detail']);
    expect(answer['detail']).toMatch(
      /^object store error: [a-z ]+ pdf\/2501\/2501\.00011v1\.pdf: .*NoSuchBucket|bucket/i,
    );
    const errors = srv.logs.lines
      .slice(before)
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => (l['level'] as number) >= 50);
    expect(errors).toHaveLength(1);
    const err = errors[0]!['err'] as { type: string; message: string; stack: string };
    expect(err.type).toBe('UpstreamError');
    expect(err.message.startsWith(String(answer['detail']))).toBe(true); // pino appends the causes' messages
    expect(err.stack).toMatch(/caused by: \w+/);
  });
});
