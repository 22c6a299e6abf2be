/**
 * Reads `index/papers.parquet` into an `IndexTable`, column chunk by column chunk. Files in the layout this
 * service writes (PLAIN pages, SNAPPY or uncompressed) are decoded straight from the page bytes — digests and
 * ETags never become strings; any other layout (dictionary pages, RLE booleans, other codecs…) is read through
 * hyparquet. Missing columns read as null (older writers). Throws on a corrupt file.
 */
import { parquetMetadata, parquetRead, type ColumnChunk, type FileMetaData } from 'hyparquet';
import { parquetHeader } from 'hyparquet/src/column.js';
import { readRleBitPackedHybrid } from 'hyparquet/src/encoding.js';
import { HEX_SHAPES, INDEX_COLUMNS, type ColumnSpec, type HexColumnName, type TextColumn } from './columns.js';
import { snappyUncompress } from './snappy.js';
import { IndexTable } from './table.js';

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
    if (!whole || consume) (file as Detachable).transfer(0);
  }
}

/** `ArrayBuffer.prototype.transfer` (ES2024, in Node 24; the project's `lib` is ES2023). */
type Detachable = ArrayBuffer & { transfer(length: number): ArrayBuffer };

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
  if (!present.has('updated_at')) table.times.updated_at.fill(0, 0, table.length);
  // `key` equal to the id shares its string.
  const key = table.text.key;
  for (let i = 0; i < table.length; i++) if (key[i] === table.ids[i]) key[i] = table.ids[i]!;
  table.indexRows();
  return table;
}

async function readFast(file: Uint8Array, metadata: FileMetaData, table: IndexTable, pause: Yield): Promise<void> {
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const optional = new Map(metadata.schema.slice(1).map((s) => [s.name, s.repetition_type !== 'REQUIRED']));
  const scratch = new Scratch();
  let rowStart = 0;
  for (const group of metadata.row_groups) {
    for (const chunk of group.columns) {
      const name = chunk.meta_data?.path_in_schema[0];
      const spec = name === undefined ? undefined : SPECS.get(name);
      if (spec === undefined) continue;
      readChunk(file, view, chunk, spec, optional.get(spec.name) ?? true, table, rowStart, scratch);
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

function readChunk(
  file: Uint8Array,
  view: DataView,
  chunk: ColumnChunk,
  spec: ColumnSpec,
  optional: boolean,
  table: IndexTable,
  rowStart: number,
  scratch: Scratch,
): void {
  const meta = chunk.meta_data!;
  // Another physical type (e.g. `image_count` as INT64, pandas' default) is converted by the generic reader.
  if (meta.type !== PHYSICAL_TYPE[spec.type] || meta.path_in_schema.length !== 1) throw new NeedsGenericReader();
  if (meta.dictionary_page_offset !== undefined) throw new NeedsGenericReader();
  if (meta.codec !== 'SNAPPY' && meta.codec !== 'UNCOMPRESSED') throw new NeedsGenericReader();
  const start = Number(meta.data_page_offset);
  const end = start + Number(meta.total_compressed_size);
  const reader = { view, offset: start };
  let row = rowStart;
  while (reader.offset < end) {
    const header = parquetHeader(reader);
    const body = file.subarray(reader.offset, reader.offset + header.compressed_page_size);
    reader.offset += header.compressed_page_size;
    const v1 = header.data_page_header;
    const v2 = header.data_page_header_v2;
    if (header.type === 'INDEX_PAGE') continue;
    if (header.type === 'DICTIONARY_PAGE' || (v1 ?? v2)?.encoding !== 'PLAIN') throw new NeedsGenericReader();
    const n = (v1 ?? v2)!.num_values;
    const defined = new Uint8Array(n).fill(1);
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
    readValues(page, at, defined, n, spec, table, row);
    row += n;
  }
}

/**
 * One buffer for every uncompressed page of a decode: pages are read synchronously and their values copied out
 * (strings, packed digests), so a page of up to ~9 MiB (a digest column of a row group) is not garbage 480 times.
 */
class Scratch {
  private bytes = new Uint8Array(0);

  take(size: number): Uint8Array {
    if (this.bytes.length < size) this.bytes = new Uint8Array(size);
    return this.bytes.subarray(0, size);
  }
}

function inflate(body: Uint8Array, size: number, codec: string, scratch: Scratch): Uint8Array {
  if (codec === 'UNCOMPRESSED') return body;
  const out = scratch.take(size);
  snappyUncompress(body, out);
  return out;
}

/** Decodes the PLAIN values of one page into rows `row…row + n`. */
function readValues(
  page: Uint8Array,
  at: number,
  defined: Uint8Array,
  n: number,
  spec: ColumnSpec,
  table: IndexTable,
  row: number,
): void {
  const view = new DataView(page.buffer, page.byteOffset, page.byteLength);
  const name = spec.name;
  switch (spec.type) {
    case 'BOOLEAN': {
      const out = table.flags[name as 'has_pdf'];
      let bit = 0;
      for (let i = 0; i < n; i++) {
        if (!defined[i]) continue;
        out[row + i] = (page[at + (bit >> 3)]! >> (bit & 7)) & 1;
        bit++;
      }
      return;
    }
    case 'INT32':
      for (let i = 0; i < n; i++) {
        if (!defined[i]) continue;
        table.imageCount[row + i] = view.getInt32(at, true);
        at += 4;
      }
      return;
    case 'INT64':
    case 'TIMESTAMP': {
      const out = spec.type === 'INT64' ? table.sizes[name as 'pdf_size_bytes'] : table.times[name as 'updated_at'];
      for (let i = 0; i < n; i++) {
        if (!defined[i]) continue;
        out[row + i] = view.getInt32(at + 4, true) * 4294967296 + view.getUint32(at, true);
        at += 8;
      }
      return;
    }
    case 'STRING': {
      const buf = Buffer.from(page.buffer, page.byteOffset, page.byteLength);
      const text = (s: number, e: number) => buf.toString('utf8', s, e);
      if (name in HEX_SHAPES) {
        const col = table.hex[name as HexColumnName];
        for (let i = 0; i < n; i++) {
          if (!defined[i]) continue;
          const len = view.getUint32(at, true);
          const s = at + 4;
          col.setBytes(row + i, page, s, s + len, () => text(s, s + len));
          at = s + len;
        }
        return;
      }
      const ids = table.ids;
      for (let i = 0; i < n; i++) {
        if (!defined[i]) continue;
        const len = view.getUint32(at, true);
        const value = text(at + 4, at + 4 + len);
        at += 4 + len;
        if (name === 'preprint_id') ids[row + i] = value;
        else if (name === 'key') table.text.key[row + i] = value === ids[row + i] ? ids[row + i]! : value;
        else table.setText(row + i, name as TextColumn, value);
      }
      return;
    }
  }
}
