/**
 * `S3ObjectStore.openIndex` against answers given by a plain HTTP server on loopback (as S3 gives them; a reset
 * mid-body moto cannot give): the index is downloaded into the temp area, opened, and unlinked at once, so no temp
 * file is left and only the open descriptor pins the copy — which a replaced table closes at once (40 reloads).
 */
import { readdirSync, readSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import type http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { StoreIndexPersistence } from '../../../src/server/papers/index-parquet.js';
import { PaperIndex } from '../../../src/server/papers/paper-index.js';
import type { S3ObjectStore } from '../../../src/server/storage/s3-store.js';
import { encodeRows, indexRow } from '../papers/lazy-index-fixtures.js';
import { loopbackS3, type LoopbackS3 } from './loopback-s3.js';
import { openDescriptorTargets } from '../../support/descriptors.js';

let dir: string;
let s3: LoopbackS3;
let store: S3ObjectStore;
let answer: (req: http.IncomingMessage, res: http.ServerResponse) => void;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pks-s3-open-index-'));
  s3 = await loopbackS3(path.join(dir, 'tmp'), (q, r) => answer(q, r));
  store = s3.store;
});
afterEach(async () => {
  await s3.close();
  await rm(dir, { recursive: true, force: true });
});

const onTmp = () => openDescriptorTargets().filter((t) => t.startsWith(path.join(dir, 'tmp')));

it('200: an open descriptor on an unlinked temp file with the body; nothing left in the temp dir', async () => {
  answer = (_, res) => {
    res.writeHead(200, { etag: '"e1"', 'content-length': '5' });
    res.end('hello');
  };
  const opened = (await store.openIndex())!;
  expect(opened.size).toBe(5);
  expect(opened.etag).toBe('"e1"');
  const b = Buffer.alloc(5);
  readSync(opened.fd, b, 0, 5, 0);
  expect(b.toString()).toBe('hello');
  expect(readdirSync(path.join(dir, 'tmp'))).toEqual([]);
  expect(onTmp()).toHaveLength(1);
});

it('404: null, no temp file, no descriptor', async () => {
  answer = (_, res) => {
    res.writeHead(404, { 'content-type': 'application/xml' });
    res.end('<Error><Code>NoSuchKey</Code><Message>x</Message></Error>');
  };
  expect(await store.openIndex()).toBeNull();
  expect(readdirSync(path.join(dir, 'tmp'))).toEqual([]);
  expect(onTmp()).toEqual([]);
});

it('connection reset mid-body: rejects, no temp file, no descriptor', async () => {
  answer = (_, res) => {
    res.writeHead(200, { etag: '"e1"', 'content-length': '1000000' });
    res.write(Buffer.alloc(1000));
    setTimeout(() => res.socket?.destroy(), 20);
  };
  await expect(store.openIndex()).rejects.toThrow();
  expect(readdirSync(path.join(dir, 'tmp'))).toEqual([]);
  expect(onTmp()).toEqual([]);
});

/** An index of `n` rows titled `title …`, in row groups of 2 rows (a lazy table keeps its file open). */
function indexBytes(title: string, n = 6): Buffer {
  const rows = Array.from({ length: n }, (_, k) =>
    indexRow(k + 1, `${title} ${k + 1}`, {
      image_count: 0,
      pdf_size_bytes: null,
      pdf_sha256: null,
      pdf_uploaded_at: null,
      updated_at: new Date(1_700_000_000_000),
    }),
  );
  return encodeRows(rows, 2);
}

it('40 reloads of a changed index: the replaced tables’ temp copies are closed at once', async () => {
  let version = 0;
  let body = indexBytes('v0');
  answer = (req, res) => {
    const etag = `"v${version}"`;
    if (req.method === 'HEAD') {
      res.writeHead(200, { etag, 'content-length': String(body.length) });
      res.end();
      return;
    }
    res.writeHead(200, { etag, 'content-length': String(body.length) });
    res.end(body);
  };
  const index = new PaperIndex(pino({ level: 'silent' }), new StoreIndexPersistence(store, pino({ level: 'silent' })), {
    flushDelayMs: 1e9,
    reloadIntervalMs: 1e9,
  });
  await index.load();
  expect(onTmp().length).toBeLessThanOrEqual(1);
  let most = 0;
  for (let k = 1; k <= 40; k++) {
    version = k;
    body = indexBytes(`v${k}`);
    await index.reload();
    expect(index.get('2501.00001v1')!.title).toBe(`v${k} 1`);
    most = Math.max(most, onTmp().length);
  }
  // The current table's copy at most (its later row groups not decoded yet).
  expect(most).toBeLessThanOrEqual(1);
  expect(readdirSync(path.join(dir, 'tmp'))).toEqual([]);
  await index.close();
});
