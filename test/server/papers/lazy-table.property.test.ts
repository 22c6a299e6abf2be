/**
 * A table opened from a file with its cold columns decoded on first use (`openTable`, issue 25) against the eager
 * decode of the same bytes (`decodeTable`), on random tables written in small row groups: nulls, odd digests,
 * non-ASCII text, reads of hot columns (which decode nothing), row reads and writes to cold rows before and after
 * their group is decoded, rows appended, snapshots taken across a decode, whole-column reads and the asynchronous
 * decode of everything — the rows, the snapshot's encoding and the table's encoding must match throughout. Then,
 * through the store: a reload while the old lazy table is held, and the file replaced after the open.
 */
import { fstatSync, openSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FLAG_COLUMNS,
  HEX_COLUMNS,
  HEX_SHAPES,
  TEXT_COLUMNS,
  TIME_COLUMNS,
  columnRecord,
} from '../../../src/server/papers/index/columns.js';
import { TableEncoder, encodeTable, encodeTableSync } from '../../../src/server/papers/index/encoder.js';
import { decodeTable, openTable } from '../../../src/server/papers/index/parquet-read.js';
import { IndexEncoder, encodeColumns, runToEnd } from '../../../src/server/papers/index/parquet-write.js';
import { ChunkAssembler, type TableSnapshot } from '../../../src/server/papers/index/snapshot.js';
import type { IndexRow, RowMutation } from '../../../src/server/papers/index/row.js';
import { IndexTable } from '../../../src/server/papers/index/table.js';
import { StoreIndexPersistence } from '../../../src/server/papers/index-parquet.js';
import { LocalObjectStore } from '../../../src/server/storage/local-store.js';

const quiet = pino({ level: 'silent' });
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pks-lazy-table-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const piece = fc.constantFrom('a', 'Z', '0', ' ', 'é', '\u0800', '\uffff', '😀');
const text = fc.array(piece, { maxLength: 5 }).map((p) => p.join(''));
const hexDigits = (n: number) => fc.array(fc.constantFrom(...'0123456789abcdef'), { minLength: n, maxLength: n });
/** `n` hex digits but one, a character beside the digits' ranges (kept as a string, not packed). */
const nearHex = (n: number) =>
  fc
    .tuple(hexDigits(n), fc.nat(n - 1), fc.constantFrom('/', ':', '`', 'g', 'F'))
    .map(([d, at, c]) => d.map((x, i) => (i === at ? c : x)).join(''));
const sha = fc.option(
  fc.oneof(
    hexDigits(64).map((d) => d.join('')),
    nearHex(64),
    text,
  ),
  { nil: null },
);
const etag = fc.option(
  fc.oneof(
    hexDigits(32).map((d) => `"${d.join('')}"`),
    nearHex(32).map((d) => `"${d}"`),
    text,
  ),
  { nil: null },
);
const time = fc.option(
  fc.integer({ min: -5e12, max: 5e12 }).map((t) => new Date(t)),
  { nil: null },
);
const size = fc.option(fc.integer({ min: 0, max: 2 ** 40 }), { nil: null });
const str = fc.option(text, { nil: null });

const cells = {
  has_pdf: fc.boolean(),
  has_md: fc.boolean(),
  has_json: fc.boolean(),
  image_count: fc.integer({ min: 0, max: 1000 }),
  pdf_size_bytes: size,
  md_size_bytes: size,
  images_size_bytes: size,
  pdf_sha256: sha,
  md_sha256: sha,
  pdf_etag: etag,
  md_etag: etag,
  pdf_uploaded_at: time,
  md_uploaded_at: time,
  images_uploaded_at: time,
  updated_at: fc.integer({ min: 0, max: 5e12 }).map((t) => new Date(t)),
  title: str,
  authors: str,
  categories: fc.option(fc.constantFrom('cs.LG', 'hep-th', 'math.AG'), { nil: null }),
  doi: str,
  openalex_id: str,
  publication_date: str,
  yymm: fc.constantFrom('2501', '2412', ''),
};

// A key is usually its row's id (kept as a mark by an opened table), sometimes another string.
const keyOf = (id: string) =>
  fc.oneof({ weight: 4, arbitrary: fc.constant(id) }, { weight: 1, arbitrary: fc.oneof(text, fc.constant('')) });
const rowOf = (id: string) =>
  fc.tuple(keyOf(id), fc.record(cells)).map(([key, c]): IndexRow => ({ preprint_id: id, key, ...c }));
const newStyle = fc.integer({ min: 0, max: 9999 }).map((n) => `2501.${String(n).padStart(5, '0')}v${(n % 3) + 1}`);
// Ids past ASCII too: their UTF-8 byte order differs from string order above U+E000. And ids around 255 bytes that
// share prefixes with shorter ones and with each other: the packed ids keep the length of a row's tail and of the
// prefix it shares with the row before in a byte each.
const ids = fc.uniqueArray(
  fc.oneof(
    newStyle,
    fc.tuple(text, fc.constantFrom('v1', 'v2', '')).map(([t, v]) => t + v),
    fc.tuple(text, fc.integer({ min: 240, max: 270 }), text).map(([a, n, b]) => a + 'L'.repeat(n) + b),
  ),
  {
    minLength: 0,
    maxLength: 60,
  },
);
const table = ids.chain((list) => fc.tuple(...list.map(rowOf)));
/** In a mutation's `key`: the written row's own id (`set` puts it there). */
const OWN_ID = '\u0000own id';
const mutation: fc.Arbitrary<RowMutation> = fc.record(
  { ...cells, key: fc.oneof(text, fc.constant(OWN_ID)) },
  { requiredKeys: [] },
);
/** Applies `m` to row `i` of `t`, its key `OWN_ID` as the row's id. */
const set = (t: IndexTable, i: number, m: RowMutation) => t.set(i, m.key === OWN_ID ? { ...m, key: t.idAt(i) } : m);

/** What to do next to both tables (indices are taken modulo the row count). */
const op = fc.oneof(
  fc.record({ kind: fc.constant('row' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('queue' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('set' as const), at: fc.nat(), mutation }),
  fc.record({ kind: fc.constant('add' as const), n: fc.integer({ min: 0, max: 99 }), cells: fc.record(cells) }),
  fc.record({ kind: fc.constant('snapshot' as const) }),
  fc.record({ kind: fc.constant('release' as const) }),
  fc.record({ kind: fc.constant('column' as const), column: fc.constantFrom(...TEXT_COLUMNS) }),
  fc.record({ kind: fc.constant('each' as const), column: fc.constantFrom(...TEXT_COLUMNS) }),
  fc.record({ kind: fc.constant('timeColumn' as const), column: fc.constantFrom(...TIME_COLUMNS) }),
  fc.record({ kind: fc.constant('listRow' as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant('posted' as const),
    chunkRows: fc.integer({ min: 1, max: 9 }),
    writes: fc.array(fc.tuple(fc.nat(), mutation), { maxLength: 3 }),
  }),
  fc.record({ kind: fc.constant('times' as const) }),
  fc.record({ kind: fc.constant('hex' as const) }),
  fc.record({ kind: fc.constant('decodeAll' as const) }),
  fc.record({ kind: fc.constant('startDecode' as const) }),
  fc.record({ kind: fc.constant('lookup' as const), at: fc.nat(), probe: fc.oneof(newStyle, text) }),
);

let files = 0;
/** The rows written as this service writes them, in row groups of `groupRows`; the file's path and bytes. */
async function writeRows(rows: readonly IndexRow[], groupRows: number): Promise<{ file: string; bytes: Buffer }> {
  const source = IndexTable.fromRows(rows);
  const snapshot = source.snapshot();
  const bytes = Buffer.from(encodeColumns(snapshot.view(), groupRows));
  snapshot.release();
  const file = path.join(dir, `t${files++}.parquet`);
  await writeFile(file, bytes);
  return { file, bytes };
}

/**
 * The rows an encoding holds (encodings are compared by content: the Snappy compressor's hash table carries over
 * between calls, so equal pages may compress to different, equally valid, bytes).
 */
const rowsOf = async (bytes: Uint8Array): Promise<IndexRow[]> => [...(await decodeTable(bytes)).rows()];

/** A snapshot's rows as they were when it was taken, encoded. */
function encodeSnapshot(s: TableSnapshot): Buffer {
  const pieces: Uint8Array[] = [];
  runToEnd(new IndexEncoder().steps(s.view(), (piece) => void pieces.push(piece.slice()), s.changed));
  return Buffer.concat(pieces);
}

/**
 * A snapshot's rows as the encoder worker gets them (`posted` chunks of `chunkRows` rows, each readied a step at a
 * time by `prepare` and packed a step at a time, calling `between` after each step), encoded as the worker encodes
 * them.
 */
function encodePosted(s: TableSnapshot, chunkRows: number, between: () => void = () => {}): Buffer {
  const assembler = new ChunkAssembler(
    s.length,
    columnRecord(HEX_COLUMNS, (k) => HEX_SHAPES[k].digits / 2),
  );
  for (let start = 0; start < s.length; start += chunkRows) {
    const end = Math.min(start + chunkRows, s.length);
    while (!s.prepare(start, end)) between();
    const steps = s.posted(start, end);
    let step = steps.next();
    for (; step.done !== true; step = steps.next()) between();
    assembler.add(step.value);
  }
  const pieces: Uint8Array[] = [];
  runToEnd(new IndexEncoder().steps(assembler.result(), (piece) => void pieces.push(piece.slice())));
  return Buffer.concat(pieces);
}

const open = (file: string) => {
  const fd = openSync(file, 'r');
  return { fd, size: fstatSync(fd).size };
};

const closed = (fd: number) => {
  try {
    fstatSync(fd);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EBADF';
  }
};

/** The hot columns and the tallied `image_count` sum, read without decoding anything. */
const hot = (t: IndexTable) => ({
  ids: t.idSlice(0, t.length),
  flags: FLAG_COLUMNS.map((k) => [...t.flags[k].subarray(0, t.length)]),
  images: t.imageTotal(),
  uploaded: [...t.pdfUploadedAt.subarray(0, t.length)],
});

describe('a lazily decoded table reads and writes as the eager decode', () => {
  it('writes and appends at every pause of `decodeAll`, then chunks and whole columns, match the eager table', async () => {
    const write = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), at: fc.nat(), mutation }),
      fc.record({ kind: fc.constant('add' as const), n: fc.integer({ min: 0, max: 99 }), cells: fc.record(cells) }),
    );
    await fc.assert(
      fc.asyncProperty(
        table.filter((r) => r.length > 0),
        fc.integer({ min: 1, max: 7 }),
        fc.array(write, { minLength: 1, maxLength: 400 }),
        fc.tuple(fc.nat(), fc.nat()),
        async (rows, g, writes, [a, b]) => {
          const { file, bytes } = await writeRows(rows, g);
          const eager = await decodeTable(bytes);
          const { fd, size } = open(file);
          const lazy = await openTable(fd, size);
          let k = 0;
          await lazy.decodeAll(async () => {
            const w = writes[k++ % writes.length]!;
            if (w.kind === 'set') {
              set(lazy, w.at % lazy.length, w.mutation);
              set(eager, w.at % eager.length, w.mutation);
            } else {
              const id = `2502.${String(w.n).padStart(5, '0')}v1`;
              const row: IndexRow = { preprint_id: id, key: id, ...w.cells };
              expect(lazy.upsert(row)).toBe(eager.upsert(row));
            }
          });
          expect(lazy.partlyDecoded).toBe(false);
          expect(closed(fd)).toBe(true);
          // The rows as the encoder worker's chunks read them (the text still per row group), then whole columns.
          const snapshots = [lazy.snapshot(), eager.snapshot()] as const;
          expect(await rowsOf(encodePosted(snapshots[0], 1 + (a % 9)))).toEqual(
            await rowsOf(encodePosted(snapshots[1], 1 + (b % 9))),
          );
          for (const s of snapshots) s.release();
          for (const c of TEXT_COLUMNS) expect(lazy.text[c]).toEqual(eager.text[c]);
          expect([...lazy.rows()]).toEqual([...eager.rows()]);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('rows, hot columns, snapshots and encodings match through random reads and writes', async () => {
    await fc.assert(
      fc.asyncProperty(table, fc.integer({ min: 1, max: 7 }), fc.array(op, { maxLength: 25 }), async (rows, g, ops) => {
        const { file, bytes } = await writeRows(rows, g);
        const eager = await decodeTable(bytes);
        const { fd, size } = open(file);
        const lazy = await openTable(fd, size);
        expect(lazy.length).toBe(eager.length);
        expect(lazy.sortedRows).toBe(eager.sortedRows);
        expect(hot(lazy)).toEqual(hot(eager));
        // Only hot columns were read: a file of two groups or more still has cold ones to decode.
        if (rows.length > g) expect(lazy.partlyDecoded).toBe(true);
        const snapshots: [TableSnapshot, TableSnapshot][] = [];
        let background: Promise<void> | null = null;
        for (const o of ops) {
          const n = eager.length;
          if (o.kind === 'row' && n > 0) expect(lazy.row(o.at % n)).toEqual(eager.row(o.at % n));
          else if (o.kind === 'queue' && n > 0) {
            // Only part of the row's group decoded: later reads and writes of the row must not notice.
            const { preprint_id, key, yymm, pdf_uploaded_at } = eager.row(o.at % n);
            expect(lazy.queueRow(o.at % n)).toEqual({ preprint_id, key, yymm, pdf_uploaded_at });
          } else if (o.kind === 'set' && n > 0) {
            set(lazy, o.at % n, o.mutation);
            set(eager, o.at % n, o.mutation);
          } else if (o.kind === 'add') {
            const id = `2502.${String(o.n).padStart(5, '0')}v1`;
            const row: IndexRow = { preprint_id: id, key: id, ...o.cells };
            expect(lazy.upsert(row)).toBe(eager.upsert(row));
          } else if (o.kind === 'snapshot') snapshots.push([lazy.snapshot(), eager.snapshot()]);
          else if (o.kind === 'release') snapshots.shift()?.forEach((s) => s.release());
          else if (o.kind === 'column') expect(lazy.text[o.column]).toEqual(eager.text[o.column]);
          else if (o.kind === 'each') {
            // One column decoded ahead of the groups' other steps: later reads, writes and decodes must not notice.
            const cells = (t: IndexTable) => {
              const seen: [number, string][] = [];
              t.forEachText(o.column, (i, value) => seen.push([i, value]));
              return seen;
            };
            const expected = eager.text[o.column].flatMap((v, i): [number, string][] => (v === null ? [] : [[i, v]]));
            expect(cells(lazy)).toEqual(expected);
            expect(cells(eager)).toEqual(expected);
            const all: (string | null)[] = [];
            lazy.forEachCell(o.column, (i, value) => (all[i] = value));
            expect(all).toEqual(eager.text[o.column]);
          } else if (o.kind === 'timeColumn') {
            // One numeric column decoded ahead: the group's step 0, run later, must not reset it to its default.
            expect(lazy.timeColumn(o.column).subarray(0, n)).toEqual(eager.times[o.column].subarray(0, n));
          } else if (o.kind === 'listRow' && n > 0) {
            const { preprint_id, title, has_pdf, has_md, image_count, updated_at } = eager.row(o.at % n);
            const expected = { preprint_id, title, has_pdf, has_md, image_count, updated_at };
            expect(lazy.listRow(o.at % n)).toEqual(expected);
          } else if (o.kind === 'posted') {
            // A flush's chunks, with writes between the steps that ready them: rows as they were at the snapshot.
            const [a, b] = [lazy.snapshot(), eager.snapshot()];
            const expected = await rowsOf(encodeSnapshot(b));
            const writes = [...o.writes];
            const posted = encodePosted(a, o.chunkRows, () => {
              const w = writes.shift();
              if (w === undefined || n === 0) return;
              set(lazy, w[0] % n, w[1]);
              set(eager, w[0] % n, w[1]);
            });
            expect(await rowsOf(posted)).toEqual(expected);
            a.release();
            b.release();
          } else if (o.kind === 'times') {
            for (const k of TIME_COLUMNS) expect(lazy.times[k].subarray(0, n)).toEqual(eager.times[k].subarray(0, n));
          } else if (o.kind === 'hex') {
            for (const k of HEX_COLUMNS) {
              for (let i = 0; i < n; i++) expect(lazy.hex[k].get(i)).toBe(eager.hex[k].get(i));
            }
          } else if (o.kind === 'lookup') {
            const known = n > 0 ? eager.idAt(o.at % n) : o.probe;
            for (const id of [known, o.probe]) {
              expect(lazy.indexOf(id)).toBe(eager.indexOf(id));
              const paper = id.replace(/v\d+$/, '');
              expect(lazy.versionsOf(paper)).toEqual(eager.versionsOf(paper));
            }
          } else if (o.kind === 'startDecode') {
            // Runs a slice per turn from here on, between the next operations.
            background ??= lazy.decodeAll(() => new Promise((resolve) => setImmediate(resolve)));
          } else if (o.kind === 'decodeAll') {
            await lazy.decodeAll(() => Promise.resolve());
            expect(lazy.partlyDecoded).toBe(false);
          }
          expect(hot(lazy)).toEqual(hot(eager));
          if (background !== null) await new Promise((resolve) => setImmediate(resolve));
        }
        await background;
        // Snapshots taken across decodes and writes encode the rows as they were when taken.
        for (const [a, b] of snapshots) {
          expect(await rowsOf(encodeSnapshot(a))).toEqual(await rowsOf(encodeSnapshot(b)));
          expect(a.changed).toEqual(b.changed);
        }
        expect([...lazy.rows()]).toEqual([...eager.rows()]);
        // Nothing above read the id column whole: the ids stayed packed.
        expect(lazy.packingIds).toBe(true);
        expect(lazy.ids).toEqual(eager.ids);
        expect(await rowsOf(encodeTableSync(lazy))).toEqual(await rowsOf(encodeTableSync(eager)));
        expect(lazy.partlyDecoded).toBe(false);
        expect(closed(fd)).toBe(true);
      }),
      { numRuns: 80 },
    );
  }, 180_000);

  it('a column read ahead while a sliced decode is inside a step of the same group lets that step end first', async () => {
    const ids = Array.from({ length: 6 }, (_, n) => `2501.0000${n}v1`);
    const [cellsOf] = fc.sample(fc.tuple(...ids.map(rowOf)), { numRuns: 1, seed: 11 });
    const rows = cellsOf!.map((r, n) => ({ ...r, doi: `10.1000/${n}` }));
    const { file, bytes } = await writeRows(rows, 2);
    const eager = await decodeTable(bytes);
    const { fd, size } = open(file);
    const lazy = await openTable(fd, size);
    let pauses = 0;
    let resume = () => {};
    const decoding = lazy.decodeAll(
      () =>
        new Promise<void>((resolve) => {
          pauses++;
          resume = resolve;
        }),
    );
    // The decode read the first chunk of group 0 and waits before decoding it.
    expect(pauses).toBe(1);
    const seen: [number, string][] = [];
    lazy.forEachText('doi', (i, value) => seen.push([i, value]));
    expect(seen).toEqual(rows.map((r, i) => [i, r.doi]));
    for (let before = 0; before !== pauses;) {
      before = pauses;
      resume();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await decoding;
    expect(lazy.partlyDecoded).toBe(false);
    expect([...lazy.rows()]).toEqual([...eager.rows()]);
  });

  it('a write to a cold row is kept when its group is decoded later, and lookups find every row', async () => {
    const rows = await fc.sample(table, { numRuns: 1, seed: 7 });
    const list = rows[0]!.length > 0 ? rows[0]! : [(await fc.sample(rowOf('2501.00001v1'), 1))[0]!];
    const { file, bytes } = await writeRows(list, 2);
    const eager = await decodeTable(bytes);
    const opened = open(file);
    const lazy = await openTable(opened.fd, opened.size);
    const last = lazy.length - 1;
    lazy.set(last, { title: 'written before the decode', md_size_bytes: 12 });
    eager.set(last, { title: 'written before the decode', md_size_bytes: 12 });
    await lazy.decodeAll(() => Promise.resolve());
    expect(lazy.row(last).title).toBe('written before the decode');
    for (const r of eager.rows()) expect(lazy.row(lazy.indexOf(r.preprint_id)!)).toEqual(r);
  });

  it('the worker encoder takes a flush as of the call, and decodes nothing into the table of the groups still as the file has them', async () => {
    const n = 6_000; // three chunks of the worker encoder, in 12 row groups
    const odd = ['é', '\uffff', '😀', ''];
    const rows = Array.from({ length: n }, (_, k): IndexRow => {
      const id = `2501.${String(k).padStart(5, '0')}${odd[k % 4]}v1`;
      return {
        ...fc.sample(rowOf(id), { numRuns: 1, seed: k })[0]!,
        title: k % 3 === 0 ? null : `Τίτλος ${odd[k % 4]} ${k}`,
      };
    });
    const { file } = await writeRows(rows, 500);
    const { fd, size } = open(file);
    const lazy = await openTable(fd, size);
    const target = path.join(dir, `flush-${files++}.parquet`);
    const encoding = encodeTable(lazy, target, { inProcessMaxRows: 0 });
    lazy.set(4_321, { title: 'changed after the call', pdf_etag: null });
    lazy.upsert({ ...rows[0]!, preprint_id: '2502.00001v1', key: '2502.00001v1' });
    await encoding;
    expect([...(await decodeTable(await readFile(target))).rows()]).toEqual(rows);
    // Only the written row's group was decoded whole; the others were read from the file into the chunks alone.
    expect(lazy.partlyDecoded).toBe(true);
    expect(lazy.fileGroupsIn(0, n)).toHaveLength(11);
    for (const column of ['title', 'pdf_sha256', 'md_uploaded_at', 'image_count'] as const) {
      expect(lazy.inFile(0, column)).toBe(true);
    }
    expect(lazy.row(4_321).title).toBe('changed after the call');
  });

  it('a flush whose file read is cut short by a decode of every group (the file closed) reads those rows from the table', async () => {
    const rows = Array.from(
      { length: 40 },
      (_, k) => fc.sample(rowOf(`2501.${String(k).padStart(5, '0')}v1`), { numRuns: 1, seed: k })[0]!,
    );
    const { file, bytes } = await writeRows(rows, 8);
    const eager = await decodeTable(bytes);
    const { fd, size } = open(file);
    const lazy = await openTable(fd, size);
    const snapshot = lazy.snapshot();
    // The first file read has read its chunk and not decoded it yet.
    expect(snapshot.prepare(0, 40)).toBe(false);
    expect(snapshot.prepare(0, 40)).toBe(false);
    void lazy.hex; // decodes every group: the file is closed, and its read buffers freed
    expect(closed(fd)).toBe(true);
    expect(await rowsOf(encodePosted(snapshot, 16))).toEqual([...eager.rows()]);
    snapshot.release();
  });

  it('a write decodes the columns it writes, not its row group’s text', async () => {
    const rows = Array.from({ length: 6 }, (_, k) => ({
      ...fc.sample(rowOf(`2501.0000${k}v1`), { numRuns: 1, seed: k })[0]!,
      title: `title ${k}`,
    }));
    const { file } = await writeRows(rows, 2);
    const { fd, size } = open(file);
    const lazy = await openTable(fd, size);
    lazy.set(3, { has_md: true, md_uploaded_at: new Date(5), image_count: 7, doi: '10.1/x' });
    expect(lazy.inFile(1, 'title')).toBe(true);
    expect(lazy.inFile(1, 'doi')).toBe(false);
    expect(lazy.fileGroupsIn(0, 6)).toEqual([0, 1, 2]);
    expect(lazy.row(3)).toEqual({
      ...rows[3],
      has_md: true,
      md_uploaded_at: new Date(5),
      image_count: 7,
      doi: '10.1/x',
    });
    expect(lazy.fileGroupsIn(0, 6)).toEqual([0, 2]);
    lazy.release();
  });

  it('a file in another layout is decoded at once, and a corrupt one throws and closes its descriptor', async () => {
    const garbage = path.join(dir, 'garbage.parquet');
    await writeFile(garbage, 'garbage');
    const { fd, size } = open(garbage);
    await expect(openTable(fd, size)).rejects.toThrow(/too short/);
    expect(closed(fd)).toBe(true);

    const truncated = path.join(dir, 'truncated.parquet');
    const { bytes } = await writeRows((await fc.sample(table, { numRuns: 1, seed: 3 }))[0]!, 2);
    await writeFile(truncated, bytes.subarray(bytes.length - 200));
    const t = open(truncated);
    await expect(openTable(t.fd, t.size)).rejects.toThrow();
    expect(closed(t.fd)).toBe(true);
  });
});

describe('through the store', () => {
  it('a reload while the old lazy table is held, and the file replaced after the open, keep the old rows', async () => {
    const [before, after] = await fc.sample(
      table.filter((r) => r.length > 4),
      { numRuns: 2, seed: 11 },
    );
    const raw = path.join(dir, 'raw');
    const store = new LocalObjectStore(raw);
    const publish = async (rows: readonly IndexRow[], expected: string | null) =>
      store.writeIndexFile(
        await new TableEncoder().encode(IndexTable.fromRows(rows), await store.indexTempPath()),
        expected,
      );
    const first = await publish(before!, null);
    const reader = new StoreIndexPersistence(store, quiet);
    const old = (await reader.load(true))!;
    reader.accept(); // installed (as `PaperIndex` does)
    expect(old.length).toBe(before!.length);
    // Another writer replaces the file; the reader reloads a new table while the old one is still undecoded.
    await publish(after!, first);
    const fresh = await reader.reload();
    expect(fresh).not.toBe('unchanged');
    reader.accept();
    const expectedOld = [...IndexTable.fromRows(before!).rows()].sort((a, b) =>
      a.preprint_id < b.preprint_id ? -1 : 1,
    );
    const expectedNew = [...IndexTable.fromRows(after!).rows()].sort((a, b) =>
      a.preprint_id < b.preprint_id ? -1 : 1,
    );
    expect([...old.rows()]).toEqual(expectedOld);
    expect([...(fresh as IndexTable).rows()]).toEqual(expectedNew);
    expect(await reader.reload()).toBe('unchanged');
  });
});
