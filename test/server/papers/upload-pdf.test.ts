/**
 * `POST /api/papers/{preprint_id}/upload-pdf` (CONTRACT §9.3, SPEC "Upload object"), against both backends.
 */
import { describe, expect, it } from 'vitest';
import { collect } from '../../../src/server/storage/object-store.js';
import { AUTH, multipart, pdfBytes, sha, stagedLeftovers, storedBytes, uploadPdf, useBackend } from './helpers.js';

let seq = 0;
/** A fresh new-style id per test so tests on one server never interfere. */
const freshId = () => `2501.${String(10000 + ++seq).padStart(5, '0')}v1`;

describe.each(['local', 's3'] as const)('upload-pdf (%s backend)', (backendName) => {
  const b = useBackend(backendName, { SVC_USER_HEADER: 'X-Remote-User' });

  describe('SPEC "Upload object" table', () => {
    type Existing = 'none' | 'same' | 'different' | 'no-sha256';
    const rows: { existing: Existing; overwrite: boolean; status: number; result: string }[] = [
      { existing: 'none', overwrite: false, status: 201, result: 'written' },
      { existing: 'none', overwrite: true, status: 201, result: 'written' },
      { existing: 'same', overwrite: false, status: 200, result: 'unchanged' },
      { existing: 'same', overwrite: true, status: 200, result: 'unchanged' },
      { existing: 'different', overwrite: false, status: 409, result: 'conflict' },
      { existing: 'different', overwrite: true, status: 201, result: 'overwritten' },
      { existing: 'no-sha256', overwrite: false, status: 409, result: 'conflict-unknown' },
    ];
    it.each(rows)('existing=$existing overwrite=$overwrite → $status $result', async (row) => {
      const id = freshId();
      const key = `pdf/2501/${id}.pdf`;
      const body = pdfBytes(`new ${id}`);
      const old = pdfBytes(`old ${id}`);
      if (row.existing === 'same') expect((await uploadPdf(b.server, id, body)).status).toBe(201);
      if (row.existing === 'different') expect((await uploadPdf(b.server, id, old)).status).toBe(201);
      if (row.existing === 'no-sha256') await b.store.put(key, old, { contentType: 'application/pdf', metadata: {} });
      const versionsBefore = (await collect(b.store.listVersions(key))).length;

      const res = await uploadPdf(b.server, id, body, row.overwrite ? 'overwrite=true' : '');
      expect(res.status).toBe(row.status);
      const stored = await storedBytes(b.store, key);
      const versionsAfter = await collect(b.store.listVersions(key));

      switch (row.result) {
        case 'written':
        case 'overwritten': {
          const overwritten = row.result === 'overwritten';
          expect(res.body).toEqual({
            preprint_id: id,
            key: id,
            pdf_path: key,
            pdf_bytes: body.length,
            pdf_sha256: sha(body),
            pdf_unchanged: false,
            overwritten,
            unchanged: false,
          });
          expect(stored).toEqual(body);
          expect((await b.store.head(key))!.metadata['sha256']).toBe(sha(body));
          expect(versionsAfter).toHaveLength(versionsBefore + 1);
          if (overwritten) {
            // The prior version is kept as a noncurrent version.
            expect(versionsAfter.filter((v) => !v.isLatest).map((v) => v.size)).toContain(old.length);
          }
          break;
        }
        case 'unchanged':
          expect(res.body).toMatchObject({
            pdf_sha256: sha(body),
            pdf_unchanged: true,
            unchanged: true,
            overwritten: false,
          });
          expect(stored).toEqual(body);
          expect(versionsAfter).toHaveLength(versionsBefore); // no write
          break;
        case 'conflict':
          expect(res.body).toEqual({
            detail: `${key} already exists with different content`,
            existing_sha256: sha(old),
            new_sha256: sha(body),
            existing_path: key,
            hint: 're-run with overwrite=true to replace it (the previous version is kept), or upload under a new version vN+1',
          });
          expect(stored).toEqual(old);
          break;
        case 'conflict-unknown':
          expect(res.body).toEqual({
            detail: `${key} already exists with different content`,
            existing_sha256: null,
            new_sha256: sha(body),
            existing_path: key,
            hint: 're-run with overwrite=true to replace it (the previous version is kept), or upload under a new version vN+1',
            note: 'existing object has no sha256 metadata; equality could not be checked',
          });
          expect(stored).toEqual(old);
          break;
      }
      expect(await stagedLeftovers(b.server)).toEqual([]);
    });
  });

  it('old-style and bare ids store under the stem with the category; raw or encoded slash', async () => {
    const body = pdfBytes('old style');
    const res = await uploadPdf(b.server, '9508027v1', body);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      preprint_id: 'quant-ph/9508027v1',
      key: 'quant-ph_9508027v1',
      pdf_path: 'pdf/9508/quant-ph_9508027v1.pdf',
    });
    expect(await storedBytes(b.store, 'pdf/9508/quant-ph_9508027v1.pdf')).toEqual(body);
    expect((await uploadPdf(b.server, 'quant-ph%2F9508027v1', body)).body).toMatchObject({ unchanged: true });
    expect((await uploadPdf(b.server, 'quant-ph/9508027v1', body)).body).toMatchObject({ unchanged: true });
  });

  it('upload conflict checks ignore legacy keys', async () => {
    await b.store.put('pdf/9601/9601001v1.pdf', pdfBytes('legacy'), { contentType: 'application/pdf', metadata: {} });
    const res = await uploadPdf(b.server, 'quant-ph/9601001v1', pdfBytes('fresh'));
    expect(res.status).toBe(201);
    expect(await storedBytes(b.store, 'pdf/9601/9601001v1.pdf')).toEqual(pdfBytes('legacy'));
  });

  it('uploaded_by and uploaded-by metadata come from SVC_USER_HEADER', async () => {
    const id = freshId();
    const res = await uploadPdf(b.server, id, pdfBytes(id), '', { 'X-Remote-User': 'alice' });
    expect(res.status).toBe(201);
    expect(res.body['uploaded_by']).toBe('alice');
    expect((await b.store.head(`pdf/2501/${id}.pdf`))!.metadata['uploaded-by']).toBe('alice');
    const again = await uploadPdf(b.server, freshId(), pdfBytes('x'));
    expect(again.body).not.toHaveProperty('uploaded_by');
  });

  it('a non-ASCII uploader is percent-encoded in the object metadata, as parser uploads do', async () => {
    const id = freshId();
    const res = await uploadPdf(b.server, id, pdfBytes(id), '', { 'X-Remote-User': 'j\u00fcrgen' });
    expect(res.status).toBe(201);
    expect(res.body['uploaded_by']).toBe('j\u00fcrgen');
    expect((await b.store.head(`pdf/2501/${id}.pdf`))!.metadata['uploaded-by']).toBe('j%C3%BCrgen');
  });

  it('expected_sha256: match accepted (any case), mismatch → 400 with both hashes and nothing written', async () => {
    const id = freshId();
    const body = pdfBytes(id);
    const wrong = 'a'.repeat(64);
    const res = await uploadPdf(b.server, id, body, `expected_sha256=${wrong}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: 'sha256 mismatch', expected_sha256: wrong, actual_sha256: sha(body) });
    expect(await b.store.head(`pdf/2501/${id}.pdf`)).toBeNull();
    const ok = await uploadPdf(b.server, id, body, `expected_sha256=${sha(body).toUpperCase()}`);
    expect(ok.status).toBe(201);
    expect(await stagedLeftovers(b.server)).toEqual([]);
  });

  it('20 concurrent identical uploads → one 201, the rest 200 unchanged, never 409', async () => {
    const id = freshId();
    const body = pdfBytes(`concurrent ${id}`);
    const results = await Promise.all(Array.from({ length: 20 }, () => uploadPdf(b.server, id, body)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 200 && r.body['unchanged'] === true)).toHaveLength(19);
    expect(await storedBytes(b.store, `pdf/2501/${id}.pdf`)).toEqual(body);
  });

  it('20 concurrent different uploads → one 201, the rest 409; stored bytes are the 201 caller’s', async () => {
    const id = freshId();
    const bodies = Array.from({ length: 20 }, (_, i) => pdfBytes(`variant ${i} ${id}`));
    const results = await Promise.all(bodies.map((body) => uploadPdf(b.server, id, body)));
    const winners = results.flatMap((r, i) => (r.status === 201 ? [i] : []));
    expect(winners).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(19);
    expect(await storedBytes(b.store, `pdf/2501/${id}.pdf`)).toEqual(bodies[winners[0]!]);
    expect(await stagedLeftovers(b.server)).toEqual([]);
  });

  it('write-through: stats see the upload in the same request cycle, without X-Catalog-Sync', async () => {
    const before = (await (await b.server.fetch('/api/papers/stats', { headers: AUTH })).json()) as Record<
      string,
      number
    >;
    const res = await uploadPdf(b.server, freshId(), pdfBytes('stats'));
    expect(res.headers.get('x-catalog-sync')).toBeNull();
    const after = (await (await b.server.fetch('/api/papers/stats', { headers: AUTH })).json()) as Record<
      string,
      number
    >;
    expect(after['total']).toBe(before['total']! + 1);
    expect(after['has_pdf']).toBe(before['has_pdf']! + 1);
    expect(after['needs_parser']).toBe(before['needs_parser']! + 1);
  });
});

describe('upload-pdf request validation (local backend)', () => {
  const b = useBackend('local');

  const post = (path: string, init: RequestInit = {}) => b.server.fetch(path, { method: 'POST', ...init });
  const pdfPart = (content: Buffer | string = pdfBytes('x')) =>
    multipart([{ name: 'pdf', filename: 'p.pdf', content }]);

  it('unknown actions answer 404 before authentication', async () => {
    for (const [method, path] of [
      ['POST', '/api/papers/2501.00010v1/upload-markdown'],
      ['GET', '/api/papers/2501.00010v1/markdown'],
      ['GET', '/api/papers/2501.00010v1/pdf/status'],
      ['DELETE', '/api/papers/2501.00010v1/upload-pdf'],
      ['POST', '/api/papers/stats'],
      ['GET', '/api/papers/'],
    ] as const) {
      const res = await b.server.fetch(path, { method });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(await res.json()).toEqual({ detail: `no ${method} handler for ${path}` });
    }
  });

  it('requires papers:write', async () => {
    const { body, contentType } = pdfPart();
    const res = await post('/api/papers/2501.00010v1/upload-pdf', { headers: { 'Content-Type': contentType }, body });
    expect(res.status).toBe(401);
    const bad = await post('/api/papers/2501.00010v1/upload-pdf', {
      headers: { Authorization: 'Bearer nope', 'Content-Type': contentType },
      body,
    });
    expect(bad.status).toBe(401);
  });

  it.each(['2501.00010', 'quant-ph/9508027', 'junk'])(
    'id %j without version → 400 (before query and body checks)',
    async (raw) => {
      const res = await post(`/api/papers/${raw}/upload-pdf?expected_sha256=zz`, {
        headers: { ...AUTH, 'Content-Type': 'text/plain' },
        body: 'x',
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ detail: `invalid preprint_id: "${raw}" (version suffix vN required)` });
    },
  );

  it('query validation precedes the media type check', async () => {
    let res = await post('/api/papers/2501.00010v1/upload-pdf?expected_sha256=abc', {
      headers: { ...AUTH, 'Content-Type': 'text/plain' },
      body: 'x',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ detail: 'expected_sha256 must be 64 hex characters' });
    res = await post('/api/papers/2501.00010v1/upload-pdf?overwrite=yes', {
      headers: { ...AUTH, 'Content-Type': 'text/plain' },
      body: 'x',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ detail: 'overwrite must be a boolean' });
  });

  it.each([
    ['application/json', '{"pdf":1}'],
    ['application/pdf', '%PDF-1.4'],
    ['text/plain; charset=utf-8', 'x'],
  ])('%s → 415', async (type, payload) => {
    const res = await post('/api/papers/2501.00010v1/upload-pdf', {
      headers: { ...AUTH, 'Content-Type': type },
      body: payload,
    });
    expect(res.status).toBe(415);
    expect(await res.json()).toEqual({
      detail: `unsupported media type '${type.split(';')[0]}'; send multipart/form-data with a 'pdf' part`,
    });
  });

  it('no body and no content type → 415', async () => {
    const res = await post('/api/papers/2501.00010v1/upload-pdf', { headers: AUTH });
    expect(res.status).toBe(415);
    expect(await res.json()).toEqual({
      detail: "unsupported media type ''; send multipart/form-data with a 'pdf' part",
    });
  });

  it('malformed multipart → 400 parse multipart', async () => {
    const res = await post('/api/papers/2501.00010v1/upload-pdf', {
      headers: { ...AUTH, 'Content-Type': 'multipart/form-data; boundary=abc' },
      body: '--abc\r\nContent-Disposition: form-data; name="pdf"; filename="a.pdf"\r\n\r\n%PDF-1.4 truncated',
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/^parse multipart: /);
    expect(await stagedLeftovers(b.server)).toEqual([]);
  });

  it('missing boundary → 400 parse multipart', async () => {
    const res = await post('/api/papers/2501.00010v1/upload-pdf', {
      headers: { ...AUTH, 'Content-Type': 'multipart/form-data' },
      body: 'whatever',
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/^parse multipart: /);
  });

  it('no pdf part → 400; other parts are ignored; the first pdf part wins', async () => {
    let { body, contentType } = multipart([
      { name: 'file', content: pdfBytes('x') },
      { name: 'note', filename: null, content: 'hello' },
    ]);
    let res = await post('/api/papers/2501.00020v1/upload-pdf', {
      headers: { ...AUTH, 'Content-Type': contentType },
      body,
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ detail: "missing 'pdf' multipart part" });

    const first = pdfBytes('first');
    ({ body, contentType } = multipart([
      { name: 'note', filename: null, content: 'hello' },
      { name: 'other', content: 'zzz' },
      { name: 'pdf', content: first, contentType: 'text/plain' }, // the part's own type is advisory
      { name: 'pdf', content: pdfBytes('second') },
    ]));
    res = await post('/api/papers/2501.00020v1/upload-pdf', {
      headers: { ...AUTH, 'Content-Type': contentType },
      body,
    });
    expect(res.status).toBe(201);
    expect(await storedBytes(b.store, 'pdf/2501/2501.00020v1.pdf')).toEqual(first);
  });

  it('empty → 400; no %PDF- header → 400; staged file removed, nothing stored', async () => {
    let { body, contentType } = pdfPart(Buffer.alloc(0));
    let res = await post('/api/papers/2501.00030v1/upload-pdf', {
      headers: { ...AUTH, 'Content-Type': contentType },
      body,
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ detail: 'pdf upload was empty' });
    ({ body, contentType } = pdfPart('%PDF')); // too short to carry the magic
    res = await post('/api/papers/2501.00030v1/upload-pdf', {
      headers: { ...AUTH, 'Content-Type': contentType },
      body,
    });
    expect(await res.json()).toEqual({ detail: 'uploaded file does not look like a PDF (missing %PDF- header)' });
    ({ body, contentType } = pdfPart('PK\u0003\u0004 zip, not a pdf'));
    res = await post('/api/papers/2501.00030v1/upload-pdf', {
      headers: { ...AUTH, 'Content-Type': contentType },
      body,
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ detail: 'uploaded file does not look like a PDF (missing %PDF- header)' });
    expect(await b.store.head('pdf/2501/2501.00030v1.pdf')).toBeNull();
    expect(await stagedLeftovers(b.server)).toEqual([]);
  });

  it('over 104857600 bytes → 413 measured while streaming; nothing staged or stored', async () => {
    const LIMIT = 104_857_600;
    const boundary = 'bigboundary';
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="pdf"; filename="big.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.7\n`,
    );
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const fileBytes = LIMIT + 1;
    const chunk = Buffer.alloc(1 << 20, 0x41);
    let remaining = fileBytes - 9; // after "%PDF-1.7\n"
    let sentHead = false;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (!sentHead) {
          sentHead = true;
          controller.enqueue(head);
          return;
        }
        if (remaining > 0) {
          const n = Math.min(remaining, chunk.length);
          controller.enqueue(chunk.subarray(0, n));
          remaining -= n;
          return;
        }
        controller.enqueue(tail);
        controller.close();
      },
    });
    const res = await post('/api/papers/2501.00040v1/upload-pdf', {
      headers: { ...AUTH, 'Content-Type': `multipart/form-data; boundary=${boundary}` },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ detail: 'pdf upload exceeds limit of 104857600 bytes' });
    expect(await b.store.head('pdf/2501/2501.00040v1.pdf')).toBeNull();
    expect(await stagedLeftovers(b.server)).toEqual([]);
  });

  it('X-Svc-Server-Version is on upload responses and errors', async () => {
    const res = await post('/api/papers/bad/upload-pdf', { headers: AUTH });
    expect(res.headers.get('x-svc-server-version')).toBeTruthy();
  });
});
