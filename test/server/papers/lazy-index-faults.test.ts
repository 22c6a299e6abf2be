/**
 * The index opened lazily (hot columns at the load, the others from the open file on first use) behaves as the
 * eager decode did when the file turns out bad: a cold chunk that does not decode, a file rewritten in place under
 * the loaded table, a foreign layout found only in a cold chunk's metadata. And replaced tables give their file
 * descriptors back at once, not at a garbage collection.
 */
import { closeSync, fstatSync, openSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parquetHeader } from 'hyparquet/src/column.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeTable, openTable } from '../../../src/server/papers/index/parquet-read.js';
import { IndexTable } from '../../../src/server/papers/index/table.js';
import { StoreIndexPersistence } from '../../../src/server/papers/index-parquet.js';
import { PaperIndex } from '../../../src/server/papers/paper-index.js';
import { LocalObjectStore } from '../../../src/server/storage/local-store.js';
import { UnavailableError } from '../../../src/shared/domain-errors.js';
import { parsePreprintId, type VersionedPreprintId } from '../../../src/shared/ids.js';
import {
  chunkAt,
  corrupt,
  foreignLayoutFile,
  encodeRows as encode,
  indexOver as indexOverIn,
  indexRow as row,
  indexRows,
  quiet,
  storedRows,
} from './lazy-index-fixtures.js';
import { openDescriptorCount } from '../../support/descriptors.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pks-lazy-faults-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const sixRows = (title = 'title') => indexRows(6, title);
const indexOver = (bytes: Buffer) => indexOverIn(dir, bytes);

let dirs = 0;
const id = (s: string) => parsePreprintId(s) as VersionedPreprintId;

/** `bytes` with the first RLE run of group 0's `column` definition levels (a v2 page's, uncompressed) set to `level`. */
function withLevel(bytes: Buffer, column: string, level: number): Buffer {
  const { start } = chunkAt(bytes, 0, column);
  const reader = { view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), offset: start };
  expect(parquetHeader(reader).type).toBe('DATA_PAGE_V2');
  // The page's levels open its body: an RLE run header (count << 1), then its value.
  expect([bytes[reader.offset]! & 1, bytes[reader.offset + 1]]).toEqual([0, 1]);
  const out = Buffer.from(bytes);
  out[reader.offset + 1] = level;
  return out;
}

describe('a definition level of 2 (bit rot in an RLE run) counts as defined, as the decode reads it', () => {
  // Review 3: the walk of the open's `image_count` sum and of the check counted a level by its value.
  const rows = indexRows(16).map((r, k) => ({ ...r, image_count: k + 1, pdf_size_bytes: 100 + k }));
  it.each(['image_count', 'pdf_size_bytes'])(
    '%s: the open, its sum and the check agree with the decode',
    async (column) => {
      const bytes = withLevel(foreignLayoutFile(rows, {}), column, 2);
      const eager = [...(await decodeTable(bytes)).rows()];
      expect(eager.map((r) => [r.image_count, r.pdf_size_bytes])).toEqual(
        rows.map((r) => [r.image_count, r.pdf_size_bytes]),
      );
      const file = path.join(dir, `level-${column}.parquet`);
      await writeFile(file, bytes);
      const fd = openSync(file, 'r');
      const table = await openTable(fd, fstatSync(fd).size);
      expect(table.imageTotal()).toBe(136);
      await expect(table.validate(() => Promise.resolve())).resolves.toBeUndefined();
      expect([...table.rows()]).toEqual(eager);
      table.release();
    },
  );
});

describe('a cold column chunk that does not decode', () => {
  it('makes the index unavailable (as a bad file at the load did), found by the check after the load', async () => {
    await expect(decodeTable(corrupt(encode(sixRows(), 2), 2, 'title'))).rejects.toThrow();
    const { index } = await indexOver(corrupt(encode(sixRows(), 2), 2, 'title'));
    await expect.poll(() => index.stats()).toEqual({ available: false });
    // As after a load that failed: an empty table (routes answer 503 through `requireIndex`), and reads answer the
    // unavailable error (a request that checked before awaiting must not read the empty table as the catalogue).
    expect(() => index.get('2501.00001v1')).toThrow(UnavailableError);
    expect(index.size).toBe(0);
    // The retry loads the same object again: still unavailable, not available until its next bad row.
    await index.reload();
    expect(index.available).toBe(false);
    await index.close();
  });

  it('is not read by the needs-parser listing, which decodes only `key` and `yymm` of a row group', async () => {
    const fd = openSync(path.join(dir, 'queue.parquet'), 'w+');
    writeFileSync(fd, corrupt(encode(sixRows(), 2), 1, 'title'));
    const table = await openTable(fd, fstatSync(fd).size);
    expect(table.queueRow(2)).toEqual({
      preprint_id: '2501.00003v1',
      key: '2501.00003v1',
      yymm: '2501',
      pdf_uploaded_at: row(3, 'title').pdf_uploaded_at,
    });
    expect(() => table.row(2)).toThrow(/index row group 1/);
    table.release();
  });

  it('a tool’s load (decoded whole, as before) rejects the file and keeps no descriptor', async () => {
    const { index, raw } = await indexOver(encode(sixRows(), 2));
    await index.close();
    writeFileSync(path.join(raw, 'index', 'papers.parquet'), corrupt(encode(sixRows(), 2), 2, 'doi'));
    const fds = openDescriptorCount();
    await expect(new StoreIndexPersistence(new LocalObjectStore(raw), quiet).load()).rejects.toThrow(/row group 2/);
    expect(openDescriptorCount()).toBeLessThanOrEqual(fds);
  });

  it('a read of a row in the bad group: the unavailable-index answer (503), never a decode error', async () => {
    const { index } = await indexOver(corrupt(encode(sixRows(), 2), 2, 'title'));
    expect(index.available).toBe(true);
    expect(index.get('2501.00001v1')!.title).toBe('title 1');
    let error: unknown = null;
    try {
      index.get('2501.00005v1');
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(UnavailableError);
    expect((error as Error).message).toBe('metadata index unavailable (the server retries loading it every 60 s)');
    expect(index.stats()).toEqual({ available: false });
    await index.close();
  });

  it('a write that reads a bad chunk changes no counter or order, and is kept like a write while unavailable', async () => {
    const rows = sixRows();
    const bytes = encode(rows, 2);
    // Every write sets `updated_at` (and the list order reads it).
    const { index, file } = await indexOver(corrupt(bytes, 2, 'updated_at'));
    expect(index.needsParserCount).toBe(6);
    expect(() => index.update(id('2501.00005v1'), { has_md: true })).not.toThrow();
    expect(index.available).toBe(false);
    expect(index.stats()).toEqual({ available: false });
    expect(index.dirty).toBe(true);
    // The file repaired: the reload applies the write on top of it, with exact counters.
    writeFileSync(file, bytes);
    await index.reload();
    expect(index.available).toBe(true);
    expect(index.get('2501.00005v1')!.has_md).toBe(true);
    expect(index.stats()).toMatchObject({ available: true, total: 6, has_pdf: 6, has_md: 1, needs_parser: 5 });
    expect(index.needsParserCount).toBe(5);
    expect([...index.needsParser()].map((r) => r.preprint_id)).not.toContain('2501.00005v1');
    await index.flush();
    expect((await storedRows(file)).get('2501.00005v1')!.has_md).toBe(true);
    await index.close();
  });

  it('a write to a healthy row while another group is bad is not lost: stored once the file is readable', async () => {
    const rows = sixRows();
    const bytes = encode(rows, 2);
    const bad = corrupt(bytes, 2, 'authors');
    const { index, file } = await indexOver(bad);
    index.update(id('2501.00001v1'), { has_md: true });
    expect(index.get('2501.00001v1')!.has_md).toBe(true);
    // The flush decodes the rest first: the bad chunk makes the index unavailable; nothing is written or rejected.
    await index.flush();
    expect(index.available).toBe(false);
    expect(index.dirty).toBe(true);
    expect((await readFile(file)).equals(bad)).toBe(true);
    writeFileSync(file, bytes);
    await index.reload();
    await index.close();
    expect((await storedRows(file)).get('2501.00001v1')!.has_md).toBe(true);
  });
});

describe('the index file rewritten in place under a loaded table', () => {
  it('a row never mixes the two files: the index reloads, and reads answer 503 until it has', async () => {
    const before = sixRows('old');
    const after = Array.from({ length: 6 }, (_, n) => row(n + 1, `NEW ${n + 1}`, { has_pdf: false }));
    const { index, file } = await indexOver(encode(before, 2));
    expect(index.get('2501.00001v1')).toEqual(before[0]);
    // `cp` over it: the same inode, truncated and written.
    writeFileSync(file, encode(after, 2));
    const seen: unknown[] = [];
    await expect
      .poll(() => {
        try {
          const r = index.get('2501.00005v1');
          seen.push(r);
          return r;
        } catch (err) {
          seen.push(err);
          return err;
        }
      })
      .toEqual(after[4]);
    for (const s of seen) {
      if (s instanceof Error) expect(s).toBeInstanceOf(UnavailableError);
      else expect([before[4], after[4]]).toContainEqual(s);
    }
    expect(index.stats()).toMatchObject({ available: true, has_pdf: 0, needs_parser: 0 });
    await index.close();
  });

  it('a file rewritten with the same size and mtime is still told apart (its ctime)', async () => {
    const before = sixRows('aaa');
    const after = Array.from({ length: 6 }, (_, n) => row(n + 1, `bbb ${n + 1}`, { has_pdf: false }));
    // The Snappy compressor's first call after others can differ by a byte: both encoded after a warm-up.
    encode(before, 2);
    const old = encode(before, 2);
    const bytes = encode(after, 2);
    expect(bytes.length).toBe(old.length);
    const raw = path.join(dir, `raw-${++dirs}`);
    await mkdir(path.join(raw, 'index'), { recursive: true });
    const file = path.join(raw, 'index', 'papers.parquet');
    await writeFile(file, old);
    const when = 1_700_000_000; // whole seconds: set back exactly
    utimesSync(file, when, when);
    const index = new PaperIndex(quiet, new StoreIndexPersistence(new LocalObjectStore(raw), quiet), {
      flushDelayMs: 1e9,
      reloadIntervalMs: 1e9,
    });
    await index.load();
    writeFileSync(file, bytes);
    utimesSync(file, when, when); // as `rsync --inplace -t` leaves it
    expect(statSync(file).mtimeMs).toBe(when * 1000);
    let got: unknown;
    try {
      got = index.get('2501.00005v1');
    } catch (err) {
      got = err;
    }
    expect(got instanceof UnavailableError || JSON.stringify(got) === JSON.stringify(after[4])).toBe(true);
    await expect.poll(() => index.available).toBe(true);
    expect(index.get('2501.00005v1')).toEqual(after[4]);
    await index.close();
  });
});

describe('descriptors', () => {
  it('40 reloads after peer flushes keep the count of open descriptors bounded (no wait for a collection)', async () => {
    const raw = path.join(dir, 'reloads');
    const store = new LocalObjectStore(raw);
    const writer = new StoreIndexPersistence(store, quiet);
    await writer.save(IndexTable.fromRows(sixRows()), new Map());
    const reader = new PaperIndex(quiet, new StoreIndexPersistence(new LocalObjectStore(raw), quiet), {
      flushDelayMs: 1e9,
      reloadIntervalMs: 1e9,
    });
    await reader.load();
    // Listings of some old tables are still held while they are replaced.
    const held: unknown[] = [];
    const start = openDescriptorCount();
    let max = start;
    for (let k = 0; k < 40; k++) {
      const peer = new StoreIndexPersistence(store, quiet);
      const t = (await peer.load())!;
      t.set(0, { title: `peer ${k}` });
      await peer.save(t, new Map([['2501.00001v1', { title: `peer ${k}` }]]));
      // (Hot columns only: a row read would decode the file's one row group and close it.)
      held.push(k % 10 === 0 ? reader.listing('id') : reader.stats());
      await reader.reload();
      max = Math.max(max, openDescriptorCount());
    }
    expect(reader.get('2501.00001v1')!.title).toBe('peer 39');
    expect(held).toHaveLength(40);
    expect(max - start).toBeLessThanOrEqual(3);
    expect(openDescriptorCount() - start).toBeLessThanOrEqual(1);
    await reader.close();
    expect(openDescriptorCount()).toBeLessThanOrEqual(start);
  });
});

describe('a foreign layout seen only in a cold chunk', () => {
  it.each([
    ['pdf_size_bytes as INT32 (a cold column)', { pdf_size_bytes: 'INT32' }],
    ['image_count as INT64, pandas’ default (a hot column)', { image_count: 'INT64' }],
  ])('%s: read whole at the open, every value as written', async (_, types) => {
    const rows = Array.from({ length: 300 }, (_, n) => row(n + 1, n % 3 ? `t${n}` : null, { image_count: n % 4 }));
    const file = path.join(dir, `foreign-${Object.keys(types)[0]}.parquet`);
    writeFileSync(file, foreignLayoutFile(rows, types, 100));
    const fd = openSync(file, 'r');
    const table = await openTable(fd, fstatSync(fd).size);
    expect(table.partlyDecoded).toBe(false);
    expect([...table.rows()]).toEqual(rows);
    expect(() => closeSync(fd)).toThrow(); // the open closed it (a table read whole holds no descriptor)
  });
});
