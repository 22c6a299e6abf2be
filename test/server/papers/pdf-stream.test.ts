/**
 * `PdfStream` with the real stager and an S3 store on moto: an announced PDF goes to the store in one streamed
 * conditional PUT while it is staged, and completes only when the staged bytes are what was announced. Every other
 * ending leaves the store without an object or a version (an object created and then removed would leave one).
 */
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Catalog } from '../../../src/server/papers/catalog.js';
import { PdfStream } from '../../../src/server/papers/pdf-stream.js';
import { SourceStreamError, Stager } from '../../../src/server/papers/staging.js';
import { uploadPdf } from '../../../src/server/papers/upload-pdf.js';
import { collect, type ObjectStore } from '../../../src/server/storage/object-store.js';
import { rfc3339 } from '../../../src/shared/time.js';
import { requireUploadId } from '../../../src/shared/ids.js';
import { useMoto } from '../../support/moto.js';
import { localFixture, s3Fixture, type StoreFixture } from '../storage/backends.js';
import { storedBytes } from './helpers.js';

const moto = useMoto();
const MiB = 1024 * 1024;
const LIMIT = 100 * MiB;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let seq = 0;
const freshId = () => requireUploadId(`2503.${String(10000 + ++seq).padStart(5, '0')}v1`);
const keyOf = (id: ReturnType<typeof freshId>) => `pdf/2503/${id.id}.pdf`;

function pdf(size: number, seed: string): Buffer {
  const bytes = Buffer.alloc(size, seed);
  bytes.write('%PDF-1.7\n', 0, 'latin1');
  return bytes;
}

/** `bytes` in 64 KiB chunks, as the multipart parser hands them over. */
const chunked = (bytes: Buffer) =>
  Readable.from(
    Array.from({ length: Math.ceil(bytes.length / 65536) }, (_, i) => bytes.subarray(i * 65536, (i + 1) * 65536)),
  );

/** The store, recording which write primitives were called. */
function recording(store: ObjectStore): { store: ObjectStore; calls: string[] } {
  const calls: string[] = [];
  const wrapped: ObjectStore = Object.create(store) as ObjectStore;
  for (const name of ['putIfAbsent', 'put', 'putStreamIfAbsent'] as const) {
    const original = store[name]!.bind(store) as (...args: unknown[]) => unknown;
    Object.assign(wrapped, { [name]: (...args: unknown[]) => (calls.push(name), original(...args)) });
  }
  return { store: wrapped, calls };
}

let dir: string;
let stager: Stager;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pks-pdf-stream-'));
  stager = new Stager(path.join(dir, 'tmp'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('PdfStream on S3 (moto)', () => {
  let s3: StoreFixture;
  beforeAll(async () => {
    s3 = await s3Fixture(moto());
  });
  afterAll(async () => {
    await s3?.close();
  });

  /** A fresh id, a PDF of `size` bytes for it, and a `PdfStream` into `store` announcing exactly those bytes. */
  async function announcedPdf(size: number, store = s3.store, metadata: Record<string, string> = {}) {
    const id = freshId();
    const bytes = pdf(size, id.id);
    const stream = (await PdfStream.start(store, { id, metadata }, { size: bytes.length, sha256: sha(bytes) }))!;
    return { id, bytes, stream };
  }

  it('streams the announced bytes in one conditional PUT and completes once the staged file matches', async () => {
    const { store, calls } = recording(s3.store);
    const { id, bytes, stream } = await announcedPdf(3 * MiB + 7, store, { 'uploaded-by': 'bob' });
    expect(stream).not.toBeNull();
    const staged = await stager.stage(chunked(bytes), LIMIT, 'pdf', stream);
    const result = await stream.finish(staged);
    await staged.remove();
    expect(result).toEqual({ status: 'stored', etag: expect.stringMatching(/^".+"$/) as string });
    expect(calls).toEqual(['putStreamIfAbsent']);
    const head = await s3.store.head(keyOf(id));
    expect([head!.size, head!.metadata['sha256'], head!.metadata['uploaded-by']]).toEqual([
      bytes.length,
      sha(bytes),
      'bob',
    ]);
  });

  it('the store takes the body as it comes: 24 of 25 MiB pass before the upload ends', async () => {
    const { bytes, stream } = await announcedPdf(25 * MiB);
    const source = new PassThrough();
    const staging = stager.stage(source, LIMIT, 'pdf', stream);
    // More than the stream and socket buffers hold: written only if the store reads while the upload goes on.
    for (let offset = 0; offset < 24 * MiB; offset += 65536) {
      if (!source.write(bytes.subarray(offset, offset + 65536))) {
        await new Promise((resolve) => source.once('drain', resolve));
      }
    }
    source.end(bytes.subarray(24 * MiB));
    const staged = await staging;
    expect((await stream.finish(staged)).status).toBe('stored');
    await staged.remove();
  });

  const failures: [string, (bytes: Buffer) => { source: Readable; announced: { size: number; sha256: string } }][] = [
    [
      'a sha256 other than announced',
      (b) => ({ source: chunked(b), announced: { size: b.length, sha256: 'c'.repeat(64) } }),
    ],
    ['fewer bytes than announced', (b) => ({ source: chunked(b), announced: { size: b.length + 1, sha256: sha(b) } })],
    ['more bytes than announced', (b) => ({ source: chunked(b), announced: { size: b.length - 1, sha256: sha(b) } })],
  ];
  it.each(failures)('%s: no object, no version', async (_name, make) => {
    const id = freshId();
    const bytes = pdf(2 * MiB, id.id);
    const { source, announced } = make(bytes);
    const stream = (await PdfStream.start(s3.store, { id, metadata: {} }, announced))!;
    const staged = await stager.stage(source, LIMIT, 'pdf', stream);
    expect(await stream.finish(staged)).toEqual({ status: 'none' });
    await staged.remove();
    expect(await collect(s3.store.listVersions(keyOf(id)))).toEqual([]);
  });

  it('a source that fails mid-body: staging fails, abort leaves no object, no version', async () => {
    const { id, bytes, stream } = await announcedPdf(4 * MiB);
    const source = new PassThrough();
    const staging = stager.stage(source, LIMIT, 'pdf', stream);
    source.write(bytes.subarray(0, 2 * MiB), () => source.destroy(new Error('aborted')));
    await expect(staging).rejects.toBeInstanceOf(SourceStreamError);
    await stream.abort();
    expect(await collect(s3.store.listVersions(keyOf(id)))).toEqual([]);
  });

  it('another writer creates the object meanwhile: finish stores nothing, staging completes, the other object stays', async () => {
    const { id, bytes, stream } = await announcedPdf(2 * MiB);
    const other = Buffer.from('%PDF-1.7 other');
    await s3.store.putIfAbsent(keyOf(id), other, { contentType: 'application/pdf', metadata: {} });
    const staged = await stager.stage(chunked(bytes), LIMIT, 'pdf', stream);
    expect(await stream.finish(staged)).toEqual({ status: 'none' });
    await staged.remove();
    const versions = await collect(s3.store.listVersions(keyOf(id)));
    expect(versions.map((v) => v.size)).toEqual([other.length]);
  });

  /** `uploadPdf` over `store` with a catalog that records its write-throughs. */
  async function upload(store: ObjectStore, bytes: Buffer, id: ReturnType<typeof freshId>, stream: PdfStream) {
    const recordWrite = vi.fn((_id: unknown, _row: Record<string, unknown>) => Promise.resolve(false));
    const catalog = { index: { available: true }, recordWrite } as unknown as Catalog;
    const staged = await stager.stage(chunked(bytes), LIMIT, 'pdf', stream);
    const result = await uploadPdf(store, catalog, {
      id,
      expectedSha256: sha(bytes),
      overwrite: false,
      uploadedBy: null,
      staged,
      stream,
    });
    return { result, rows: recordWrite.mock.calls.map(([, row]) => row) };
  }

  it('the store stores the object but its answer is lost: 201 written, the catalog written through', async () => {
    const lost: ObjectStore = Object.assign(Object.create(s3.store) as ObjectStore, {
      putStreamIfAbsent: async (...args: Parameters<NonNullable<ObjectStore['putStreamIfAbsent']>>) => {
        await s3.store.putStreamIfAbsent!(...args);
        throw new Error('socket hang up'); // after the last byte: the object exists, its answer never came
      },
    });
    const { id, bytes, stream } = await announcedPdf(2 * MiB, lost);
    const { result, rows } = await upload(lost, bytes, id, stream);
    expect([result.created, result.record.unchanged, result.record.overwritten]).toEqual([true, false, false]);
    expect(rows).toEqual([
      {
        has_pdf: true,
        pdf_size_bytes: bytes.length,
        pdf_sha256: sha(bytes),
        pdf_etag: null,
        pdf_uploaded_at: stream.createdAt,
      },
    ]);
    expect(await collect(s3.store.listVersions(keyOf(id)))).toHaveLength(1);
  });

  it('the store fails after the last byte without storing: the staged file is written, 201', async () => {
    const failing: ObjectStore = Object.assign(Object.create(s3.store) as ObjectStore, {
      putStreamIfAbsent: async (_key: string, body: Readable) => {
        for await (const chunk of body) void chunk; // the whole body read, then the store fails
        throw new Error('socket hang up');
      },
    });
    const { id, bytes, stream } = await announcedPdf(2 * MiB, failing);
    const { result, rows } = await upload(failing, bytes, id, stream);
    expect([result.created, rows.length]).toEqual([true, 1]);
    expect((await storedBytes(s3.store, keyOf(id)))!.equals(bytes)).toBe(true);
  });

  it("the row's pdf_uploaded_at is the object's created-at: the instant the stream began", async () => {
    const began = Date.now();
    vi.useFakeTimers({ toFake: ['Date'], now: began });
    try {
      const { id, bytes, stream } = await announcedPdf(2 * MiB);
      vi.setSystemTime(began + 5_000); // a slow upload: it ends 5 s after it began
      const { rows } = await upload(s3.store, bytes, id, stream);
      const head = await s3.store.head(keyOf(id));
      expect(head!.metadata['created-at']).toBe(rfc3339(began));
      expect(rows.map((row) => rfc3339(row['pdf_uploaded_at'] as Date))).toEqual([rfc3339(began)]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('an object already at the key: no stream (the staged path answers)', async () => {
    const id = freshId();
    await s3.store.putIfAbsent(keyOf(id), Buffer.from('%PDF-'), { contentType: 'application/pdf', metadata: {} });
    expect(await PdfStream.start(s3.store, { id, metadata: {} }, { size: 10, sha256: 'a'.repeat(64) })).toBeNull();
  });
});

it('the local backend stages only', async () => {
  const local = await localFixture();
  try {
    expect(
      await PdfStream.start(local.store, { id: freshId(), metadata: {} }, { size: 10, sha256: 'a'.repeat(64) }),
    ).toBeNull();
  } finally {
    await local.close();
  }
});
