/**
 * An S3 store pointed at a plain HTTP server on loopback that answers as the test says (`handler`): for the answers
 * moto cannot be made to give (resets, truncated bodies, odd headers).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { createS3Clients, type S3Clients } from '../../../src/server/storage/s3-client.js';
import { S3ObjectStore } from '../../../src/server/storage/s3-store.js';

export interface LoopbackS3 {
  readonly server: http.Server;
  readonly clients: S3Clients;
  readonly store: S3ObjectStore;
  close(): Promise<void>;
}

/** `tempDir`: the store's temp area. */
export async function loopbackS3(tempDir: string, handler: http.RequestListener): Promise<LoopbackS3> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const clients = createS3Clients(
    {
      endpoint: `http://127.0.0.1:${port}`,
      publicEndpoint: null,
      region: 'us-east-1',
      accessKeyId: 'test',
      secretAccessKey: 'test-secret',
      buckets: { pdf: 'pdf', markdown: 'markdown', images: 'images' },
    },
    null,
  );
  const store = new S3ObjectStore(clients, pino({ level: 'silent' }), { tempDir });
  return {
    server,
    clients,
    store,
    async close() {
      clients.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
