import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { buffer as readAll } from 'node:stream/consumers';
import { LocalObjectStore } from '../../../src/server/storage/local-store.js';
import type { ObjectStore } from '../../../src/server/storage/object-store.js';
import { createS3Clients } from '../../../src/server/storage/s3-client.js';
import { S3ObjectStore } from '../../../src/server/storage/s3-store.js';
import { useFixture } from '../../support/fixture.js';
import { useMoto, type MotoServer } from '../../support/moto.js';
import { startTestServer, type TestServer } from '../../support/server.js';
import { motoBuckets, objectStoreEnv, quietLogger } from '../storage/backends.js';

export const PAT = 'x'.repeat(20);
export const AUTH = { Authorization: `Bearer ${PAT}` };

export const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
export const pdfBytes = (text: string) => Buffer.from(`%PDF-1.7\n${text}\n%%EOF\n`);

export interface Part {
  readonly name: string;
  readonly filename?: string | null;
  readonly content: Buffer | string;
  readonly contentType?: string;
}

/** A multipart/form-data body. */
export function multipart(parts: readonly Part[], boundary = `----pks${Math.random().toString(16).slice(2)}`) {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const filename = p.filename === null ? '' : `; filename="${p.filename ?? `${p.name}.bin`}"`;
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"${filename}\r\n` +
          `Content-Type: ${p.contentType ?? 'application/octet-stream'}\r\n\r\n`,
      ),
    );
    chunks.push(Buffer.isBuffer(p.content) ? p.content : Buffer.from(p.content));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

export interface Backend {
  readonly name: 'local' | 's3';
  readonly server: TestServer;
  /** A store on the same backend as the server, for setup and assertions. */
  readonly store: ObjectStore;
  close(): Promise<void>;
}

export async function startBackend(
  name: 'local' | 's3',
  moto: MotoServer | null,
  env: Record<string, string> = {},
): Promise<Backend> {
  if (name === 'local') {
    const server = await startTestServer({ SVC_SYSTEM_PAT: PAT, ...env });
    const store = new LocalObjectStore(server.config.rawDir);
    return { name, server, store, close: () => server.close() };
  }
  const config = await motoBuckets(moto!);
  const server = await startTestServer({ SVC_SYSTEM_PAT: PAT, ...objectStoreEnv(config), ...env });
  const clients = createS3Clients(config, null);
  const store = new S3ObjectStore(clients, quietLogger());
  return {
    name,
    server,
    store,
    async close() {
      clients.destroy();
      await server.close();
    },
  };
}

/** What the tests see of a backend `useBackend` runs for them. */
export type BackendFixture = Omit<Backend, 'close'>;

/**
 * `startBackend` (the S3 one on a moto of its own) for the tests of the calling describe block, closed after them;
 * the fixture's properties are for use inside tests and hooks.
 */
export function useBackend(name: 'local' | 's3', env: Record<string, string> = {}): BackendFixture {
  const moto = name === 's3' ? useMoto() : null;
  const current = useFixture(
    `the ${name} backend`,
    () => startBackend(name, moto?.() ?? null, env),
    (b) => b.close(),
  );
  return {
    name,
    get server() {
      return current().server;
    },
    get store() {
      return current().store;
    },
  };
}

export async function storedBytes(store: ObjectStore, key: string): Promise<Buffer | null> {
  const got = await store.get(key);
  return got === null ? null : readAll(got.body);
}

/** Files left in `<SVC_DATA_DIR>/tmp/` (staged uploads must always be removed). */
export async function stagedLeftovers(server: TestServer): Promise<string[]> {
  try {
    return await readdir(path.join(server.config.dataDir, 'tmp'));
  } catch {
    return [];
  }
}

export async function uploadPdf(
  server: TestServer,
  id: string,
  bytes: Buffer,
  query = '',
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const { body, contentType } = multipart([
    { name: 'pdf', filename: 'paper.pdf', content: bytes, contentType: 'application/pdf' },
  ]);
  const res = await server.fetch(`/api/papers/${id}/upload-pdf${query ? `?${query}` : ''}`, {
    method: 'POST',
    headers: { ...AUTH, 'Content-Type': contentType, ...headers },
    body,
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {}, headers: res.headers };
}
