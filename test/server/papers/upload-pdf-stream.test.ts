/**
 * `upload-pdf` with `expected_sha256` and a body over 1 MiB streams into the store as it is staged (`PdfStream`).
 * Every outcome must be the staged path's: these cases end with the checks failing, the size guess wrong, an
 * existing object or a client gone mid-body, and assert the answer, the stored bytes and the store's versions
 * (an object created and then removed would leave a version behind).
 */
import http from 'node:http';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { collect } from '../../../src/server/storage/object-store.js';
import { S3ObjectStore } from '../../../src/server/storage/s3-store.js';
import type { TestServer } from '../../support/server.js';
import { AUTH, multipart, sha, stagedLeftovers, storedBytes, uploadPdf, useBackend } from './helpers.js';

const MiB = 1024 * 1024;

let seq = 0;
const freshId = () => `2502.${String(10000 + ++seq).padStart(5, '0')}v1`;
const keyOf = (id: string) => `pdf/2502/${id}.pdf`;

/** A PDF of `size` bytes whose content depends on `seed`. */
function bigPdf(size: number, seed: string): Buffer {
  const bytes = Buffer.alloc(size, seed);
  bytes.write('%PDF-1.7\n', 0, 'latin1');
  return bytes;
}

// The store's write primitives, spied on: a streamed upload must be one `putStreamIfAbsent` and nothing else.
const streamedPuts = vi.spyOn(S3ObjectStore.prototype, 'putStreamIfAbsent');
const stagedPuts = vi.spyOn(S3ObjectStore.prototype, 'putIfAbsent');
beforeEach(() => {
  streamedPuts.mockClear();
  stagedPuts.mockClear();
});
/** How the PDF at `id` was sent to the store: `[streamed PUTs, staged PUTs]`. */
const putsOf = (id: string) =>
  [streamedPuts, stagedPuts].map((spy) => spy.mock.calls.filter(([key]) => key === keyOf(id)).length);

async function post(server: TestServer, id: string, body: Buffer, contentType: string, query: string) {
  const res = await server.fetch(`/api/papers/${id}/upload-pdf?${query}`, {
    method: 'POST',
    headers: { ...AUTH, 'Content-Type': contentType, 'X-Remote-User': 'alice' },
    body,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/**
 * Starts a streamed upload of `pdf` to `id` whose client will go away: the request, headers sent, no body yet.
 * Its socket errors are expected (the test destroys it).
 */
function abandonedUpload(server: TestServer, id: string, pdf: Buffer) {
  const { body, contentType } = multipart([{ name: 'pdf', filename: 'p.pdf', content: pdf }]);
  const url = new URL(`${server.url}/api/papers/${id}/upload-pdf?expected_sha256=${sha(pdf)}`);
  const request = http.request(url, {
    method: 'POST',
    headers: { ...AUTH, 'Content-Type': contentType, 'Content-Length': String(body.length) },
  });
  request.on('error', () => {});
  return { request, body };
}

describe('upload-pdf streamed into S3 while staged', () => {
  const b = useBackend('s3', { SVC_USER_HEADER: 'X-Remote-User' });

  it('a matching upload is stored once, with its metadata, and the staged file is removed', async () => {
    const id = freshId();
    const pdf = bigPdf(3 * MiB + 5, id);
    const { body, contentType } = multipart([{ name: 'pdf', filename: 'p.pdf', content: pdf }]);
    const stats = async () =>
      (await (await b.server.fetch('/api/papers/stats', { headers: AUTH })).json()) as Record<string, number>;
    const before = await stats();
    const res = await post(b.server, id, body, contentType, `expected_sha256=${sha(pdf)}`);
    expect(res).toEqual({
      status: 201,
      body: {
        preprint_id: id,
        key: id,
        pdf_path: keyOf(id),
        pdf_bytes: pdf.length,
        pdf_sha256: sha(pdf),
        pdf_unchanged: false,
        overwritten: false,
        unchanged: false,
        uploaded_by: 'alice',
      },
    });
    expect((await storedBytes(b.store, keyOf(id)))!.equals(pdf)).toBe(true);
    const head = await b.store.head(keyOf(id));
    expect(head!.contentType).toBe('application/pdf');
    expect(head!.metadata).toMatchObject({ sha256: sha(pdf), 'uploaded-by': 'alice' });
    expect(head!.metadata['created-at']).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(await collect(b.store.listVersions(keyOf(id)))).toHaveLength(1);
    expect(putsOf(id)).toEqual([1, 0]);
    expect(await stagedLeftovers(b.server)).toEqual([]);
    // The catalog write-through, as for a staged write.
    expect((await stats())['has_pdf']).toBe(before['has_pdf']! + 1);
  });

  it('sha256 mismatch → 400 with both hashes; the store never had an object', async () => {
    const id = freshId();
    const pdf = bigPdf(2 * MiB, id);
    const wrong = 'b'.repeat(64);
    const { body, contentType } = multipart([{ name: 'pdf', filename: 'p.pdf', content: pdf }]);
    const res = await post(b.server, id, body, contentType, `expected_sha256=${wrong}`);
    expect(res).toEqual({
      status: 400,
      body: { detail: 'sha256 mismatch', expected_sha256: wrong, actual_sha256: sha(pdf) },
    });
    expect(putsOf(id)).toEqual([1, 0]); // streamed, and aborted before its last byte
    expect(await collect(b.store.listVersions(keyOf(id)))).toEqual([]);
    expect(await stagedLeftovers(b.server)).toEqual([]);
  });

  it('not a PDF (hash matching) → 400; the store never had an object', async () => {
    const id = freshId();
    const bytes = Buffer.alloc(2 * MiB, 'x');
    const { body, contentType } = multipart([{ name: 'pdf', filename: 'p.pdf', content: bytes }]);
    const res = await post(b.server, id, body, contentType, `expected_sha256=${sha(bytes)}`);
    expect(res).toEqual({
      status: 400,
      body: { detail: 'uploaded file does not look like a PDF (missing %PDF- header)' },
    });
    expect(putsOf(id)).toEqual([1, 0]);
    expect(await collect(b.store.listVersions(keyOf(id)))).toEqual([]);
  });

  // A guess found wrong at the end is streamed, aborted, then sent again from the staged copy; a body that does not
  // open with the pdf part is not guessed, only staged.
  it.each([
    ['a part after the pdf part', 'after', [1, 1]],
    ['a part before the pdf part', 'before', [0, 1]],
    ['no CRLF after the closing delimiter', 'no-crlf', [1, 1]],
    ['an epilogue after the closing delimiter', 'epilogue', [1, 1]],
  ])('a wrong size guess (%s) still stores exactly the pdf part', async (_name, shape, puts) => {
    const id = freshId();
    const pdf = bigPdf(2 * MiB + 1, id);
    const note = { name: 'note', filename: null, content: 'hello' };
    const file = { name: 'pdf', filename: 'p.pdf', content: pdf };
    const form = multipart(shape === 'after' ? [file, note] : shape === 'before' ? [note, file] : [file]);
    const { contentType } = form;
    let body = form.body;
    if (shape === 'no-crlf') body = body.subarray(0, body.length - 2);
    if (shape === 'epilogue') body = Buffer.concat([body, Buffer.from('trailing words\r\n')]);
    const res = await post(b.server, id, body, contentType, `expected_sha256=${sha(pdf)}`);
    expect(res.status).toBe(201);
    expect((await storedBytes(b.store, keyOf(id)))!.equals(pdf)).toBe(true);
    expect(await collect(b.store.listVersions(keyOf(id)))).toHaveLength(1);
    expect(putsOf(id)).toEqual(puts);
  });

  it('an existing object: same bytes → 200 unchanged, different → 409, overwrite → 201 keeping the old version', async () => {
    const id = freshId();
    const first = bigPdf(2 * MiB, `${id} first`);
    const second = bigPdf(2 * MiB, `${id} second`);
    expect((await uploadPdf(b.server, id, first, `expected_sha256=${sha(first)}`)).status).toBe(201);
    const same = await uploadPdf(b.server, id, first, `expected_sha256=${sha(first)}`);
    expect([same.status, same.body['unchanged']]).toEqual([200, true]);
    expect(putsOf(id)).toEqual([1, 1]); // the second upload found the object: staged only
    const conflict = await uploadPdf(b.server, id, second, `expected_sha256=${sha(second)}`);
    expect([conflict.status, conflict.body['existing_sha256'], conflict.body['new_sha256']]).toEqual([
      409,
      sha(first),
      sha(second),
    ]);
    expect(await collect(b.store.listVersions(keyOf(id)))).toHaveLength(1);
    const replaced = await uploadPdf(b.server, id, second, `expected_sha256=${sha(second)}&overwrite=true`);
    expect([replaced.status, replaced.body['overwritten']]).toEqual([201, true]);
    expect((await storedBytes(b.store, keyOf(id)))!.equals(second)).toBe(true);
    expect(await collect(b.store.listVersions(keyOf(id)))).toHaveLength(2);
  });

  it('20 concurrent identical streamed uploads → one 201, the rest 200 unchanged', async () => {
    const id = freshId();
    const pdf = bigPdf(MiB + 100, id);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => uploadPdf(b.server, id, pdf, `expected_sha256=${sha(pdf)}`)),
    );
    expect(results.map((r) => r.status).sort()).toEqual([...Array<number>(19).fill(200), 201]);
    expect(await collect(b.store.listVersions(keyOf(id)))).toHaveLength(1);
  });

  it('a client gone while the part headers are read: nothing staged or stored, the next upload is stored', async () => {
    const id = freshId();
    const pdf = bigPdf(2 * MiB, id);
    const { request, body } = abandonedUpload(b.server, id, pdf);
    request.write(body.subarray(0, 20), () => request.destroy());
    await new Promise((resolve) => request.once('close', resolve));
    expect((await uploadPdf(b.server, id, pdf, `expected_sha256=${sha(pdf)}`)).status).toBe(201);
    expect(await collect(b.store.listVersions(keyOf(id)))).toHaveLength(1);
    expect(await stagedLeftovers(b.server)).toEqual([]);
  });

  it('a client gone mid-body leaves no object, no version and no staged file; the server keeps serving', async () => {
    const id = freshId();
    const pdf = bigPdf(8 * MiB, id);
    const { request, body } = abandonedUpload(b.server, id, pdf);
    request.write(body.subarray(0, 3 * MiB));
    // Staging (and so the streamed write) has begun before the client goes.
    await vi.waitFor(async () => expect(await stagedLeftovers(b.server)).not.toEqual([]), { timeout: 20_000 });
    request.destroy();
    await vi.waitFor(async () => expect(await stagedLeftovers(b.server)).toEqual([]), { timeout: 20_000 });
    expect(await collect(b.store.listVersions(keyOf(id)))).toEqual([]);
    const after = await uploadPdf(b.server, id, pdf, `expected_sha256=${sha(pdf)}`);
    expect(after.status).toBe(201);
    expect(await collect(b.store.listVersions(keyOf(id)))).toHaveLength(1);
  });
});
