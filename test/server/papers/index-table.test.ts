/**
 * The columnar index (`src/server/papers/index/`): the table, the Parquet codec (own fast path and the hyparquet
 * fallback for files of other layouts), Snappy, and the snapshot the worker encoder serialises.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parquetMetadata, parquetReadObjects, snappyUncompress as referenceUncompress } from 'hyparquet';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INDEX_COLUMNS } from '../../../src/server/papers/index/columns.js';
import { TableEncoder, encodeTable, encodeTableSync } from '../../../src/server/papers/index/encoder.js';
import { decodeTable } from '../../../src/server/papers/index/parquet-read.js';
import { IndexEncoder, ROW_GROUP_ROWS } from '../../../src/server/papers/index/parquet-write.js';
import { emptyRow, type IndexRow } from '../../../src/server/papers/index/row.js';
import { snappyCompress, snappyUncompress } from '../../../src/server/papers/index/snappy.js';
import { IndexTable } from '../../../src/server/papers/index/table.js';
import { PaperIndex } from '../../../src/server/papers/paper-index.js';
import { requireUploadId } from '../../../src/shared/ids.js';
import pino from 'pino';
import { foreignLayoutFile } from './lazy-index-fixtures.js';

const hex = (n: number) => randomBytes(n).toString('hex');

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pks-index-table-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));
let files = 0;
const freshPath = () => path.join(dir, `index-${files++}`);

/** The bytes of an encoded file, checked against the size and sha256 the encoder reported. */
async function fileBytes(file: { path: string; size: number; sha256: string }): Promise<Buffer> {
  const bytes = await readFile(file.path);
  expect(file.size).toBe(bytes.length);
  expect(file.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
  return bytes;
}

/**
 * A table whose `md_etag` column holds a value the encoder cannot write (it throws at that column's pages). It is
 * one of the column's side strings, which reach the worker as they are (text columns are packed before posting).
 */
function unwritableTable(n: number): IndexTable {
  const table = IndexTable.fromRows(Array.from({ length: n }, (_, i) => row(i)));
  table.hex.md_etag.set(n - 1, 'not an etag');
  table.hex.md_etag.other.set(n - 1, { length: 1 } as never);
  return table;
}

function row(i: number, extra: Partial<IndexRow> = {}): IndexRow {
  const id = requireUploadId(`2501.${String(i).padStart(5, '0')}v${1 + (i % 3)}`);
  return {
    ...emptyRow(id, new Date(1_700_000_000_000 + i)),
    has_pdf: i % 2 === 0,
    has_md: i % 3 === 0,
    image_count: i % 5,
    pdf_size_bytes: i % 7 === 0 ? null : 5_000_000_000 + i,
    pdf_sha256: i % 4 === 0 ? null : hex(32),
    md_sha256: i % 3 === 0 ? hex(32) : null,
    pdf_etag: `"${hex(16)}"`,
    md_etag: i % 3 === 0 ? `"${i.toString(16)}-${(i * 7).toString(16)}-abc"` : null, // local-backend shape
    pdf_uploaded_at: i % 6 === 0 ? null : new Date(1_760_000_000_000 + i * 1000),
    title: i % 2 ? `Title ${i}` : null,
    ...extra,
  };
}

const sortById = (rows: IndexRow[]) => [...rows].sort((a, b) => (a.preprint_id < b.preprint_id ? -1 : 1));

describe('Parquet codec of the columnar index', () => {
  it('round-trips odd values: non-hex digests and ETags, non-ASCII text, negative and > 2^32 int64', async () => {
    const rows = [
      row(1, { pdf_sha256: 'A'.repeat(64), title: 'Größe — 量子', authors: 'Ä; B', pdf_size_bytes: -5 }),
      row(2, { pdf_etag: '"' + 'f'.repeat(32) + '-3"', md_sha256: 'g'.repeat(64), images_size_bytes: 2 ** 52 }),
      row(3, { updated_at: new Date(-86_400_000), publication_date: '1995-08-01', doi: '10.1/x' }),
    ];
    const table = IndexTable.fromRows(rows);
    const decoded = await decodeTable(encodeTableSync(table));
    expect([...decoded.rows()]).toEqual(sortById(rows));
  });

  it('reads files in hyparquet-writer layout (dictionary pages, RLE booleans, page v2) through the fallback', async () => {
    const rows = Array.from({ length: 300 }, (_, i) => row(i));
    const columnData = INDEX_COLUMNS.map((c) => ({
      name: c.name,
      type: c.type,
      nullable: c.nullable,
      data: rows.map((r) => {
        const v = r[c.name];
        return c.type === 'INT64' && v !== null ? BigInt(v as number) : v;
      }),
    }));
    const bytes = Buffer.from(parquetWriteBuffer({ columnData: columnData as never, codec: 'SNAPPY' }));
    const decoded = await decodeTable(bytes);
    expect([...decoded.rows()]).toEqual(rows);
  });

  it('reads a PLAIN file whose image_count is INT64 (pandas’ default) through the fallback', async () => {
    const rows = Array.from({ length: 300 }, (_, i) => row(i));
    const bytes = foreignLayoutFile(rows, { image_count: 'INT64' });
    const decoded = await decodeTable(bytes);
    expect([...decoded.rows()]).toEqual(rows);
  });

  it('spans several row groups; rows appended out of order are written sorted', async () => {
    const n = ROW_GROUP_ROWS + 1000;
    const table = new IndexTable(n);
    table.allocate(n);
    for (let i = 0; i < n; i++) {
      const id = `2502.${String(n - i).padStart(6, '0')}v1`; // descending
      table.ids[i] = id;
      table.text.key[i] = id;
      table.flags.has_pdf[i] = i % 2;
      table.times.updated_at[i] = i;
      table.hex.pdf_sha256.set(i, i % 3 ? hex(32) : null);
    }
    table.indexRows();
    const decoded = await decodeTable(encodeTableSync(table));
    expect(decoded.length).toBe(n);
    expect(decoded.ids[0]).toBe('2502.000001v1');
    expect(decoded.ids[n - 1]).toBe(`2502.${String(n).padStart(6, '0')}v1`);
    const i = decoded.indexOf('2502.000777v1')!;
    expect(decoded.row(i)).toEqual(table.row(table.indexOf('2502.000777v1')!));
  });

  it('the worker encoder writes the table as of the call: later writes are not included', async () => {
    const rows = Array.from({ length: 3000 }, (_, i) => row(i));
    const table = IndexTable.fromRows(rows);
    const encoding = encodeTable(table, freshPath(), { inProcessMaxRows: 0 });
    table.set(table.indexOf(rows[5]!.preprint_id)!, { title: 'changed', has_md: true, pdf_etag: null });
    table.upsert(row(9999));
    const decoded = await decodeTable(await fileBytes(await encoding));
    expect(decoded.length).toBe(3000);
    expect(decoded.row(decoded.indexOf(rows[5]!.preprint_id)!)).toEqual(rows[5]);
    expect([...decoded.rows()]).toEqual(sortById(rows));
  });

  it('the worker writes the rows the in-place encoder writes: ids out of order, non-ASCII strings, nulls', async () => {
    const n = 5_000; // two full chunks and a short one
    const table = new IndexTable(n);
    table.allocate(n);
    const odd = ['é', '\uffff', '😀', ''];
    for (let i = 0; i < n; i++) {
      const id = `2503.${String((i * 7919) % n).padStart(5, '0')}${odd[i % 4]}v1`;
      table.ids[i] = id;
      table.text.key[i] = id;
      table.times.updated_at[i] = i;
      table.setText(i, 'title', i % 3 === 0 ? null : `Τίτλος ${odd[i % 4]} ${i}`);
      table.setText(i, 'authors', i % 5 === 0 ? '' : null);
    }
    table.indexRows();
    const inWorker = await decodeTable(await fileBytes(await encodeTable(table, freshPath(), { inProcessMaxRows: 0 })));
    const inPlace = await decodeTable(encodeTableSync(table));
    expect(inWorker.ids).toEqual(inPlace.ids);
    expect([...inWorker.rows()]).toEqual([...inPlace.rows()]);
  });
});

describe('the in-place encoder (kept buffers, one column page a step)', () => {
  it('writes the table as of the snapshot: rows changed, added and a reallocation meanwhile are not included', async () => {
    const rows = Array.from({ length: 2000 }, (_, i) => row(i));
    const table = new IndexTable(2000);
    for (const r of rows) table.upsert(r);
    const snapshot = table.snapshot();
    const pieces: Buffer[] = [];
    const steps = new IndexEncoder().steps(
      snapshot.view(),
      (piece) => void pieces.push(Buffer.from(piece)),
      snapshot.changed,
    );
    for (let k = 0; k < 5; k++) expect(steps.next().done).toBe(false);
    // Rows changed after some of their columns were written and before the others; then the table grows (its
    // typed arrays are reallocated) and a changed row changes again.
    for (const i of [0, 7, 1999]) {
      table.set(table.indexOf(rows[i]!.preprint_id)!, {
        has_pdf: !rows[i]!.has_pdf,
        image_count: 99,
        pdf_size_bytes: null,
        pdf_sha256: 'c'.repeat(64),
        md_etag: null,
        updated_at: new Date(5),
        title: 'changed',
      });
    }
    for (let i = 2000; i < 2600; i++) table.upsert(row(i));
    table.set(table.indexOf(rows[7]!.preprint_id)!, { title: 'changed again', has_md: !rows[7]!.has_md });
    while (!steps.next().done);
    snapshot.release();
    const decoded = await decodeTable(Buffer.concat(pieces));
    expect([...decoded.rows()]).toEqual(sortById(rows));
  });

  it('a reused encoder writes the same bytes as a fresh one, for tables that grow and shrink', async () => {
    const reused = new TableEncoder();
    for (const n of [3000, 40_000, 10, 0, 25_000]) {
      const table = IndexTable.fromRows(Array.from({ length: n }, (_, i) => row((i * 7919) % 90_000)));
      const ours = await fileBytes(await reused.encode(table, freshPath()));
      expect(ours.equals(Buffer.from(encodeTableSync(table)))).toBe(true);
      expect((await decodeTable(ours)).length).toBe(table.length);
    }
  });

  it('lets the event loop run while it encodes a large table', async () => {
    const table = IndexTable.fromRows(Array.from({ length: 60_000 }, (_, i) => row(i)));
    let turns = 0;
    let done = false;
    const tick = () => {
      turns++;
      if (!done) setImmediate(tick);
    };
    setImmediate(tick);
    const file = await new TableEncoder().encode(table, freshPath());
    done = true;
    expect(turns).toBeGreaterThan(2);
    expect((await decodeTable(await fileBytes(file))).length).toBe(60_000);
  });
});

describe('an encode that fails leaves no file', () => {
  it.each([
    ['in place', 10_000],
    ['in the worker', 0],
  ])('%s: the half-written file is removed; the encoder stays usable', async (_where, inProcessMaxRows) => {
    const encoder = new TableEncoder();
    const target = freshPath();
    await expect(encoder.encode(unwritableTable(3_000), target, { inProcessMaxRows })).rejects.toThrow(
      /charCodeAt is not a function/,
    );
    expect(await readdir(dir)).not.toContain(path.basename(target));
    const table = IndexTable.fromRows(Array.from({ length: 3_000 }, (_, i) => row(i)));
    const file = await encoder.encode(table, freshPath(), { inProcessMaxRows });
    expect((await decodeTable(await fileBytes(file))).length).toBe(3_000);
  });
});

describe('IndexTable', () => {
  it('versionsOf finds every version; rows grow past the initial capacity', () => {
    const table = new IndexTable(16);
    const rows = Array.from({ length: 100 }, (_, i) => row(i));
    for (const r of rows) table.upsert(r);
    table.upsert({ ...row(1), preprint_id: '2501.00001v7', key: '2501.00001v7' });
    expect(table.versionsOf('2501.00001').map((i) => table.ids[i])).toEqual(['2501.00001v2', '2501.00001v7']);
    expect(table.length).toBe(101);
    expect(table.row(table.indexOf('2501.00099v1')!)).toEqual(rows[99]);
  });

  it('versionsOf orders versions by number and does not depend on the largest version stored (issue 21 review)', () => {
    const table = new IndexTable(16);
    const huge = '2501.00001v100000000000000000000';
    for (const id of [huge, '2501.00001v10', '2501.00001v9', '2501.00001v1', '2501.00002v3'])
      table.upsert({ ...row(1), preprint_id: id, key: id });
    expect(table.versionsOf('2501.00001').map((i) => table.ids[i])).toEqual([
      '2501.00001v1',
      '2501.00001v9',
      '2501.00001v10',
      huge,
    ]);
    expect(table.versionsOf('2501.00002').map((i) => table.ids[i])).toEqual(['2501.00002v3']);
    expect(table.versionsOf('2501.0000')).toEqual([]);
  });

  it('a PaperIndex keeps the needs-parser order over row numbers', async () => {
    const index = new PaperIndex(pino({ level: 'silent' }), null);
    await index.load();
    index.update(requireUploadId('2501.00002v1'), { has_pdf: true, pdf_uploaded_at: new Date(2000) });
    index.update(requireUploadId('2501.00001v1'), { has_pdf: true, pdf_uploaded_at: new Date(1000) });
    expect([...index.needsParser()].map((r) => r.preprint_id)).toEqual(['2501.00002v1', '2501.00001v1']);
    expect(index.versionsOf('2501.00001').map((r) => r.preprint_id)).toEqual(['2501.00001v1']);
  });
});

describe('Snappy', () => {
  it('round-trips and is readable by the reference decoder (compressed and stored)', () => {
    const inputs = [
      new Uint8Array(0),
      Buffer.from('abc'),
      Buffer.from('abcd'.repeat(50_000)),
      Buffer.from(hex(100_000)),
      randomBytes(200_000),
      Buffer.from(Array.from({ length: 30_000 }, (_, i) => `2501.${String(i).padStart(5, '0')}v1`).join('')),
    ];
    for (const input of inputs) {
      for (const store of [false, true]) {
        const packed = snappyCompress(input, store);
        const ours = new Uint8Array(input.length);
        snappyUncompress(packed, ours);
        expect(Buffer.from(ours).equals(Buffer.from(input))).toBe(true);
        const theirs = new Uint8Array(input.length);
        referenceUncompress(packed, theirs);
        expect(Buffer.from(theirs).equals(Buffer.from(input))).toBe(true);
      }
    }
    expect(snappyCompress(Buffer.from('abcd'.repeat(50_000))).length).toBeLessThan(20_000);
  });
});

describe('interoperability', () => {
  it('a file our encoder writes reads back identically through hyparquet, the generic reader other tools use', async () => {
    const rows = Array.from({ length: 300 }, (_, i) => row(i));
    const bytes = encodeTableSync(IndexTable.fromRows(rows));
    const buffer = new Uint8Array(bytes).buffer;
    const metadata = parquetMetadata(buffer);
    expect(metadata.row_groups[0]?.columns[0]?.meta_data?.codec).toBe('SNAPPY');
    expect(metadata.schema.slice(1).map((s) => s.name)).toEqual(INDEX_COLUMNS.map((c) => c.name));
    const objects = (await parquetReadObjects({ file: buffer })) as Record<string, unknown>[];
    expect(objects.length).toBe(rows.length);
    const expected = sortById(rows);
    objects.forEach((o, i) => {
      const want = expected[i]!;
      expect(o['preprint_id']).toBe(want.preprint_id);
      expect(o['has_pdf']).toBe(want.has_pdf);
      expect(o['has_md']).toBe(want.has_md);
      expect(o['pdf_sha256'] ?? null).toBe(want.pdf_sha256);
      expect(o['pdf_etag'] ?? null).toBe(want.pdf_etag);
      expect(o['md_etag'] ?? null).toBe(want.md_etag);
      expect(o['title'] ?? null).toBe(want.title);
      const size = o['pdf_size_bytes'];
      expect(size === null || size === undefined ? null : Number(size)).toBe(want.pdf_size_bytes);
      const uploaded = o['pdf_uploaded_at'] as Date | null | undefined;
      expect(uploaded ? uploaded.getTime() : null).toBe(want.pdf_uploaded_at ? want.pdf_uploaded_at.getTime() : null);
    });
  });
});
