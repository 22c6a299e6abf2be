/**
 * The paper service built by `openPaperAssets` on a temp directory: the legacy read fallback (CONTRACT §3.2), and
 * a fetched PDF stored through the `upload-pdf` write path (§9.3, §11.5) — asserted through a store of its own.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildConfig } from '../../../src/server/config/load.js';
import { openPaperAssets, type PaperAssets } from '../../../src/server/papers/assets.js';
import { LocalObjectStore } from '../../../src/server/storage/local-store.js';
import { ConflictError } from '../../../src/shared/domain-errors.js';
import { requireUploadId } from '../../../src/shared/ids.js';
import { pdfBytes, sha, storedBytes } from './helpers.js';

let dir: string;
let papers: PaperAssets;
let store: LocalObjectStore;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pks-service-'));
  const config = buildConfig({
    flags: new Map(),
    env: {
      SVC_RAW_DIR: path.join(dir, 'raw'),
      SVC_DATA_DIR: path.join(dir, 'data'),
      SVC_DB_DATA_DIR: path.join(dir, 'pb'),
    },
    cwd: dir,
    home: dir,
  });
  papers = await openPaperAssets(config, pino({ level: 'silent' }), { s3: null, graph: null });
  store = new LocalObjectStore(config.rawDir);
});
afterEach(async () => {
  await papers.close();
  await rm(dir, { recursive: true, force: true });
});

const put = (key: string, body = 'x') =>
  store.put(key, Buffer.from(body), { contentType: 'application/octet-stream', metadata: {} });

describe('legacy read fallback (§3.2)', () => {
  it('old-style ids fall back to the category-less keys; the app key wins when present', async () => {
    const id = requireUploadId('quant-ph/9508027v1');
    expect(await papers.findPdf(id)).toBeNull();
    await put('pdf/9508/9508027v1.pdf', 'legacy');
    expect((await papers.findPdf(id))!.key).toBe('pdf/9508/9508027v1.pdf');
    await put('pdf/9508/quant-ph_9508027v1.pdf', 'app');
    expect((await papers.findPdf(id))!.key).toBe('pdf/9508/quant-ph_9508027v1.pdf');

    await put('markdown/9508/9508027v1.md');
    expect((await papers.findMarkdown(id))!.key).toBe('markdown/9508/9508027v1.md');

    await put('images/9508/9508027v1/a.png');
    expect((await papers.listImages(id)).map((o) => o.key)).toEqual(['images/9508/9508027v1/a.png']);
    await put('images/9508/quant-ph_9508027v1/b.png');
    expect((await papers.listImages(id)).map((o) => o.key)).toEqual(['images/9508/quant-ph_9508027v1/b.png']);
  });

  it('new-style ids never probe a legacy key', async () => {
    const id = requireUploadId('2501.00010v1');
    await put('pdf/2501/00010v1.pdf');
    expect(await papers.findPdf(id)).toBeNull();
    expect(await papers.listImages(id)).toEqual([]);
  });

  it('stats start empty and available', () => {
    expect(papers.stats()).toMatchObject({ available: true, total: 0, needs_parser: 0 });
  });
});

describe('a fetched PDF goes through the upload-pdf write path (§9.3, §11.5)', () => {
  const id = requireUploadId('2501.00030v1');
  const key = 'pdf/2501/2501.00030v1.pdf';
  const stage = (bytes: Buffer) => papers.stageDownload(Readable.from([bytes]), 1000, 'pdf');
  const when = new Date('2026-01-02T03:04:05Z');
  const fetch = async (bytes: Buffer, overwrite = false) => {
    const staged = await stage(bytes);
    try {
      return await papers.storeFetchedPdf(id, staged, { overwrite, now: () => when });
    } finally {
      await staged.remove();
    }
  };

  it('writes create-if-absent, tagged as fetched, and records the index row', async () => {
    const bytes = pdfBytes('fetched');
    expect(await fetch(bytes)).toEqual({ key, sha256: sha(bytes), bytes: bytes.length, reused: false });
    expect(await storedBytes(store, key)).toEqual(bytes);
    expect((await store.head(key))!.metadata).toMatchObject({ source: 'preprint-fetch', sha256: sha(bytes) });
    expect(papers.index.get(id.id)).toMatchObject({
      has_pdf: true,
      pdf_sha256: sha(bytes),
      pdf_size_bytes: bytes.length,
      pdf_uploaded_at: when,
    });
    // The same bytes again: nothing written, the same answer.
    expect(await fetch(bytes)).toEqual({ key, sha256: sha(bytes), bytes: bytes.length, reused: false });
  });

  it('a different PDF stored first wins: the fetch answers it as reused; an upload of the same bytes is a 409', async () => {
    const first = pdfBytes('uploaded first');
    const staged = await papers.stage('pdf', Readable.from([first]));
    await papers.uploadPdf({ id, expectedSha256: null, overwrite: false, uploadedBy: null, staged });
    const fetched = pdfBytes('fetched later');
    expect(await fetch(fetched)).toEqual({ key, sha256: sha(first), bytes: first.length, reused: true });
    expect(await storedBytes(store, key)).toEqual(first);
    expect(papers.index.get(id.id)?.pdf_sha256).toBe(sha(first));

    const again = await papers.stage('pdf', Readable.from([fetched]));
    const err = await papers
      .uploadPdf({ id, expectedSha256: null, overwrite: false, uploadedBy: null, staged: again })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConflictError);
    expect((err as ConflictError).message).toBe(`${key} already exists with different content`);
  });

  it('with overwrite the fetched PDF replaces a different one', async () => {
    await fetch(pdfBytes('old'));
    const bytes = pdfBytes('new');
    expect(await fetch(bytes, true)).toEqual({ key, sha256: sha(bytes), bytes: bytes.length, reused: false });
    expect(await storedBytes(store, key)).toEqual(bytes);
    expect(papers.index.get(id.id)?.pdf_sha256).toBe(sha(bytes));
  });

  it('presignPdf: null without a PDF; the local store hands out no URL', async () => {
    expect(await papers.presignPdf(id, 60)).toBeNull();
    await fetch(pdfBytes('x'));
    expect(await papers.presignPdf(id, 60)).toEqual({ url: null });
  });
});
