import {
  CreateBucketCommand,
  GetBucketVersioningCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import neo4j from 'neo4j-driver';
import { describe, expect, it } from 'vitest';
import { startMoto } from './moto.js';
import { startNeo4j } from './neo4j.js';

describe('real-server test harness', () => {
  it('runs moto S3 with conditional writes and versioning', async () => {
    const moto = await startMoto();
    const s3 = new S3Client({
      endpoint: moto.endpoint,
      forcePathStyle: true,
      region: moto.region,
      credentials: { accessKeyId: moto.accessKeyId, secretAccessKey: moto.secretAccessKey },
    });
    try {
      await s3.send(new CreateBucketCommand({ Bucket: 'harness' }));
      const putOnce = (body: string) =>
        s3.send(new PutObjectCommand({ Bucket: 'harness', Key: 'a.txt', Body: body, IfNoneMatch: '*' }));
      await putOnce('one');
      await expect(putOnce('two')).rejects.toMatchObject({
        name: 'PreconditionFailed',
        $metadata: { httpStatusCode: 412 },
      });

      await s3.send(
        new PutBucketVersioningCommand({ Bucket: 'harness', VersioningConfiguration: { Status: 'Enabled' } }),
      );
      const versioning = await s3.send(new GetBucketVersioningCommand({ Bucket: 'harness' }));
      expect(versioning.Status).toBe('Enabled');
    } finally {
      s3.destroy();
      await moto.stop();
    }
  });

  it('runs Neo4j 5.26 Community with Bolt on loopback', { timeout: 180_000 }, async () => {
    const server = await startNeo4j();
    const driver = neo4j.driver(server.boltUri, neo4j.auth.basic(server.username, server.password));
    try {
      const { records } = await driver.executeQuery('RETURN 1 AS one');
      expect(neo4j.integer.toNumber(records[0]?.get('one'))).toBe(1);
    } finally {
      await driver.close();
      await server.stop();
    }
    // Stopped for real: the process is gone.
    expect(() => process.kill(server.pid, 0)).toThrow();
  });
});
