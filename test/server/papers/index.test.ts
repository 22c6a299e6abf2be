/**
 * Metadata index (CONTRACT §4): Parquet schema, store persistence with CAS and the 412 merge, availability.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parquetMetadata } from 'hyparquet';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  decodeIndex,
  encodeIndex,
  INDEX_COLUMNS,
  StoreIndexPersistence,
} from '../../../src/server/papers/index-parquet.js';
import { emptyRow, type IndexRow } from '../../../src/server/papers/index/row.js';
import { PaperIndex } from '../../../src/server/papers/paper-index.js';
import { requireUploadId } from '../../../src/shared/ids.js';
import { startMoto, type MotoServer } from '../../support/moto.js';
import { startTestServer } from '../../support/server.js';
import { localFixture, s3Fixture, type StoreFixture } from '../storage/backends.js';
import { AUTH, PAT, pdfBytes, uploadPdf } from './helpers.js';

const quiet = pino({ level: 'silent' });
const id1 = requireUploadId('2501.00010v1');
const id2 = requireUploadId('quant-ph/9508027v2');

function fullRow(): IndexRow {
  return {
    ...emptyRow(id2, new Date('2026-05-01T12:00:00.123Z')),
    has_pdf: true,
    has_md: true,
    image_count: 3,
    pdf_size_bytes: 5_000_000_000,
    md_size_bytes: 1234,
    images_size_bytes: 99,
    pdf_sha256: 'a'.repeat(64),
    md_sha256: 'b'.repeat(64),
    pdf_etag: '"etag-1"',
    md_etag: '"etag-2"',
    pdf_uploaded_at: new Date('2026-05-01T10:00:00.000Z'),
    md_uploaded_at: new Date('2026-05-01T11:00:00.000Z'),
    images_uploaded_at: new Date('2026-05-01T11:00:00.500Z'),
    title: 'A title',
    authors: 'A; B',
    doi: '10.1234/x',
    openalex_id: 'W1',
    publication_date: '1995-08-01',
  };
}

describe('Parquet encoding (§4.1)', () => {
  it('round-trips every column, nulls included; SNAPPY; preprint_id and updated_at required', async () => {
    const rows = [fullRow(), emptyRow(id1, new Date('2026-05-02T00:00:00Z'))];
    const bytes = encodeIndex(rows);
    expect(bytes.subarray(0, 4).toString()).toBe('PAR1');
    const decoded = await decodeIndex(bytes);
    expect(decoded).toEqual([rows[1], rows[0]]); // sorted by preprint_id
    expect(decoded[1]!.categories).toBe('quant-ph');
    const meta = parquetMetadata(
      bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer,
    );
    const schema = meta.schema.slice(1);
    expect(schema.map((s) => s.name)).toEqual(INDEX_COLUMNS.map((c) => c.name));
    expect(schema.find((s) => s.name === 'preprint_id')!.repetition_type).toBe('REQUIRED');
    expect(schema.find((s) => s.name === 'updated_at')!.repetition_type).toBe('REQUIRED');
    expect(schema.find((s) => s.name === 'pdf_size_bytes')!.type).toBe('INT64');
    expect(schema.find((s) => s.name === 'image_count')!.type).toBe('INT32');
    expect(schema.find((s) => s.name === 'pdf_uploaded_at')!.converted_type).toBe('TIMESTAMP_MILLIS');
    for (const rg of meta.row_groups) for (const col of rg.columns) expect(col.meta_data!.codec).toBe('SNAPPY');
  });

  it('an empty table encodes and decodes', async () => {
    expect(await decodeIndex(encodeIndex([]))).toEqual([]);
  });

  it('a corrupt file throws', async () => {
    await expect(decodeIndex(Buffer.from('not parquet at all'))).rejects.toThrow();
  });
});

let moto: MotoServer;
beforeAll(async () => {
  moto = await startMoto();
});
afterAll(async () => {
  await moto?.stop();
});

describe.each([
  ['local', () => localFixture()],
  ['s3', () => s3Fixture(moto)],
] as const)('index persistence (%s)', (_name, make) => {
  let fx: StoreFixture;
  beforeEach(async () => {
    fx = await make();
  });
  afterEach(async () => {
    await fx.close();
  });

  const open = async () => {
    const index = new PaperIndex(quiet, new StoreIndexPersistence(fx.store, quiet), { flushDelayMs: 3_600_000 });
    await index.load();
    return index;
  };

  it('missing object → empty and available; flush writes it; a new instance loads it', async () => {
    const a = await open();
    expect(a.stats()).toMatchObject({ available: true, total: 0 });
    a.update(id1, { has_pdf: true, pdf_sha256: 'c'.repeat(64), pdf_size_bytes: 10 });
    expect(a.stats()).toMatchObject({ total: 1, has_pdf: 1, needs_parser: 1 });
    expect(a.dirty).toBe(true);
    await a.flush();
    expect(a.dirty).toBe(false);
    const b = await open();
    expect(b.get('2501.00010v1')).toMatchObject({
      has_pdf: true,
      pdf_sha256: 'c'.repeat(64),
      pdf_size_bytes: 10,
      key: '2501.00010v1',
      yymm: '2501',
    });
    await a.close();
    await b.close();
  });

  it('a lost CAS race merges: local values win for the columns they set, remote values are kept for the others', async () => {
    const seed = await open();
    seed.update(id1, { has_pdf: true, pdf_sha256: '1'.repeat(64) });
    await seed.flush();

    const a = await open();
    const b = await open();
    a.update(id1, { has_md: true, md_sha256: '2'.repeat(64) });
    b.update(id1, { pdf_sha256: '3'.repeat(64) });
    b.update(id2, { has_pdf: true });
    await a.flush();
    await b.flush(); // 412 → download, re-apply, retry

    const check = await open();
    expect(check.get('2501.00010v1')).toMatchObject({
      has_pdf: true,
      has_md: true,
      md_sha256: '2'.repeat(64),
      pdf_sha256: '3'.repeat(64),
    });
    expect(check.get('quant-ph/9508027v2')).toMatchObject({ has_pdf: true });
    expect(b.get('2501.00010v1')).toMatchObject({ has_md: true });

    // The periodic reload brings the remote change to `a` (changed ETag), keeping a's pending mutations.
    a.update(id2, { image_count: 7 });
    await a.reload();
    expect(a.get('2501.00010v1')!.pdf_sha256).toBe('3'.repeat(64));
    expect(a.get('quant-ph/9508027v2')).toMatchObject({ has_pdf: true, image_count: 7 });
    for (const i of [seed, a, b, check]) await i.close();
  });
});

describe('index availability over HTTP', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'pks-index-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('a corrupt index → unavailable: stats, needs-parser and X-Catalog-Sync: deferred on uploads', async () => {
    await mkdir(path.join(dir, 'raw/index'), { recursive: true });
    await writeFile(path.join(dir, 'raw/index/papers.parquet'), 'garbage');
    const server = await startTestServer({ SVC_SYSTEM_PAT: PAT, SVC_RAW_DIR: path.join(dir, 'raw') });
    try {
      let res = await server.fetch('/api/papers/stats', { headers: AUTH });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ available: false });
      res = await server.fetch('/api/papers/needs-parser', { headers: AUTH });
      expect(await res.json()).toEqual({
        papers: [],
        returned: 0,
        total_unclaimed: 0,
        total_claimed: 0,
        available: false,
      });
      const up = await uploadPdf(server, '2501.00010v1', pdfBytes('x'));
      expect(up.status).toBe(201);
      expect(up.headers.get('x-catalog-sync')).toBe('deferred');
      expect(server.logs.text).toContain('metadata index unavailable');
    } finally {
      await server.close();
    }
  });

  it('a store that never answers delays the start boundedly: versioning warns, the index is unavailable', async () => {
    const silent = net.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as net.AddressInfo).port;
    const started = Date.now();
    const server = await startTestServer({
      SVC_SYSTEM_PAT: PAT,
      SVC_OBJ_ENDPOINT: `http://127.0.0.1:${port}`,
      SVC_OBJ_ACCESS_KEY_ID: 'k',
      SVC_OBJ_SECRET_ACCESS_KEY: 's',
      SVC_OBJ_BUCKET_PDF: 'p',
      SVC_OBJ_BUCKET_MD: 'm',
      SVC_OBJ_BUCKET_IMAGES: 'i',
    });
    try {
      expect(Date.now() - started).toBeLessThan(30_000);
      expect(server.logs.text).toContain('could not enable versioning on bucket p');
      const res = await server.fetch('/api/papers/stats', { headers: AUTH });
      expect(await res.json()).toEqual({ available: false });
    } finally {
      await server.close();
      silent.close();
    }
  });

  it('rows written by uploads survive a restart (flush at shutdown); stats shape', async () => {
    const env = { SVC_SYSTEM_PAT: PAT, SVC_RAW_DIR: path.join(dir, 'raw') };
    const first = await startTestServer(env);
    try {
      expect(first.logs.text).toContain('metadata index not found');
      await uploadPdf(first, '2501.00010v1', pdfBytes('a'));
      await uploadPdf(first, '9508027v1', pdfBytes('b'));
    } finally {
      await first.close();
    }
    const second = await startTestServer(env);
    try {
      const stats = (await (await second.fetch('/api/papers/stats', { headers: AUTH })).json()) as Record<
        string,
        unknown
      >;
      expect(stats).toEqual({
        available: true,
        total: 2,
        has_pdf: 2,
        has_md: 0,
        has_json: 0,
        needs_parser: 2,
        total_images: 0,
        loaded_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      });
      const needs = (await (await second.fetch('/api/papers/needs-parser', { headers: AUTH })).json()) as {
        papers: { preprint_id: string }[];
      };
      // Newest first.
      expect(needs.papers.map((p) => p.preprint_id)).toEqual(['quant-ph/9508027v1', '2501.00010v1']);
    } finally {
      await second.close();
    }
  });
});
