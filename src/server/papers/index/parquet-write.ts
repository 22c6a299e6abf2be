/**
 * Writes `index/papers.parquet` (§4.1) from column data: rows sorted by `preprint_id`, row groups of
 * `ROW_GROUP_ROWS`, one PLAIN data page (v1) per column chunk, SNAPPY. The schema is the one hyparquet-writer
 * derives from the §4.1 column types, so files from before and after read the same everywhere. The file is handed
 * out piece by piece (a page, then the footer): no encode ever holds the whole file.
 */
import type { ColumnChunk as ParquetColumnChunk, RowGroup } from 'hyparquet';
import { ByteWriter } from 'hyparquet-writer';
import { writePageHeader } from 'hyparquet-writer/src/datapage.js';
import { writeMetadata } from 'hyparquet-writer/src/metadata.js';
import { schemaFromColumnData } from 'hyparquet-writer/src/schema.js';
import { ByteBuffer } from './byte-buffer.js';
import {
  HEX_SHAPES,
  INDEX_COLUMNS,
  type ColumnSpec,
  type FlagColumn,
  type HexColumnName,
  type SizeColumn,
  type TextColumn,
  type TimeColumn,
} from './columns.js';
import type { IndexRow } from './row.js';
import { PackedColumn, type EncodableChunk, type StringColumn } from './snapshot.js';
import { maxCompressedLength, snappyCompressInto } from './snappy.js';

export const ROW_GROUP_ROWS = 16_384;

const HEX = new Uint8Array([...'0123456789abcdef'].map((c) => c.charCodeAt(0)));
const encoder = new TextEncoder();

export function indexSchema() {
  return schemaFromColumnData({
    columnData: INDEX_COLUMNS.map((c) => ({ name: c.name, type: c.type, nullable: c.nullable, data: [] })),
  });
}

/** Row numbers in `preprint_id` order (the table is mostly sorted already: appended rows come last). */
function sortedOrder(ids: StringColumn, count: number): number[] {
  const order = Array.from({ length: count }, (_, i) => i);
  const compare =
    ids instanceof PackedColumn
      ? (a: number, b: number) => ids.compare(a, b)
      : (a: number, b: number) => (ids[a]! < ids[b]! ? -1 : ids[a]! > ids[b]! ? 1 : 0);
  let sorted = true;
  for (let i = 1; i < count && sorted; i++) if (compare(i - 1, i) > 0) sorted = false;
  if (!sorted) order.sort(compare);
  return order;
}

/** Writes a string as BYTE_ARRAY PLAIN (length + UTF-8). */
function putString(out: ByteBuffer, s: string): void {
  const n = s.length;
  out.ensure(4 + n);
  const at = out.offset;
  out.offset += 4;
  let ascii = true;
  for (let i = 0; i < n; i++) {
    const ch = s.charCodeAt(i);
    if (ch >= 0x80) {
      ascii = false;
      break;
    }
    out.bytes[out.offset + i] = ch;
  }
  if (!ascii) {
    const bytes = encoder.encode(s);
    out.ensure(bytes.length);
    out.bytes.set(bytes, out.offset);
    out.offset += bytes.length;
  } else out.offset += n;
  new DataView(out.bytes.buffer).setUint32(at, out.offset - at - 4, true);
}

/** Writes a packed string (`PackedColumn`, row `r`) as BYTE_ARRAY PLAIN. */
function putPacked(out: ByteBuffer, column: PackedColumn, r: number): void {
  column.seek(r);
  const { bytes, from, to } = column;
  out.u32(to - from);
  out.ensure(to - from);
  let p = out.offset;
  for (let i = from; i < to; i++) out.bytes[p++] = bytes[i]!;
  out.offset = p;
}

/** The page source of a string column that has no packed shape. */
function stringSource(a: StringColumn): PageSource {
  if (a instanceof PackedColumn) return { defined: (r) => !a.isNull(r), write: (out, r) => putPacked(out, a, r) };
  return { defined: (r) => a[r] != null, write: (out, r) => putString(out, a[r]!) };
}

/** Definition levels (bit width 1) as one bit-packed RLE-hybrid run, prefixed with its length (page v1). */
function putLevels(out: ByteBuffer, defined: Uint8Array, n: number): void {
  const groups = Math.ceil(n / 8);
  const header = new ByteBuffer(8);
  header.varint((groups << 1) | 1);
  out.u32(header.offset + groups);
  out.append(header.data());
  out.ensure(groups);
  const base = out.offset;
  out.bytes.fill(0, base, base + groups);
  for (let i = 0; i < n; i++) if (defined[i]) out.bytes[base + (i >> 3)]! |= 1 << (i & 7);
  out.offset += groups;
}

interface PageSource {
  /** 1 when the row (position in the group) has a value. */
  readonly defined: (row: number) => boolean;
  readonly write: (out: ByteBuffer, row: number) => void;
}

function source(c: EncodableChunk, spec: ColumnSpec, hexOther: Map<string, Map<number, string>>): PageSource {
  const name = spec.name;
  switch (spec.type) {
    case 'BOOLEAN': {
      const a = c.flags[name as FlagColumn];
      return { defined: () => true, write: (out, r) => out.u8(a[r]!) }; // packed by the caller
    }
    case 'INT32':
      return { defined: () => true, write: (out, r) => out.u32(c.imageCount[r]! >>> 0) };
    case 'INT64': {
      const a = c.sizes[name as SizeColumn];
      return { defined: (r) => !Number.isNaN(a[r]!), write: (out, r) => out.i64(a[r]!) };
    }
    case 'TIMESTAMP': {
      const a = c.times[name as TimeColumn];
      return { defined: (r) => !Number.isNaN(a[r]!), write: (out, r) => out.i64(a[r]!) };
    }
    case 'STRING': {
      if (name === 'preprint_id') return { ...stringSource(c.ids), defined: () => true };
      if (name in HEX_SHAPES) {
        const h = c.hex[name as HexColumnName];
        const { digits, quoted } = HEX_SHAPES[name as HexColumnName];
        const width = digits / 2;
        const other = hexOther.get(name) ?? new Map(h.other);
        hexOther.set(name, other);
        return {
          defined: (r) => h.state[r] !== 0,
          write: (out, r) => {
            if (h.state[r] === 2) return putString(out, other.get(r) ?? '');
            const len = digits + (quoted ? 2 : 0);
            out.u32(len);
            out.ensure(len);
            let p = out.offset;
            if (quoted) out.bytes[p++] = 0x22;
            for (let i = r * width, end = i + width; i < end; i++) {
              const b = h.bytes[i]!;
              out.bytes[p++] = HEX[b >> 4]!;
              out.bytes[p++] = HEX[b & 15]!;
            }
            if (quoted) out.bytes[p++] = 0x22;
            out.offset = p;
          },
        };
      }
      return stringSource(c.text[name as TextColumn]);
    }
  }
}

/**
 * A column's source over a live table: rows in `changed` (`TableSnapshot.changed`) come from their saved row
 * objects, written as `source` writes the column's own values; the others from the columns.
 */
function savedSource(spec: ColumnSpec, changed: ReadonlyMap<number, IndexRow>, own: PageSource): PageSource {
  const name = spec.name;
  const alwaysDefined = spec.type === 'BOOLEAN' || spec.type === 'INT32';
  const write = (out: ByteBuffer, value: NonNullable<IndexRow[keyof IndexRow]>): void => {
    switch (spec.type) {
      case 'BOOLEAN':
        return out.u8(value ? 1 : 0);
      case 'INT32':
        return out.u32(Number(value) >>> 0);
      case 'INT64':
        return out.i64(Number(value));
      case 'TIMESTAMP':
        return out.i64((value as Date).getTime());
      case 'STRING':
        return putString(out, String(value));
    }
  };
  return {
    defined: (r) => {
      const row = changed.size === 0 ? undefined : changed.get(r);
      return row === undefined ? own.defined(r) : alwaysDefined || row[name] != null;
    },
    write: (out, r) => {
      const row = changed.size === 0 ? undefined : changed.get(r);
      if (row === undefined) own.write(out, r);
      else write(out, row[name]!);
    },
  };
}

/** Room left before a page's compressed bytes for its header (a Thrift struct of a few varints). */
const PAGE_HEADER_ROOM = 256;
const NO_CHANGES: ReadonlyMap<number, IndexRow> = new Map();

/**
 * Receives the encoded file piece by piece, in order. A piece is a view of the encoder's buffer: valid until the
 * call returns, or until its promise settles (the encoder waits for it before it goes on).
 */
export type PieceSink = (piece: Uint8Array) => void | Promise<void>;

/**
 * Encodes tables as Parquet files through buffers it keeps: after the first few encodes, encoding the index again
 * (every few seconds under writes) allocates nothing large, so the process's memory does not fill with freed
 * buffers of ever larger sizes (the soak benchmark, bench/README.md). It holds one page and its compressed form.
 */
export class IndexEncoder {
  private readonly writer = new ByteWriter(1 << 20);
  private readonly page = new ByteBuffer(1 << 20);
  private defined = new Uint8Array(0);

  /** `rowGroupRows`: rows per row group (tests write files of many small groups). */
  constructor(private readonly rowGroupRows = ROW_GROUP_ROWS) {}

  /**
   * Encodes `c` (one `ColumnChunk` holding every row) into `sink`, a step per column page: a caller may let the
   * event loop run between steps, but must finish one encode before it starts the next, and must await a step's
   * value when it is a promise (the sink's). Rows in `changed` are written with the values there instead of `c`'s
   * (a `TableSnapshot` view).
   */
  *steps(
    c: EncodableChunk,
    sink: PieceSink,
    changed: ReadonlyMap<number, IndexRow> = NO_CHANGES,
  ): Generator<void | Promise<void>, void> {
    const order = sortedOrder(c.ids, c.count);
    const schema = indexSchema();
    const { writer, page } = this;
    writer.index = 0;
    writer.offset = 0;
    /** Hands what the writer holds to the sink; offsets (`writer.offset`) stay the file's. */
    const flush = (): void | Promise<void> => {
      const piece = writer.getBytes();
      writer.index = 0;
      return sink(piece);
    };
    writer.appendUint32(0x31524150); // PAR1
    const rowGroups: RowGroup[] = [];
    const hexOther = new Map<string, Map<number, string>>();
    const sources = INDEX_COLUMNS.map((spec) => {
      const own = source(c, spec, hexOther);
      return changed === NO_CHANGES ? own : savedSource(spec, changed, own);
    });
    const groupRows = Math.min(this.rowGroupRows, c.count);
    if (this.defined.length < groupRows) this.defined = new Uint8Array(groupRows);
    const defined = this.defined;
    for (let g = 0; g < c.count; g += this.rowGroupRows) {
      const n = Math.min(this.rowGroupRows, c.count - g);
      const groupStart = writer.offset;
      const columns: ParquetColumnChunk[] = [];
      let groupBytes = 0;
      for (let k = 0; k < INDEX_COLUMNS.length; k++) {
        const spec = INDEX_COLUMNS[k]!;
        const src = sources[k]!;
        for (let i = 0; i < n; i++) defined[i] = src.defined(order[g + i]!) ? 1 : 0;
        page.reset();
        if (spec.nullable) putLevels(page, defined, n);
        const valuesStart = page.offset;
        for (let i = 0; i < n; i++) if (defined[i]) src.write(page, order[g + i]!);
        if (spec.type === 'BOOLEAN') packBits(page, valuesStart);
        const raw = page.data();
        // The page goes straight into the file: compressed past room for its header, which is then written and
        // the compressed bytes moved up behind it.
        writer.ensure(PAGE_HEADER_ROOM + maxCompressedLength(raw.length));
        const offset = writer.offset;
        const at = writer.index + PAGE_HEADER_ROOM;
        const size = snappyCompressInto(raw, new Uint8Array(writer.buffer, at), spec.name in HEX_SHAPES);
        writePageHeader(writer, {
          type: 'DATA_PAGE',
          uncompressed_page_size: raw.length,
          compressed_page_size: size,
          data_page_header: {
            num_values: n,
            encoding: 'PLAIN',
            definition_level_encoding: 'RLE',
            repetition_level_encoding: 'RLE',
          },
        });
        const headerSize = writer.offset - offset;
        new Uint8Array(writer.buffer).copyWithin(writer.index, at, at + size);
        writer.index += size;
        writer.offset += size;
        groupBytes += headerSize + raw.length;
        const element = schema[k + 1]!;
        columns.push({
          file_offset: BigInt(offset),
          meta_data: {
            type: element.type!,
            encodings: spec.nullable ? ['PLAIN', 'RLE'] : ['PLAIN'],
            path_in_schema: [spec.name],
            codec: 'SNAPPY',
            num_values: BigInt(n),
            total_uncompressed_size: BigInt(headerSize + raw.length),
            total_compressed_size: BigInt(writer.offset - offset),
            data_page_offset: BigInt(offset),
          },
        });
        yield flush();
      }
      rowGroups.push({
        columns,
        total_byte_size: BigInt(groupBytes),
        num_rows: BigInt(n),
        total_compressed_size: BigInt(writer.offset - groupStart),
      });
    }
    writeMetadata(writer, {
      version: 2,
      created_by: 'pks',
      schema,
      num_rows: BigInt(c.count),
      row_groups: rowGroups,
      metadata_length: 0,
    });
    writer.appendUint32(0x31524150);
    yield flush();
  }
}

/** Bit-packs (LSB first, as PLAIN booleans are) the 0/1 bytes from `base` to the end of `out`, in place. */
function packBits(out: ByteBuffer, base: number): void {
  const count = out.offset - base;
  const bytes = out.bytes;
  // Packed byte j takes the values of bytes 8j..8j+7, all at or after j: each is read before it is overwritten.
  for (let i = 0; i < count; i++) {
    const bit = bytes[base + i] ? 1 : 0;
    const j = base + (i >> 3);
    bytes[j] = (i & 7) === 0 ? bit : bytes[j]! | (bit << (i & 7));
  }
  out.offset = base + Math.ceil(count / 8);
}

/** Runs steps to the end synchronously (an encode whose sink is synchronous, a chunk's `posted` steps); their result. */
export function runToEnd<T>(steps: Generator<void | Promise<void>, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
  }
}

/** Encodes the whole table (one `ColumnChunk` holding every row) as a Parquet file in memory, in one go. */
export function encodeColumns(c: EncodableChunk, rowGroupRows = ROW_GROUP_ROWS): Uint8Array {
  const pieces: Uint8Array[] = [];
  runToEnd(new IndexEncoder(rowGroupRows).steps(c, (piece) => void pieces.push(piece.slice())));
  return Buffer.concat(pieces);
}
