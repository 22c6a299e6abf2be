/**
 * Reads `index/papers.parquet` into an `IndexTable`, column chunk by column chunk. Files in the layout this
 * service writes (PLAIN pages, SNAPPY or uncompressed) are decoded straight from the page bytes — digests and
 * ETags never become strings; any other layout (dictionary pages, RLE booleans, other codecs…) is read through
 * hyparquet. Missing columns read as null (older writers). Throws on a corrupt file.
 *
 * `openTable` reads an open file by byte ranges: its footer and the hot columns at once, each other column chunk
 * when the table first needs its row group (`FileColdSource`), so a start reads ~7% of the file.
 */
import { closeSync, fstatSync, readSync, type Stats } from 'node:fs';
import { crc32 } from 'node:zlib';
import { parquetMetadata, parquetRead, type ColumnChunk, type FileMetaData } from 'hyparquet';
import { parquetHeader } from 'hyparquet/src/column.js';
import { readRleBitPackedHybrid } from 'hyparquet/src/encoding.js';
import {
  HEX_COLUMNS,
  HEX_SHAPES,
  INDEX_COLUMNS,
  SIZE_COLUMNS,
  TIME_COLUMNS,
  type ColumnSpec,
  type HexColumnName,
  type SizeColumn,
  type TextColumn,
  type TimeColumn,
} from './columns.js';
import { freeNow } from './free-now.js';
import type { PlainText } from './plain-text.js';
import { snappyUncompress } from './snappy.js';
import { ColdReadError, HOT_COLUMNS, IndexTable, TALLIED_COLUMNS, type ColdSource } from './table.js';

/** Room for rows added after the load before the typed arrays grow. */
const HEADROOM = 4096;

class NeedsGenericReader extends Error {}

const SPECS = new Map<string, ColumnSpec>(INDEX_COLUMNS.map((c) => [c.name, c]));

/** Awaited between column chunks, so a reload does not hold the event loop for the whole file. */
export type Yield = () => Promise<void>;
const noYield: Yield = () => Promise.resolve();

/**
 * Decodes the file `bytes`. With `consume`, the caller gives the bytes up: their memory is freed as soon as the
 * table is decoded (detached, not left to the next major GC — 460 MiB for a 2.6M-row index), and the caller must
 * not read them afterwards.
 */
export async function decodeTable(bytes: Uint8Array, pause: Yield = noYield, consume = false): Promise<IndexTable> {
  // No copy when the bytes are a whole buffer (as a file read gives).
  const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
  const file = (
    whole ? bytes.buffer : bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)
  ) as ArrayBuffer;
  try {
    return await decodeFile(file, pause);
  } finally {
    if (!whole || consume) freeNow(new Uint8Array(file));
  }
}

async function decodeFile(file: ArrayBuffer, pause: Yield): Promise<IndexTable> {
  const metadata = parquetMetadata(file);
  const rows = Number(metadata.num_rows);
  const fast = newTable(rows);
  try {
    await readFast(new Uint8Array(file), metadata, fast, pause);
    return finish(fast, metadata);
  } catch (err) {
    if (!(err instanceof NeedsGenericReader)) throw err;
  }
  const table = newTable(rows);
  await parquetRead({
    file,
    metadata,
    columns: metadata.schema.slice(1).flatMap((s) => (SPECS.has(s.name) ? [s.name] : [])),
    parsers: { timestampFromMilliseconds: (ms: bigint) => Number(ms) } as never,
    onChunk: ({ columnName, columnData, rowStart }) => {
      for (let k = 0; k < columnData.length; k++) {
        const v = columnData[k] as unknown;
        table.setCell(rowStart + k, columnName, typeof v === 'bigint' ? Number(v) : v);
      }
      if (columnName === 'preprint_id') {
        for (let k = 0; k < columnData.length; k++) table.ids[rowStart + k] = columnData[k] as string;
      }
    },
  });
  return finish(table, metadata);
}

function newTable(rows: number): IndexTable {
  const table = new IndexTable(rows + HEADROOM);
  table.allocate(rows);
  return table;
}

function finish(table: IndexTable, metadata: FileMetaData): IndexTable {
  const present = new Set(metadata.schema.slice(1).map((s) => s.name));
  if (!present.has('preprint_id')) throw new Error('index without preprint_id column');
  for (let i = 0; i < table.length; i++) {
    if (typeof table.ids[i] !== 'string') throw new Error('index row without preprint_id');
  }
  if (!present.has('updated_at')) table.raw.times.updated_at.fill(0, 0, table.length);
  // `key` equal to the id shares its string.
  const key = table.raw.text.key;
  for (let i = 0; i < table.length; i++) if (key[i] === table.ids[i]) key[i] = table.ids[i]!;
  table.indexRows();
  return table;
}

async function readFast(file: Uint8Array, metadata: FileMetaData, table: IndexTable, pause: Yield): Promise<void> {
  const optional = new Map(metadata.schema.slice(1).map((s) => [s.name, s.repetition_type !== 'REQUIRED']));
  const scratch = new Scratch();
  let rowStart = 0;
  for (const group of metadata.row_groups) {
    for (const chunk of group.columns) {
      const name = chunk.meta_data?.path_in_schema[0];
      const spec = name === undefined ? undefined : SPECS.get(name);
      if (spec === undefined) continue;
      const start = Number(chunk.meta_data!.data_page_offset);
      const bytes = file.subarray(start, start + Number(chunk.meta_data!.total_compressed_size));
      const rowEnd = rowStart + Number(group.num_rows);
      readChunk(bytes, { chunk, spec, optional: optional.get(spec.name) ?? true }, table, rowStart, rowEnd, scratch);
      await pause();
    }
    rowStart += Number(group.num_rows);
  }
}

/** The physical type this service writes for each column type (the fast path reads only these). */
const PHYSICAL_TYPE: Record<ColumnSpec['type'], string> = {
  STRING: 'BYTE_ARRAY',
  BOOLEAN: 'BOOLEAN',
  INT32: 'INT32',
  INT64: 'INT64',
  TIMESTAMP: 'INT64',
};

/** A column chunk to decode: where it is (its metadata), which column it holds, and whether that column is optional. */
interface ChunkColumn {
  readonly chunk: ColumnChunk;
  readonly spec: ColumnSpec;
  readonly optional: boolean;
}

/** Decodes one column chunk, `file` holding exactly its bytes, into rows `[rowStart, rowEnd)`. */
function readChunk(
  file: Uint8Array,
  column: ChunkColumn,
  target: Target,
  rowStart: number,
  rowEnd: number,
  scratch: Scratch,
): void {
  const steps = chunkSlices(() => file, column, target, rowStart, rowEnd, scratch, Infinity);
  while (!steps.next().done);
}

/**
 * Decodes one column chunk (its bytes from `read`, at the first step) into its row group's rows
 * `[rowStart, rowEnd)` — a page that would run past the chunk's bytes or the group's rows is a corrupt file (it
 * could loop for ever, or overwrite a neighbouring group's rows) — pausing (a `yield`)
 * after the read, after each page's decompression and after every `sliceRows` values: an asynchronous decode of a
 * row group holds the event loop a few milliseconds at a time.
 */
function* chunkSlices(
  read: () => Uint8Array,
  { chunk, spec, optional }: ChunkColumn,
  target: Target,
  rowStart: number,
  rowEnd: number,
  scratch: Scratch,
  sliceRows: number,
): Generator<void, void> {
  const meta = chunk.meta_data!;
  // Another physical type (e.g. `image_count` as INT64, pandas' default) is converted by the generic reader.
  if (meta.type !== PHYSICAL_TYPE[spec.type] || meta.path_in_schema.length !== 1) throw new NeedsGenericReader();
  if (meta.dictionary_page_offset !== undefined) throw new NeedsGenericReader();
  if (meta.codec !== 'SNAPPY' && meta.codec !== 'UNCOMPRESSED') throw new NeedsGenericReader();
  const file = read();
  if (sliceRows !== Infinity) yield;
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const end = file.byteLength;
  const reader = { view, offset: 0 };
  let row = rowStart;
  while (reader.offset < end) {
    const header = parquetHeader(reader);
    const size = header.compressed_page_size;
    if (!(size >= 0 && reader.offset + size <= end)) throw new Error('index page runs past its column chunk');
    const body = file.subarray(reader.offset, reader.offset + size);
    reader.offset += size;
    const v1 = header.data_page_header;
    const v2 = header.data_page_header_v2;
    if (header.type === 'INDEX_PAGE') continue;
    if (header.type === 'DICTIONARY_PAGE' || (v1 ?? v2)?.encoding !== 'PLAIN') throw new NeedsGenericReader();
    const n = (v1 ?? v2)!.num_values;
    if (!(n >= 0 && row + n <= rowEnd)) throw new Error('index page runs past its row group');
    const defined = scratch.defined(n);
    let page: Uint8Array;
    let at: number;
    if (v1) {
      page = inflate(body, header.uncompressed_page_size, meta.codec, scratch);
      at = 0;
      if (optional) {
        const r = { view: new DataView(page.buffer, page.byteOffset, page.byteLength), offset: 0 };
        readRleBitPackedHybrid(r, 1, defined);
        at = r.offset;
      }
    } else {
      const levels = v2!.definition_levels_byte_length + v2!.repetition_levels_byte_length;
      if (optional && v2!.definition_levels_byte_length > 0) {
        const r = { view: new DataView(body.buffer, body.byteOffset, body.byteLength), offset: 0 };
        readRleBitPackedHybrid(r, 1, defined, v2!.definition_levels_byte_length);
      }
      const rest = body.subarray(levels);
      page = v2!.is_compressed ? inflate(rest, header.uncompressed_page_size - levels, meta.codec, scratch) : rest;
      at = 0;
    }
    const cursor: Cursor = { at, bit: 0 };
    for (let from = 0; from < n; from += sliceRows) {
      if (sliceRows !== Infinity) yield;
      readValues(page, cursor, defined, from, Math.min(n, from + sliceRows), spec, target, row);
    }
    row += n;
  }
}

/**
 * One buffer for every uncompressed page of a decode, and one for its pages' definition levels: pages are read
 * synchronously and their values copied out (strings, packed digests), so a page of up to ~1 MiB (a digest column
 * of a row group) is not garbage 480 times, and a check of the whole file does not scatter thousands of small
 * buffers over the C heap (which keeps the freed ones resident).
 */
class Scratch {
  private bytes = new Uint8Array(0);
  private levels = new Uint8Array(0);

  take(size: number): Uint8Array {
    if (this.bytes.length < size) this.bytes = new Uint8Array(size);
    return this.bytes.subarray(0, size);
  }

  /** `n` definition levels, all 1 (every value defined) until read from the page. */
  defined(n: number): Uint8Array {
    if (this.levels.length < n) this.levels = new Uint8Array(n);
    return this.levels.subarray(0, n).fill(1);
  }

  /** Frees the buffers at once (a process serving requests does not wait for a collection to get them back). */
  free(): void {
    freeNow(this.bytes, this.levels);
    this.bytes = new Uint8Array(0);
    this.levels = new Uint8Array(0);
  }
}

function inflate(body: Uint8Array, size: number, codec: string, scratch: Scratch): Uint8Array {
  if (codec === 'UNCOMPRESSED') return body;
  const out = scratch.take(size);
  snappyUncompress(body, out);
  return out;
}

/**
 * Where a walk over a column chunk's values goes instead of a table: the values are checked and skipped (the
 * file's check decodes nothing it keeps: no strings, no scratch table), `image_count` values summed.
 */
class Tally {
  images = 0;
}

/**
 * Where a read of a string column chunk copies its values as the page holds them (`PlainText`: length and bytes),
 * a page's run of values at a time, instead of making strings.
 */
class TextSink {
  private bytes: Uint8Array;
  private used = 0;
  /** Rows `[0, filled)` have their offsets. */
  private filled = 0;
  private readonly offsets: Int32Array;
  private readonly nulls: Uint8Array;

  constructor(
    private readonly rows: number,
    room: number,
  ) {
    this.bytes = new Uint8Array(room);
    this.offsets = new Int32Array(rows + 1);
    this.nulls = new Uint8Array(rows).fill(1);
  }

  /** Copies the values `[from, to)` of a page (rows `row + from…`) from the page's `cursor` on. */
  take(page: Uint8Array, view: DataView, cursor: Cursor, defined: Uint8Array, from: number, to: number, row: number) {
    const first = cursor.at;
    let at = first;
    for (let i = from; i < to; i++) {
      const r = row + i;
      if (defined[i]) {
        // A length past the page's end reads the bytes up to it, as a decode into strings does.
        at = Math.min(page.length, at + 4 + view.getUint32(at, true));
        this.nulls[r] = 0;
      }
      this.offsets[r + 1] = this.used + (at - first);
    }
    if (this.used + (at - first) > this.bytes.length) {
      const bytes = new Uint8Array(Math.max(this.used + (at - first), this.bytes.length * 2));
      bytes.set(this.bytes.subarray(0, this.used));
      freeNow(this.bytes);
      this.bytes = bytes;
    }
    this.bytes.set(page.subarray(first, at), this.used);
    this.used += at - first;
    this.filled = row + to;
    cursor.at = at;
  }

  /** The values read (rows no page reached are null). */
  result(): PlainText {
    this.offsets.fill(this.used, this.filled + 1);
    return { bytes: this.bytes.subarray(0, this.used), offsets: this.offsets, nulls: this.nulls };
  }
}

/** What a column chunk's values are read into. */
type Target = IndexTable | Tally | TextSink;

/** Where the next value of a page is: its byte (`at`), and for booleans its bit among the defined values. */
interface Cursor {
  at: number;
  bit: number;
}

/**
 * Decodes the PLAIN values `[from, to)` of one page into rows `row + from…` of `target` (or walks them, into a
 * `Tally`, or copies them, into a `TextSink`), from the page's `cursor` on.
 */
function readValues(
  page: Uint8Array,
  cursor: Cursor,
  defined: Uint8Array,
  from: number,
  to: number,
  spec: ColumnSpec,
  target: Target,
  row: number,
): void {
  const view = new DataView(page.buffer, page.byteOffset, page.byteLength);
  if (target instanceof Tally) {
    walkValues(view, cursor, defined, from, to, spec, target);
    return;
  }
  if (target instanceof TextSink) {
    target.take(page, view, cursor, defined, from, to, row);
    return;
  }
  const table = target;
  const name = spec.name;
  let at = cursor.at;
  switch (spec.type) {
    case 'BOOLEAN': {
      const out = table.raw.flags[name as 'has_pdf'];
      let bit = cursor.bit;
      for (let i = from; i < to; i++) {
        if (!defined[i]) continue;
        out[row + i] = (page[at + (bit >> 3)]! >> (bit & 7)) & 1;
        bit++;
      }
      cursor.bit = bit;
      cursor.at = at;
      return;
    }
    case 'INT32':
      for (let i = from; i < to; i++) {
        if (!defined[i]) continue;
        table.raw.imageCount[row + i] = view.getInt32(at, true);
        at += 4;
      }
      cursor.at = at;
      return;
    case 'INT64':
    case 'TIMESTAMP': {
      const raw = table.raw;
      const out = spec.type === 'INT64' ? raw.sizes[name as 'pdf_size_bytes'] : raw.times[name as 'updated_at'];
      for (let i = from; i < to; i++) {
        if (!defined[i]) continue;
        out[row + i] = view.getInt32(at + 4, true) * 4294967296 + view.getUint32(at, true);
        at += 8;
      }
      cursor.at = at;
      return;
    }
    case 'STRING': {
      const buf = Buffer.from(page.buffer, page.byteOffset, page.byteLength);
      const text = (s: number, e: number) => buf.toString('utf8', s, e);
      if (name in HEX_SHAPES) {
        const col = table.raw.hex[name as HexColumnName];
        for (let i = from; i < to; i++) {
          if (!defined[i]) continue;
          const len = view.getUint32(at, true);
          const s = at + 4;
          col.setBytes(row + i, buf, s, s + len);
          at = s + len;
        }
        cursor.at = at;
        return;
      }
      if (name === 'preprint_id' && table.packingIds) {
        for (let i = from; i < to; i++) {
          if (!defined[i]) continue;
          const len = view.getUint32(at, true);
          table.packId(row + i, page, at + 4, at + 4 + len);
          at += 4 + len;
        }
        cursor.at = at;
        return;
      }
      if (name === 'key' && table.packingIds) {
        // A key equal to its row's packed id (the usual case) is kept as a mark, not made a string (`setKeyToId`).
        table.eachIdBytes(row + from, row + to, (r, id, idLength) => {
          if (!defined[r - row]) return;
          const len = view.getUint32(at, true);
          const s = at + 4;
          at = s + len;
          if (len === idLength && buf.compare(id, 0, len, s, at) === 0) table.setKeyToId(r);
          else table.setText(r, 'key', text(s, at));
        });
        cursor.at = at;
        return;
      }
      const ids = table.packingIds ? null : table.ids;
      // A value equal to the one before (few-valued columns, in id order) is not decoded again.
      let last: string | null = null;
      let lastAt = 0;
      let lastLen = -1;
      for (let i = from; i < to; i++) {
        if (!defined[i]) continue;
        const len = view.getUint32(at, true);
        const s = at + 4;
        at = s + len;
        let value: string;
        if (len === lastLen && sameBytes(page, lastAt, s, len)) value = last!;
        else {
          value = text(s, s + len);
          last = value;
          lastAt = s;
          lastLen = len;
        }
        if (ids === null) {
          if (name !== 'preprint_id') table.setText(row + i, name as TextColumn, value);
        } else if (name === 'preprint_id') ids[row + i] = value;
        else if (name === 'key') table.setText(row + i, 'key', value === ids[row + i] ? ids[row + i]! : value);
        else table.setText(row + i, name as TextColumn, value);
      }
      cursor.at = at;
      return;
    }
  }
}

/**
 * Skips the PLAIN values `[from, to)` of one page as `readValues` reads them, with the same reads of the page (so a
 * page it cannot decode fails here too), summing `image_count` values into `tally`.
 */
function walkValues(
  view: DataView,
  cursor: Cursor,
  defined: Uint8Array,
  from: number,
  to: number,
  spec: ColumnSpec,
  tally: Tally,
): void {
  let at = cursor.at;
  let count = 0;
  // A level is "defined" when not 0, as `readValues` reads it (a corrupt RLE run may hold 2…255 at bit width 1).
  for (let i = from; i < to; i++) if (defined[i] !== 0) count++;
  switch (spec.type) {
    case 'BOOLEAN':
      cursor.bit += count;
      return;
    case 'INT32':
      for (let k = 0; k < count; k++, at += 4) tally.images += view.getInt32(at, true);
      break;
    case 'INT64':
    case 'TIMESTAMP':
      for (let k = 0; k < count; k++, at += 8) view.getBigInt64(at, true);
      break;
    case 'STRING':
      for (let k = 0; k < count; k++) at += 4 + view.getUint32(at, true);
      break;
  }
  cursor.at = at;
}

/** Whether `bytes[a, a + length)` and `bytes[b, b + length)` are equal. */
function sameBytes(bytes: Uint8Array, a: number, b: number, length: number): boolean {
  for (let k = 0; k < length; k++) if (bytes[a + k] !== bytes[b + k]) return false;
  return true;
}

/** Encodings of the pages this reader decodes itself (values PLAIN, levels RLE / bit-packed). */
const OWN_ENCODINGS = new Set(['PLAIN', 'RLE', 'BIT_PACKED']);

/** Reads `into.length` bytes at `position` of `fd` (blocking). */
function readAt(fd: number, into: Uint8Array, position: number): void {
  for (let done = 0; done < into.length;) {
    const n = readSync(fd, into, done, into.length - done, position + done);
    if (n === 0) throw new Error('index file shorter than its footer says');
    done += n;
  }
}

/** The file's footer, read from its end: parsed, and its bytes (the file's last `tail.length` bytes). */
function readFooter(fd: number, size: number): { metadata: FileMetaData; tail: Uint8Array } {
  if (size < 8) return { metadata: parquetMetadata(new ArrayBuffer(size)), tail: new Uint8Array(0) }; // throws
  const last = new Uint8Array(8);
  readAt(fd, last, size - 8);
  const length = new DataView(last.buffer).getUint32(0, true);
  const tail = new Uint8Array(Math.min(size, length + 8));
  readAt(fd, tail, size - tail.length);
  return { metadata: parquetMetadata(tail.buffer), tail };
}

/** The cold columns whose cells a decode writes only where the chunk defines a value: the rest keep a default. */
const DEFAULTED_COLUMNS: readonly ColumnSpec['name'][] = [
  'image_count',
  ...SIZE_COLUMNS,
  ...TIME_COLUMNS.filter((c) => !HOT_COLUMNS.has(c)),
  ...HEX_COLUMNS,
];

/** Sets the default of cold column `column` in rows `[from, to)`: what a null cell reads as (0 images; no size, time or digest). */
function fillDefault(table: IndexTable, column: ColumnSpec['name'], from: number, to: number): void {
  const raw = table.raw;
  if (column === 'image_count') raw.imageCount.fill(0, from, to);
  else if (column in raw.sizes) raw.sizes[column as SizeColumn].fill(NaN, from, to);
  else if (column in raw.times && !HOT_COLUMNS.has(column)) raw.times[column as TimeColumn].fill(NaN, from, to);
  else if (column in raw.hex) raw.hex[column as HexColumnName].state.fill(0, from, to);
}

/** One cold column chunk: where its bytes are in the file, and how to decode them. */
interface ColdChunk extends ChunkColumn {
  readonly start: number;
  readonly length: number;
}

/** The column chunks of a file in this service's layout, per row group; `null` for any other layout. */
function ownLayout(metadata: FileMetaData, size: number): ColumnChunkPlan | null {
  const optional = new Map(metadata.schema.slice(1).map((s) => [s.name, s.repetition_type !== 'REQUIRED']));
  const groupStarts = [0];
  let idBytes = 0;
  const hot: ColdChunk[][] = [];
  const cold: ColdChunk[][] = [];
  for (const group of metadata.row_groups) {
    const hotChunks: ColdChunk[] = [];
    const coldChunks: ColdChunk[] = [];
    const talliedChunks: ColdChunk[] = [];
    for (const chunk of group.columns) {
      const meta = chunk.meta_data;
      const spec = meta === undefined ? undefined : SPECS.get(meta.path_in_schema[0]!);
      if (meta === undefined || spec === undefined) continue;
      // Every chunk is checked here, cold ones too: a file the fast path cannot decode is read whole, at the open.
      if (meta.type !== PHYSICAL_TYPE[spec.type] || meta.path_in_schema.length !== 1) return null;
      if (meta.dictionary_page_offset !== undefined) return null;
      if (meta.codec !== 'SNAPPY' && meta.codec !== 'UNCOMPRESSED') return null;
      if (!meta.encodings.every((e) => OWN_ENCODINGS.has(e))) return null;
      const start = Number(meta.data_page_offset);
      const length = Number(meta.total_compressed_size);
      if (!(start >= 4 && length >= 0 && start + length <= size - 8))
        throw new Error('index column chunk out of the file');
      const planned = { chunk, spec, optional: optional.get(spec.name) ?? true, start, length };
      // Room for the packed ids: their pages' size is an upper bound (it counts the lengths and levels too).
      if (spec.name === 'preprint_id') idBytes += Number(meta.total_uncompressed_size);
      (HOT_COLUMNS.has(spec.name) ? hotChunks : coldChunks).push(planned);
      if (TALLIED_COLUMNS.has(spec.name)) talliedChunks.push(planned);
    }
    hot.push([...hotChunks, ...talliedChunks]);
    cold.push(coldChunks);
    groupStarts.push(groupStarts.at(-1)! + Number(group.num_rows));
  }
  if (groupStarts.at(-1) !== Number(metadata.num_rows)) return null;
  return { groupStarts, hot, cold, present: new Set(optional.keys()), idBytes };
}

interface ColumnChunkPlan {
  readonly groupStarts: readonly number[];
  /** Per row group, the chunks read at the open: the hot columns' and the tallied ones' (also cold). */
  readonly hot: readonly (readonly ColdChunk[])[];
  readonly cold: readonly (readonly ColdChunk[])[];
  readonly present: ReadonlySet<string>;
  /** An upper bound of the ids' UTF-8 bytes. */
  readonly idBytes: number;
}

/** Reads a chunk's bytes from the file into a buffer kept between reads (the values are copied out). */
class ChunkReader {
  private buffer = new Uint8Array(0);
  readonly scratch = new Scratch();

  constructor(private readonly fd: number) {}

  read(c: ColdChunk): Uint8Array {
    if (this.buffer.length < c.length) this.buffer = new Uint8Array(c.length);
    const bytes = this.buffer.subarray(0, c.length);
    readAt(this.fd, bytes, c.start);
    return bytes;
  }

  free(): void {
    freeNow(this.buffer);
    this.buffer = new Uint8Array(0);
    this.scratch.free();
  }
}

/** Values decoded per pause in a cold column chunk: ~1–3 ms of strings or digests. */
const SLICE_ROWS = 8_192;
/**
 * Values read per pause by a flush (`typedInto`, `plainText`): its first reads run before the JIT has compiled the
 * decoder (8,192 digests then took 36 ms), while the encoder worker holds the other core.
 */
const FLUSH_SLICE_ROWS = 2_048;

/** A cold column chunk being decoded: its own buffers, so other groups can be decoded meanwhile. */
interface PendingChunk {
  readonly step: number;
  readonly slices: Generator<void, void>;
  readonly reader: ChunkReader;
}

/**
 * What identifies the bytes under a descriptor: a rewrite in place (`cp` over the file, `rsync --inplace`, even one
 * that sets the old mtime back) moves it. The ctime counts only while the file has a name: the unlink of a file
 * replaced by a rename (every write of the index) changes its ctime, not its bytes.
 */
function sameFile(opened: Stats, now: Stats): boolean {
  return sameContentStats(opened, now) && (now.nlink === 0 || now.ctimeMs === opened.ctimeMs);
}

/** Same inode, size and mtime: only the ctime can tell a rewrite in place from a chmod, chown or hard link. */
function sameContentStats(opened: Stats, now: Stats): boolean {
  return now.ino === opened.ino && now.size === opened.size && now.mtimeMs === opened.mtimeMs;
}

/**
 * The cold columns of an open file, decoded a column chunk (of one row group) per step, each in slices. It owns
 * the descriptor: closed once, when the table has decoded everything, when it is released or fails, or when the
 * open fails. Before and after each read it checks (`fstat`) that the file is still the one the hot columns came
 * from.
 */
class FileColdSource implements ColdSource {
  private closed = false;
  /** By row group: the chunk whose slices are under way. */
  private readonly pending = new Map<number, PendingChunk>();
  /** The file as opened (or as last found unchanged after a metadata-only change). */
  private opened: Stats;
  /** CRC-32 of the hot chunks' bytes as `readHot` read them. */
  private hotCrc = 0;
  /** The buffers of `plainText` and `typedInto` (one read at a time), kept until the file closes. */
  private textReader: ChunkReader | null = null;

  constructor(
    private readonly fd: number,
    private readonly plan: ColumnChunkPlan,
    /** The footer's bytes as read at the open (the last bytes of the file's `size`). */
    private readonly footer: Uint8Array,
    private readonly size: number,
  ) {
    this.opened = fstatSync(fd);
  }

  /** Throws a `ColdReadError` (`fileChanged`) when the file changed since the open. */
  unchanged(): void {
    if (this.closed) throw new ColdReadError('index file already closed');
    const now = fstatSync(this.fd);
    if (sameFile(this.opened, now)) return;
    // Only the ctime moved (chmod, chown, a hard link, an xattr): the footer (every chunk's offset and size) and the
    // hot chunks still as read at the open mean the same index — a rewrite in place of a same-sized file that set
    // the mtime back differs there; the new stats are the baseline from here on.
    if (sameContentStats(this.opened, now) && this.footerUnchanged() && this.hotUnchanged()) {
      this.opened = now;
      return;
    }
    throw new ColdReadError('index file changed since it was opened (rewritten in place)', true);
  }

  private footerUnchanged(): boolean {
    const now = new Uint8Array(this.footer.length);
    readAt(this.fd, now, this.size - now.length);
    return Buffer.from(now.buffer).equals(this.footer);
  }

  private hotUnchanged(): boolean {
    const reader = new ChunkReader(this.fd);
    try {
      let crc = 0;
      for (const chunks of this.plan.hot) for (const chunk of chunks) crc = crc32(reader.read(chunk), crc);
      return crc === this.hotCrc;
    } finally {
      reader.free();
    }
  }

  /** Reads a cold chunk's bytes, checking that the file is unchanged before and after. */
  private readCold(reader: ChunkReader, chunk: ColdChunk): Uint8Array {
    this.unchanged();
    const bytes = reader.read(chunk);
    this.unchanged();
    return bytes;
  }

  get groupStarts(): readonly number[] {
    return this.plan.groupStarts;
  }

  steps(group: number): number {
    return Math.max(1, this.plan.cold[group]!.length);
  }

  stepOf(group: number, column: ColumnSpec['name']): number {
    return this.plan.cold[group]!.findIndex((c) => c.spec.name === column);
  }

  step(table: IndexTable, group: number, step: number): boolean {
    if (this.closed) throw new ColdReadError('index file already closed');
    let pending = this.pending.get(group);
    if (pending === undefined || pending.step !== step) {
      if (pending !== undefined) throw new Error(`index group ${group}: step ${step} while ${pending.step} runs`);
      const from = this.plan.groupStarts[group]!;
      const to = this.plan.groupStarts[group + 1]!;
      // Every cold cell of the group gets its value from its chunk, over the default its step sets first, or, in a
      // column without a chunk in the group, the default step 0 sets (text cells start null): each step writes its
      // own column only, so a step can run before the steps ahead of it (`IndexTable.forEachText`).
      const chunks = this.plan.cold[group]!;
      if (step === 0) {
        for (const c of DEFAULTED_COLUMNS) if (!chunks.some((k) => k.spec.name === c)) fillDefault(table, c, from, to);
        if (!this.plan.present.has('updated_at')) table.raw.times.updated_at.fill(0, from, to);
      }
      const chunk = chunks[step];
      if (chunk === undefined) return true;
      fillDefault(table, chunk.spec.name, from, to);
      const reader = new ChunkReader(this.fd);
      const slices = chunkSlices(
        () => this.readCold(reader, chunk),
        chunk,
        table,
        from,
        to,
        reader.scratch,
        SLICE_ROWS,
      );
      pending = { step, slices, reader };
      this.pending.set(group, pending);
    }
    let done = true;
    try {
      done = pending.slices.next().done === true;
    } catch (err) {
      if (err instanceof NeedsGenericReader) {
        throw new Error(`index column ${this.plan.cold[group]![step]!.spec.name}: unsupported page`);
      }
      throw err;
    } finally {
      // A failed or finished chunk gives its buffers (~9 MiB for 131,072 digests) back at once.
      if (done) {
        this.pending.delete(group);
        pending.reader.free();
      }
    }
    return done;
  }

  *typedInto(group: number, column: ColumnSpec['name'], into: IndexTable): Generator<void, void> {
    if (this.closed) throw new ColdReadError('index file already closed');
    const rows = this.plan.groupStarts[group + 1]! - this.plan.groupStarts[group]!;
    fillDefault(into, column, 0, rows);
    if (column === 'updated_at' && !this.plan.present.has('updated_at')) into.raw.times.updated_at.fill(0, 0, rows);
    const chunk = this.plan.cold[group]!.find((c) => c.spec.name === column);
    if (chunk === undefined) return;
    yield* this.flushSlices(chunk, into, rows);
  }

  *plainText(group: number, column: TextColumn): Generator<void, PlainText | null> {
    if (this.closed) throw new ColdReadError('index file already closed');
    const chunk = this.plan.cold[group]!.find((c) => c.spec.name === column);
    if (chunk === undefined) return null;
    const rows = this.plan.groupStarts[group + 1]! - this.plan.groupStarts[group]!;
    const sink = new TextSink(rows, Number(chunk.chunk.meta_data!.total_uncompressed_size));
    yield* this.flushSlices(chunk, sink, rows);
    return sink.result();
  }

  /** A flush's read of one cold chunk into `target` (rows `[0, rows)`): the file read, then a slice per `next()`. */
  private *flushSlices(chunk: ColdChunk, target: Target, rows: number): Generator<void, void> {
    const reader = (this.textReader ??= new ChunkReader(this.fd));
    const read = () => this.readCold(reader, chunk);
    const slices = chunkSlices(read, chunk, target, 0, rows, reader.scratch, FLUSH_SLICE_ROWS);
    try {
      while (slices.next().done !== true) {
        yield;
        // Closed meanwhile (released, failed, or every group decoded): the buffers it decodes from are freed.
        if (this.closed) throw new ColdReadError('index file already closed');
      }
    } catch (err) {
      if (err instanceof NeedsGenericReader) throw new Error(`index column ${chunk.spec.name}: unsupported page`);
      throw err;
    }
  }

  *check(group: number): Generator<void, void> {
    const rows = this.plan.groupStarts[group + 1]! - this.plan.groupStarts[group]!;
    const tally = new Tally();
    const reader = new ChunkReader(this.fd);
    try {
      for (const chunk of this.plan.cold[group]!) {
        try {
          yield* chunkSlices(() => this.readCold(reader, chunk), chunk, tally, 0, rows, reader.scratch, SLICE_ROWS);
        } catch (err) {
          if (err instanceof NeedsGenericReader) throw new Error(`index column ${chunk.spec.name}: unsupported page`);
          throw err;
        }
      }
    } finally {
      reader.free();
    }
  }

  /** Decodes the hot columns into `table` and sums the tallied ones, a column chunk per `pause`. */
  async readHot(table: IndexTable, pause: Yield): Promise<void> {
    const reader = new ChunkReader(this.fd);
    const tally = new Tally();
    for (let g = 0; g < this.plan.hot.length; g++) {
      for (const chunk of this.plan.hot[g]!) {
        const bytes = reader.read(chunk);
        this.hotCrc = crc32(bytes, this.hotCrc);
        readChunk(
          bytes,
          chunk,
          TALLIED_COLUMNS.has(chunk.spec.name) ? tally : table,
          this.plan.groupStarts[g]!,
          this.plan.groupStarts[g + 1]!,
          reader.scratch,
        );
        await pause();
      }
    }
    reader.free();
    table.fileImages(tally.images);
    // Hot columns read from one file and cold ones from another would mix two indexes.
    if (!this.closed) this.unchanged();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const pending of this.pending.values()) pending.reader.free();
    this.pending.clear();
    this.textReader?.free();
    this.textReader = null;
    closeSync(this.fd);
  }
}

/**
 * Opens the index file `fd` (`size` bytes), which it owns from the call on (closed on failure, or by the table):
 * the hot columns are decoded now, the others on first use (`IndexTable.opened`). A file in another layout is read
 * whole and decoded at once. Throws on a corrupt file.
 */
export async function openTable(fd: number, size: number, pause: Yield = noYield): Promise<IndexTable> {
  let source: FileColdSource | null = null;
  let handedOver = false;
  try {
    const { metadata, tail } = readFooter(fd, size);
    const plan = ownLayout(metadata, size);
    if (plan !== null && plan.present.has('preprint_id')) {
      source = new FileColdSource(fd, plan, tail, size);
      const table = IndexTable.opened(plan.groupStarts.at(-1)!, source, HEADROOM, plan.idBytes);
      try {
        await source.readHot(table, pause);
        table.sealIds();
        table.indexRows();
        handedOver = true;
        return table;
      } catch (err) {
        if (!(err instanceof NeedsGenericReader)) throw err;
      }
    }
    const bytes = new Uint8Array(size);
    readAt(fd, bytes, 0);
    return await decodeTable(bytes, pause, true);
  } finally {
    if (!handedOver) {
      if (source !== null) source.close();
      else closeSync(fd);
    }
  }
}
