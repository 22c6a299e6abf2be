/**
 * The index PUT (`S3ObjectStore.writeIndexFile`) against answers moto cannot be made to give: a 412 before the body
 * was read (S3 answers `Expect: 100-continue` that way), a 503 or a reset connection and then success, an error
 * that is no store hiccup. A plain HTTP server on loopback answers as S3 does (its error XML). The SDK never
 * retries a streamed body, so the store does; and a body stream is closed whatever the answer, so a removed temp
 * file's space is not held by an open descriptor.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import type http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { S3ObjectStore } from '../../../src/server/storage/s3-store.js';
import { loopbackS3, type LoopbackS3 } from './loopback-s3.js';
import { openDescriptorTargets } from '../../support/descriptors.js';

type Answer = (request: http.IncomingMessage, response: http.ServerResponse) => void;

const xmlError = (response: http.ServerResponse, status: number, code: string): void => {
  response.writeHead(status, { 'content-type': 'application/xml' });
  response.end(`<Error><Code>${code}</Code><Message>${code}</Message></Error>`);
};
/** Reads the whole body, then answers. */
const afterBody =
  (answer: Answer): Answer =>
  (request, response) => {
    request.resume();
    request.on('end', () => answer(request, response));
  };
const created = afterBody((_, response) => {
  response.writeHead(200, { etag: '"fresh-etag"' });
  response.end();
});
const slowDown = afterBody((_, response) => xmlError(response, 503, 'SlowDown'));
const reset: Answer = (request) => request.socket.destroy();

let dir: string;
let s3: LoopbackS3;
let store: S3ObjectStore;
/** The answers to give, one per request, in order. */
let answers: Answer[];
let requests: number;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pks-s3-index-'));
  answers = [];
  requests = 0;
  s3 = await loopbackS3(path.join(dir, 'index-tmp'), (request, response) => answers[requests++]!(request, response));
  store = s3.store;
});

afterEach(async () => {
  await s3.close();
  await rm(dir, { recursive: true, force: true });
});

/** An index file of `size` bytes in the store's temp area, as the encoder leaves it. */
async function indexFile(size = 4 * 1024 * 1024): Promise<{ path: string; size: number; sha256: string }> {
  const file = await store.indexTempPath();
  writeFileSync(file, Buffer.alloc(size, 7));
  return { path: file, size, sha256: 'a'.repeat(64) };
}

/** This process's descriptors open on `file` (a removed file shows as `<path> (deleted)`). */
const descriptorsOn = (file: string): string[] => openDescriptorTargets().filter((target) => target.startsWith(file));

/** Waits until no descriptor is open on `file`; fails after 10 s with the ones still open. */
async function noDescriptorOn(file: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (descriptorsOn(file).length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setImmediate(resolve));
  }
  expect(descriptorsOn(file)).toEqual([]);
}

describe('S3 index PUT', () => {
  const precondition: Answer = (_, response) => xmlError(response, 412, 'PreconditionFailed');
  it.each([
    { answer: 'a 412 before the body was read: lost the race', given: [precondition], etag: null, tries: 1 },
    {
      answer: 'a 503, then success: tried again with a fresh stream',
      given: [slowDown, created],
      etag: '"fresh-etag"',
      tries: 2,
    },
    {
      answer: 'a reset connection, then success: tried again',
      given: [reset, created],
      etag: '"fresh-etag"',
      tries: 2,
    },
  ])('$answer; the file removed and closed', async ({ given, etag, tries }) => {
    answers = given;
    const file = await indexFile();
    expect(await store.writeIndexFile(file, 'old-etag')).toBe(etag);
    expect(requests).toBe(tries);
    expect(existsSync(file.path)).toBe(false);
    await noDescriptorOn(file.path);
  });

  it('three 503s: a store error after three tries, the file removed and closed', async () => {
    answers = [slowDown, slowDown, slowDown, created];
    const file = await indexFile();
    await expect(store.writeIndexFile(file, null)).rejects.toMatchObject({ name: 'UpstreamError' });
    expect(requests).toBe(3);
    expect(existsSync(file.path)).toBe(false);
    await noDescriptorOn(file.path);
  });

  it('a 403 is no hiccup: one try, a store error', async () => {
    answers = [afterBody((_, response) => xmlError(response, 403, 'AccessDenied')), created];
    const file = await indexFile();
    await expect(store.writeIndexFile(file, null)).rejects.toMatchObject({ name: 'UpstreamError' });
    expect(requests).toBe(1);
  });
});
