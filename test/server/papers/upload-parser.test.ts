/**
 * `POST /api/papers/{preprint_id}/upload-parser` (CONTRACT §9.4), against both backends.
 */
import { describe, expect, it } from 'vitest';
import { collect } from '../../../src/server/storage/object-store.js';
import {
  AUTH,
  multipart,
  pdfBytes,
  sha,
  stagedLeftovers,
  storedBytes,
  uploadPdf,
  useBackend,
  type BackendFixture,
} from './helpers.js';
import { makeZip, type ZipEntrySpec } from './zip.js';

async function uploadZip(b: BackendFixture, id: string, zip: Buffer, query = '', headers: Record<string, string> = {}) {
  const { body, contentType } = multipart([
    { name: 'parser_zip', filename: 'result.zip', content: zip, contentType: 'application/zip' },
  ]);
  const res = await b.server.fetch(`/api/papers/${id}/upload-parser${query ? `?${query}` : ''}`, {
    method: 'POST',
    headers: { ...AUTH, 'Content-Type': contentType, ...headers },
    body,
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {}, headers: res.headers };
}

const bundle = (markdown: string, images: Record<string, string> = {}, prefix = 'out/'): Buffer =>
  makeZip([
    { name: `${prefix}full.md`, content: markdown },
    { name: `${prefix}layout.json`, content: '{}' },
    ...Object.entries(images).map(([file, content]) => ({ name: `${prefix}images/${file}`, content })),
  ]);

let seq = 0;
const freshId = () => `2502.${String(20000 + ++seq).padStart(5, '0')}v1`;

/** Every object stored for a paper (markdown + images). */
async function paperObjects(b: BackendFixture, id: string): Promise<string[]> {
  const yymm = id.slice(0, 4);
  const stem = id.replace('/', '_');
  const md = (await collect(b.store.list(`markdown/${yymm}/${stem}`))).map((o) => o.key);
  const images = (await collect(b.store.list(`images/${yymm}/${stem}/`))).map((o) => o.key);
  return [...md, ...images];
}

describe.each(['local', 's3'] as const)('upload-parser (%s backend)', (backendName) => {
  const b = useBackend(backendName, { SVC_USER_HEADER: 'X-User' });

  it('no stored PDF → 404 and nothing written', async () => {
    const id = freshId();
    const res = await uploadZip(b, id, bundle('# x'));
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: `${id} has no stored PDF; upload the PDF first (upload-pdf)` });
    expect(await paperObjects(b, id)).toEqual([]);
  });

  it('201 writes markdown and images with content types and metadata; releases the claim; repeat → 200 unchanged', async () => {
    const id = freshId();
    const pdf = pdfBytes(id);
    await uploadPdf(b.server, id, pdf);
    const claimRes = await b.server.fetch(`/api/papers/${id}/parser-claim`, { method: 'POST', headers: AUTH });
    expect(claimRes.status).toBe(201);

    const zip = bundle('# Title\n\n![](images/fig1.png)\n', { 'fig1.png': 'PNGDATA', 'sub/fig2.svg': '<svg/>' });
    const label = 'pks-cli/' + 'z'.repeat(100);
    const res = await uploadZip(
      b,
      id,
      zip,
      `source=${encodeURIComponent(label)}&pdf_sha256=${sha(pdf)}&expected_sha256=${sha(zip)}`,
      {
        'X-User': 'carol',
      },
    );
    expect(res.status).toBe(201);
    expect(res.headers.get('x-catalog-sync')).toBeNull();
    const mdBytes = Buffer.from('# Title\n\n![](images/fig1.png)\n');
    expect(res.body).toEqual({
      preprint_id: id,
      key: id,
      markdown_path: `markdown/2502/${id}.md`,
      markdown_bytes: mdBytes.length,
      markdown_sha256: sha(mdBytes),
      markdown_unchanged: false,
      image_count: 2,
      images_path: `images/2502/${id}/`,
      images_written: 2,
      images_unchanged: 0,
      zip_bytes: zip.length,
      zip_sha256: sha(zip),
      source: label.slice(0, 64),
      uploaded_by: 'carol',
      overwritten: false,
      unchanged: false,
    });
    expect(await storedBytes(b.store, `markdown/2502/${id}.md`)).toEqual(mdBytes);
    expect(await storedBytes(b.store, `images/2502/${id}/fig1.png`)).toEqual(Buffer.from('PNGDATA'));
    const md = await b.store.head(`markdown/2502/${id}.md`);
    expect(md!.contentType).toBe('text/markdown; charset=utf-8');
    expect(md!.metadata).toMatchObject({ sha256: sha(mdBytes), source: label.slice(0, 64), 'uploaded-by': 'carol' });
    expect((await b.store.head(`images/2502/${id}/sub/fig2.svg`))!.contentType).toBe('image/svg+xml');
    expect((await b.store.head(`images/2502/${id}/fig1.png`))!.contentType).toBe('image/png');

    // The claim is gone: a new claim is refused only because the markdown now exists.
    const again = await b.server.fetch(`/api/papers/${id}/parser-claim`, { method: 'POST', headers: AUTH });
    expect(again.status).toBe(404);

    const repeat = await uploadZip(b, id, zip);
    expect(repeat.status).toBe(200);
    expect(repeat.body).toMatchObject({
      markdown_unchanged: true,
      images_written: 0,
      images_unchanged: 2,
      unchanged: true,
      source: null,
      uploaded_by: null,
    });
    expect(await stagedLeftovers(b.server)).toEqual([]);
  });

  it('conflicts are pre-checked (markdown, then images in name order) before any write; overwrite replaces and prunes', async () => {
    const id = freshId();
    await uploadPdf(b.server, id, pdfBytes(id));
    expect((await uploadZip(b, id, bundle('# v1', { 'a.png': 'A1', 'old.png': 'OLD' }))).status).toBe(201);

    // Same markdown, one image differs → 409 on that image; nothing written (new image b.png absent).
    let res = await uploadZip(b, id, bundle('# v1', { 'a.png': 'A2', 'b.png': 'B' }));
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      detail: `images/2502/${id}/a.png already exists with different content`,
      existing_sha256: sha('A1'),
      new_sha256: sha('A2'),
      existing_path: `images/2502/${id}/a.png`,
      hint: 're-run with overwrite=true to replace it (the previous version is kept), or upload under a new version vN+1',
    });
    expect(await paperObjects(b, id)).toEqual([
      `markdown/2502/${id}.md`,
      `images/2502/${id}/a.png`,
      `images/2502/${id}/old.png`,
    ]);

    // Markdown differs → the markdown is reported first.
    res = await uploadZip(b, id, bundle('# v2', { 'a.png': 'A2' }));
    expect(res.status).toBe(409);
    expect(res.body['existing_path']).toBe(`markdown/2502/${id}.md`);

    res = await uploadZip(b, id, bundle('# v2', { 'a.png': 'A2', 'b.png': 'B' }), 'overwrite=true');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ overwritten: true, images_written: 2, image_count: 2, markdown_unchanged: false });
    expect(await paperObjects(b, id)).toEqual([
      `markdown/2502/${id}.md`,
      `images/2502/${id}/a.png`,
      `images/2502/${id}/b.png`,
    ]);
    expect(await storedBytes(b.store, `markdown/2502/${id}.md`)).toEqual(Buffer.from('# v2'));
    // Prior versions are kept as noncurrent.
    const versions = await collect(b.store.listVersions(`images/2502/${id}/`));
    expect(versions.filter((v) => !v.isLatest).length).toBeGreaterThanOrEqual(2);
  });

  it('pdf_sha256 mismatch → 400 with both hashes; expected_sha256 mismatch → 400', async () => {
    const id = freshId();
    const pdf = pdfBytes(id);
    await uploadPdf(b.server, id, pdf);
    const zip = bundle('# x');
    let res = await uploadZip(b, id, zip, `pdf_sha256=${'b'.repeat(64)}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      detail: 'pdf_sha256 does not match the stored PDF',
      claimed_pdf_sha256: 'b'.repeat(64),
      catalog_pdf_sha256: sha(pdf),
    });
    res = await uploadZip(b, id, zip, `expected_sha256=${'c'.repeat(64)}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: 'sha256 mismatch', expected_sha256: 'c'.repeat(64), actual_sha256: sha(zip) });
    res = await uploadZip(b, id, zip, 'pdf_sha256=nothex');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: 'pdf_sha256 must be 64 hex characters' });
    expect(await paperObjects(b, id)).toEqual([]);
  });

  it('malicious zips write nothing', async () => {
    const id = freshId();
    await uploadPdf(b.server, id, pdfBytes(id));
    const corpus: ZipEntrySpec[][] = [
      [
        { name: 'full.md', content: '# x' },
        { name: 'images/../../../escape.png', content: 'x' },
      ],
      [
        { name: 'full.md', content: '# x' },
        { name: '/abs.png', content: 'x' },
      ],
      [
        { name: 'full.md', content: '# x' },
        { name: 'images/l.png', content: '/etc/passwd', mode: 0o120777 },
      ],
      [
        { name: 'full.md', content: '# x' },
        { name: 'images/bomb.png', content: Buffer.alloc(4 << 20) },
      ],
      [{ name: 'images/a.png', content: 'x' }],
    ];
    for (const entries of corpus) {
      const res = await uploadZip(b, id, makeZip(entries));
      expect(res.status, JSON.stringify(res.body)).toBe(400);
    }
    expect(await paperObjects(b, id)).toEqual([]);
    expect(await stagedLeftovers(b.server)).toEqual([]);
  });

  it('old-style ids: objects under the stem with the category', async () => {
    await uploadPdf(b.server, 'quant-ph/9703001v2', pdfBytes('old'));
    const res = await uploadZip(b, '9703001v2', bundle('# old', { 'f.png': 'F' }, ''));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      preprint_id: 'quant-ph/9703001v2',
      markdown_path: 'markdown/9703/quant-ph_9703001v2.md',
      images_path: 'images/9703/quant-ph_9703001v2/',
    });
    expect(await storedBytes(b.store, 'images/9703/quant-ph_9703001v2/f.png')).toEqual(Buffer.from('F'));
  });
});

describe('upload-parser request validation (local)', () => {
  const b = useBackend('local');

  it('415, missing part, empty, not a zip', async () => {
    const res = await b.server.fetch('/api/papers/2502.00001v1/upload-parser', {
      method: 'POST',
      headers: { ...AUTH, 'Content-Type': 'application/zip' },
      body: 'PK',
    });
    expect(res.status).toBe(415);
    expect(await res.json()).toEqual({
      detail: "unsupported media type 'application/zip'; send multipart/form-data with a 'parser_zip' part",
    });

    const send = async (parts: Parameters<typeof multipart>[0]) => {
      const { body, contentType } = multipart(parts);
      const r = await b.server.fetch('/api/papers/2502.00001v1/upload-parser', {
        method: 'POST',
        headers: { ...AUTH, 'Content-Type': contentType },
        body,
      });
      return { status: r.status, body: await r.json() };
    };
    expect(await send([{ name: 'zip', content: 'PK' }])).toEqual({
      status: 400,
      body: { detail: "missing 'parser_zip' multipart part" },
    });
    expect(await send([{ name: 'parser_zip', content: '' }])).toEqual({
      status: 400,
      body: { detail: 'parser_zip upload was empty' },
    });
    expect(await send([{ name: 'parser_zip', content: '%PDF-1.4' }])).toEqual({
      status: 400,
      body: { detail: 'payload is not a zip archive (missing PK signature)' },
    });
    expect(await stagedLeftovers(b.server)).toEqual([]);
  });

  it('version required', async () => {
    const res = await b.server.fetch('/api/papers/2502.00001/upload-parser', { method: 'POST', headers: AUTH });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ detail: 'invalid preprint_id: "2502.00001" (version suffix vN required)' });
  });

  it('stats and needs-parser reflect the markdown in the same request cycle', async () => {
    await uploadPdf(b.server, '2502.00002v1', pdfBytes('s'));
    let needs = (await (await b.server.fetch('/api/papers/needs-parser', { headers: AUTH })).json()) as {
      papers: { preprint_id: string }[];
    };
    expect(needs.papers.map((p) => p.preprint_id)).toContain('2502.00002v1');
    const res = await uploadZip(b, '2502.00002v1', bundle('# s', { 'a.png': 'a', 'b.png': 'b' }));
    expect(res.status).toBe(201);
    const stats = (await (await b.server.fetch('/api/papers/stats', { headers: AUTH })).json()) as Record<
      string,
      unknown
    >;
    expect(stats).toMatchObject({ available: true, has_md: 1, total_images: 2 });
    needs = (await (await b.server.fetch('/api/papers/needs-parser', { headers: AUTH })).json()) as typeof needs;
    expect(needs.papers.map((p) => p.preprint_id)).not.toContain('2502.00002v1');
  });
});
