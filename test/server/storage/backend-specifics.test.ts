/**
 * Backend-specific behaviour: local layout (§3.5), S3 versioning at start and error mapping (§3.3–3.4), and the
 * write policy's rare branches (§3.3 step 2 "object gone", step 3 errors) with a scripted store.
 */
import { GetBucketVersioningCommand, PutBucketVersioningCommand } from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentTypeFor } from '../../../src/server/storage/keys.js';
import { LocalObjectStore } from '../../../src/server/storage/local-store.js';
import type { ObjectInfo, ObjectStore } from '../../../src/server/storage/object-store.js';
import { createS3Clients, type S3Clients } from '../../../src/server/storage/s3-client.js';
import { S3ObjectStore } from '../../../src/server/storage/s3-store.js';
import { writeObject } from '../../../src/server/storage/write.js';
import { isObjectStoreError, UpstreamError } from '../../../src/shared/domain-errors.js';
import { startMoto, type MotoServer } from '../../support/moto.js';
import { localFixture, motoBuckets, publishIndex, quietLogger } from './backends.js';

const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

describe('local backend layout (§3.5)', () => {
  it('content at the app-key path, sidecar {sha256, content_type, metadata}', async () => {
    const fx = await localFixture();
    try {
      const body = Buffer.from('%PDF-1.4 x');
      await writeObject(fx.store, 'pdf/2501/2501.00010v1.pdf', body, {
        sha256: sha(body),
        contentType: 'application/pdf',
        metadata: { 'uploaded-by': 'alice' },
      });
      const file = path.join(fx.root!, 'pdf/2501/2501.00010v1.pdf');
      expect(await readFile(file)).toEqual(body);
      const sidecar = JSON.parse(await readFile(file + '.meta.json', 'utf8')) as Record<string, unknown>;
      expect(sidecar).toEqual({
        sha256: sha(body),
        content_type: 'application/pdf',
        metadata: {
          'uploaded-by': 'alice',
          sha256: sha(body),
          'created-at': expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
        },
      });
      expect(await readdir(path.join(fx.root!, '.tmp'))).toEqual([]);
    } finally {
      await fx.close();
    }
  });

  it('a directory of the layout is not an object: get and head answer null', async () => {
    const fx = await localFixture();
    try {
      const body = Buffer.from('png');
      await writeObject(fx.store, 'images/2501/2501.00010v1/sub/a.png', body, {
        sha256: sha(body),
        contentType: 'image/png',
      });
      expect(await fx.store.get('images/2501/2501.00010v1/sub')).toBeNull();
      expect(await fx.store.head('images/2501/2501.00010v1/sub')).toBeNull();
      expect((await fx.store.get('images/2501/2501.00010v1/sub/a.png'))?.info.size).toBe(3);
    } finally {
      await fx.close();
    }
  });

  it('overwrite keeps the prior content and sidecar under .versions/<app key>/<stamp>-<6 hex>', async () => {
    const fx = await localFixture();
    try {
      const a = Buffer.from('a');
      const b = Buffer.from('b');
      await writeObject(fx.store, 'markdown/2501/2501.00010v1.md', a, { sha256: sha(a), contentType: 'text/markdown' });
      await writeObject(fx.store, 'markdown/2501/2501.00010v1.md', b, {
        sha256: sha(b),
        contentType: 'text/markdown',
        overwrite: true,
      });
      const dir = path.join(fx.root!, '.versions/markdown/2501/2501.00010v1.md');
      const names = (await readdir(dir)).sort();
      expect(names).toHaveLength(2);
      expect(names[0]).toMatch(/^\d{8}T\d{6}Z-[0-9a-f]{6}$/);
      expect(names[1]).toBe(`${names[0]}.meta.json`);
      expect(await readFile(path.join(dir, names[0]!))).toEqual(a);
      expect(await readFile(path.join(fx.root!, 'markdown/2501/2501.00010v1.md'))).toEqual(b);
    } finally {
      await fx.close();
    }
  });

  it('start removes temp files older than 1 h and keeps fresh ones', async () => {
    const fx = await localFixture();
    try {
      const tmp = path.join(fx.root!, '.tmp');
      await writeFile(path.join(tmp, 'old'), 'x');
      await writeFile(path.join(tmp, 'fresh'), 'y');
      const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
      await utimes(path.join(tmp, 'old'), twoHoursAgo, twoHoursAgo);
      await new LocalObjectStore(fx.root!).start();
      expect(await readdir(tmp)).toEqual(['fresh']);
    } finally {
      await fx.close();
    }
  });

  it('listings skip .tmp, .versions and sidecars; a content file without sidecar has no metadata', async () => {
    const fx = await localFixture();
    try {
      await mkdir(path.join(fx.root!, 'pdf/9508'), { recursive: true });
      await writeFile(path.join(fx.root!, 'pdf/9508/9508027v1.pdf'), '%PDF-legacy');
      await writeFile(path.join(fx.root!, 'pdf/9508/orphan.pdf.meta.json'), '{}');
      const listed: string[] = [];
      for await (const o of fx.store.list('pdf/')) listed.push(o.key);
      expect(listed).toEqual(['pdf/9508/9508027v1.pdf']);
      const info = await fx.store.head('pdf/9508/9508027v1.pdf');
      expect(info!.metadata).toEqual({});
      expect(info!.size).toBe(11);
    } finally {
      await fx.close();
    }
  });

  it('a failed link leaves no temp file and no object', async () => {
    const fx = await localFixture();
    try {
      // A directory where the object should go makes the write fail with a store error.
      await mkdir(path.join(fx.root!, 'pdf/2501/2501.00010v1.pdf'), { recursive: true });
      await expect(
        writeObject(fx.store, 'pdf/2501/2501.00010v1.pdf', Buffer.from('x'), {
          sha256: sha('x'),
          contentType: 'application/pdf',
          overwrite: true,
        }),
      ).rejects.toSatisfy(isObjectStoreError);
      expect(await readdir(path.join(fx.root!, '.tmp'))).toEqual([]);
      expect((await stat(path.join(fx.root!, 'pdf/2501/2501.00010v1.pdf'))).isDirectory()).toBe(true);
    } finally {
      await fx.close();
    }
  });
});

describe('local backend index file (§4.2)', () => {
  it('publishing is a rename of the temp file (under <raw>/.tmp); a store error removes the file', async () => {
    const fx = await localFixture();
    try {
      const temp = await fx.store.indexTempPath();
      expect(path.dirname(temp)).toBe(path.join(fx.root!, '.tmp'));
      const { etag } = await publishIndex(fx.store, Buffer.from('one'), null);
      expect(etag).toBe(sha('one'));
      expect(await readFile(path.join(fx.root!, 'index/papers.parquet'), 'utf8')).toBe('one');
      // `index/` replaced by a file: the store cannot stat the index.
      await rm(path.join(fx.root!, 'index'), { recursive: true });
      await writeFile(path.join(fx.root!, 'index'), 'not a directory');
      const failed = publishIndex(fx.store, Buffer.from('two'), etag);
      await expect(failed).rejects.toThrow(/^object store error: write index\/papers\.parquet: /);
      expect(await readdir(path.join(fx.root!, '.tmp'))).toEqual([]);
    } finally {
      await fx.close();
    }
  });
});

describe('S3 backend (§3.4)', () => {
  let moto: MotoServer;
  beforeAll(async () => {
    moto = await startMoto();
  });
  afterAll(async () => {
    await moto?.stop();
  });

  it('start enables versioning on the three buckets', async () => {
    const config = await motoBuckets(moto);
    const clients = createS3Clients(config, null);
    try {
      await clients.internal.send(
        new PutBucketVersioningCommand({
          Bucket: config.buckets.markdown,
          VersioningConfiguration: { Status: 'Suspended' },
        }),
      );
      await new S3ObjectStore(clients, quietLogger()).start();
      for (const Bucket of Object.values(config.buckets)) {
        const v = await clients.internal.send(new GetBucketVersioningCommand({ Bucket }));
        expect(v.Status).toBe('Enabled');
      }
    } finally {
      clients.destroy();
    }
  });

  it('a versioning failure is a warning, not fatal', async () => {
    const config = await motoBuckets(moto);
    const clients = createS3Clients({ ...config, buckets: { ...config.buckets, images: 'no-such-bucket-x' } }, null);
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (l: string) => void lines.push(l) });
    try {
      await new S3ObjectStore(clients, logger).start();
      expect(lines.join('')).toContain('could not enable versioning on bucket no-such-bucket-x');
    } finally {
      clients.destroy();
    }
  });

  it('index files are written in the temp directory; start removes the stale ones a crash left', async () => {
    const tempDir = await mkdtemp(path.join(os.tmpdir(), 'pks-s3-temp-'));
    const config = await motoBuckets(moto);
    const clients = createS3Clients(config, null);
    try {
      const old = new Date(Date.now() - 2 * 60 * 60 * 1000);
      for (const name of ['index-crashed', 'upload-someone-elses']) {
        await writeFile(path.join(tempDir, name), 'x');
        await utimes(path.join(tempDir, name), old, old);
      }
      const store = new S3ObjectStore(clients, quietLogger(), { tempDir });
      await store.start();
      expect(await readdir(tempDir)).toEqual(['upload-someone-elses']);
      expect(path.dirname(await store.indexTempPath())).toBe(tempDir);
      const { etag, temp } = await publishIndex(store, Buffer.from('one'), null);
      expect(etag).toBeTruthy();
      expect(existsSync(temp)).toBe(false);
      expect((await store.readIndex())!.bytes.toString()).toBe('one');
    } finally {
      clients.destroy();
      await rm(tempDir, { recursive: true, force: true });
    }
  });

  it('an index publish that fails (no such bucket) is a store error and removes the file', async () => {
    const tempDir = await mkdtemp(path.join(os.tmpdir(), 'pks-s3-temp-'));
    const config = await motoBuckets(moto);
    const clients = createS3Clients({ ...config, buckets: { ...config.buckets, pdf: 'missing-bucket-z' } }, null);
    try {
      const store = new S3ObjectStore(clients, quietLogger(), { tempDir });
      await expect(publishIndex(store, Buffer.from('one'), null)).rejects.toThrow(
        /^object store error: write index\/papers\.parquet: /,
      );
      expect(await readdir(tempDir)).toEqual([]);
    } finally {
      clients.destroy();
      await rm(tempDir, { recursive: true, force: true });
    }
  });

  it("a store error surfaces as UpstreamError('object_store') naming the operation and key", async () => {
    const config = await motoBuckets(moto);
    const clients = createS3Clients({ ...config, buckets: { ...config.buckets, pdf: 'missing-bucket-y' } }, null);
    try {
      const store = new S3ObjectStore(clients, quietLogger());
      const err = await writeObject(store, 'pdf/2501/2501.00010v1.pdf', Buffer.from('x'), {
        sha256: sha('x'),
        contentType: 'application/pdf',
      }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UpstreamError);
      expect((err as UpstreamError).upstream).toBe('object_store');
      expect((err as Error).message).toMatch(/^object store error: put pdf\/2501\/2501\.00010v1\.pdf: /);
      // Listing errors are fatal to the caller.
      await expect(async () => {
        for await (const _ of store.list('pdf/')) void _;
      }).rejects.toSatisfy(isObjectStoreError);
    } finally {
      clients.destroy();
    }
  });

  it('409 ConditionalRequestConflict counts as a failed precondition; other 409s do not', async () => {
    const fake = (error: Record<string, unknown>) =>
      ({
        internal: { send: async () => Promise.reject(Object.assign(new Error('boom'), error)) },
        publicSigner: null,
        buckets: { pdf: 'p', markdown: 'm', images: 'i' },
        destroy: () => undefined,
      }) as unknown as S3Clients;
    const opts = { contentType: 'application/pdf', metadata: {} };
    const conflict = new S3ObjectStore(
      fake({ name: 'ConditionalRequestConflict', $metadata: { httpStatusCode: 409 } }),
      quietLogger(),
    );
    expect(await conflict.putIfAbsent('pdf/2501/x.pdf', Buffer.from('x'), opts)).toBeNull();
    const precondition = new S3ObjectStore(
      fake({ name: 'PreconditionFailed', $metadata: { httpStatusCode: 412 } }),
      quietLogger(),
    );
    expect(await precondition.putIfAbsent('pdf/2501/x.pdf', Buffer.from('x'), opts)).toBeNull();
    const other = new S3ObjectStore(
      fake({ name: 'OperationAborted', $metadata: { httpStatusCode: 409 } }),
      quietLogger(),
    );
    await expect(other.putIfAbsent('pdf/2501/x.pdf', Buffer.from('x'), opts)).rejects.toSatisfy(isObjectStoreError);
    const unsupported = new S3ObjectStore(
      fake({ name: 'NotImplemented', $metadata: { httpStatusCode: 501 } }),
      quietLogger(),
    );
    await expect(unsupported.putIfAbsent('pdf/2501/x.pdf', Buffer.from('x'), opts)).rejects.toThrow(
      /put pdf\/2501\/x\.pdf: boom/,
    );
  });
});

describe('write policy branches (§3.3)', () => {
  /** A store whose conditional puts and heads follow a script. */
  function scripted(puts: boolean[], heads: (ObjectInfo | null)[]) {
    const calls: string[] = [];
    const store = {
      backend: 'local',
      putIfAbsent: async () => {
        calls.push('putIfAbsent');
        return (puts.shift() ?? false) ? { etag: null } : null;
      },
      head: async () => {
        calls.push('head');
        return heads.shift() ?? null;
      },
      put: async () => {
        calls.push('put');
        return { etag: null };
      },
    } as unknown as ObjectStore;
    return { store, calls };
  }
  const info = (sha256?: string): ObjectInfo => ({
    key: 'pdf/2501/x.pdf',
    size: 1,
    etag: null,
    lastModified: null,
    contentType: null,
    metadata: sha256 ? { sha256 } : {},
  });
  const req = { sha256: sha('x'), contentType: 'application/pdf' };

  it('object gone after 412 → one more PUT, which may succeed', async () => {
    const { store, calls } = scripted([false, true], [null]);
    expect(await writeObject(store, 'pdf/2501/x.pdf', Buffer.from('x'), req)).toMatchObject({
      status: 'written',
      overwritten: false,
    });
    expect(calls).toEqual(['putIfAbsent', 'head', 'putIfAbsent']);
  });

  it('object gone after 412, then a second 412 → conflict', async () => {
    const { store } = scripted([false, false], [null, info(sha('y'))]);
    expect(await writeObject(store, 'pdf/2501/x.pdf', Buffer.from('x'), req)).toEqual({
      status: 'conflict',
      existingSha256: sha('y'),
    });
  });

  it('overwrite with the same sha256 makes zero writes', async () => {
    const { store, calls } = scripted([], [info(sha('x'))]);
    expect(await writeObject(store, 'pdf/2501/x.pdf', Buffer.from('x'), { ...req, overwrite: true })).toEqual({
      status: 'unchanged',
    });
    expect(calls).toEqual(['head']);
  });

  it('overwrite of an object without sha256 writes (overwritten)', async () => {
    const { store, calls } = scripted([], [info()]);
    expect(await writeObject(store, 'pdf/2501/x.pdf', Buffer.from('x'), { ...req, overwrite: true })).toMatchObject({
      status: 'written',
      overwritten: true,
    });
    expect(calls).toEqual(['head', 'put']);
  });
});

describe('content types (§3.1)', () => {
  it.each([
    ['pdf/2501/x.pdf', 'application/pdf'],
    ['markdown/2501/x.md', 'text/markdown; charset=utf-8'],
    ['images/2501/x/a.png', 'image/png'],
    ['images/2501/x/a.JPG', 'image/jpeg'],
    ['images/2501/x/a.jpeg', 'image/jpeg'],
    ['images/2501/x/a.gif', 'image/gif'],
    ['images/2501/x/a.webp', 'image/webp'],
    ['images/2501/x/d/a.svg', 'image/svg+xml'],
    ['images/2501/x/a.bmp', 'application/octet-stream'],
    ['images/2501/x/noext', 'application/octet-stream'],
  ])('%s → %s', (key, type) => {
    expect(contentTypeFor(key)).toBe(type);
  });
});
