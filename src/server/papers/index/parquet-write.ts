/**
 * Writes `index/papers.parquet` (§4.1) from column data: rows sorted by `preprint_id`, row groups of
 * `ROW_GROUP_ROWS`, one PLAIN data page (v1) per column chunk, SNAPPY. The schema is the one hyparquet-writer
 * derives from the §4.1 column types, so files from before and after read the same everywhere.
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
import type { ColumnChunk } from './snapshot.js';
import { snappyCompress } from './snappy.js';

export const ROW_GROUP_ROWS = 131_072;

const HEX = new Uint8Array([...'0123456789abcdef'].map((c) => c.charCodeAt(0)));
const encoder = new TextEncoder();

export function indexSchema() {
  return schemaFromColumnData({
    columnData: INDEX_COLUMNS.map((c) => ({ name: c.name, type: c.type, nullable: c.nullable, data: [] })),
  });
}

/** Row numbers in `preprint_id` order (the table is mostly sorted already: appended rows come last). */
function sortedOrder(ids: readonly string[]): number[] {
  const order = Array.from({ length: ids.length }, (_, i) => i);
  let sorted = true;
  for (let i = 1; i < ids.length && sorted; i++) if (ids[i - 1]! > ids[i]!) sorted = false;
  if (!sorted) order.sort((a, b) => (ids[a]! < ids[b]! ? -1 : ids[a]! > ids[b]! ? 1 : 0));
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

function source(c: ColumnChunk, spec: ColumnSpec, hexOther: Map<string, Map<number, string>>): PageSource {
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
      if (name === 'preprint_id') return { defined: () => true, write: (out, r) => putString(out, c.ids[r]!) };
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
      const a = c.text[name as TextColumn];
      return { defined: (r) => a[r] != null, write: (out, r) => putString(out, a[r]!) };
    }
  }
}

/** Encodes the whole table (one `ColumnChunk` holding every row) as a Parquet file. */
export function encodeColumns(c: ColumnChunk): Uint8Array {
  const order = sortedOrder(c.ids);
  const schema = indexSchema();
  const writer = new ByteWriter();
  writer.appendUint32(0x31524150); // PAR1
  const rowGroups: RowGroup[] = [];
  const body = new ByteBuffer(1 << 20);
  const values = new ByteBuffer(1 << 20);
  const hexOther = new Map<string, Map<number, string>>();
  const sources = INDEX_COLUMNS.map((spec) => source(c, spec, hexOther));
  const defined = new Uint8Array(Math.min(ROW_GROUP_ROWS, c.count));
  for (let g = 0; g < c.count; g += ROW_GROUP_ROWS) {
    const n = Math.min(ROW_GROUP_ROWS, c.count - g);
    const groupStart = writer.offset;
    const columns: ParquetColumnChunk[] = [];
    let groupBytes = 0;
    INDEX_COLUMNS.forEach((spec, k) => {
      const src = sources[k]!;
      body.reset();
      values.reset();
      let present = 0;
      for (let i = 0; i < n; i++) {
        const r = order[g + i]!;
        const d = src.defined(r);
        defined[i] = d ? 1 : 0;
        if (!d) continue;
        present++;
        src.write(values, r);
      }
      if (spec.nullable) putLevels(body, defined, n);
      if (spec.type === 'BOOLEAN') {
        // PLAIN booleans are bit-packed, LSB first.
        const bits = new Uint8Array(Math.ceil(present / 8));
        for (let i = 0; i < present; i++) if (values.bytes[i]) bits[i >> 3]! |= 1 << (i & 7);
        body.append(bits);
      } else body.append(values.data());
      const raw = body.data();
      const compressed = snappyCompress(raw, spec.name in HEX_SHAPES);
      const offset = writer.offset;
      writePageHeader(writer, {
        type: 'DATA_PAGE',
        uncompressed_page_size: raw.length,
        compressed_page_size: compressed.length,
        data_page_header: {
          num_values: n,
          encoding: 'PLAIN',
          definition_level_encoding: 'RLE',
          repetition_level_encoding: 'RLE',
        },
      });
      const headerSize = writer.offset - offset;
      writer.appendBytes(compressed);
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
    });
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
  return new Uint8Array(writer.getBuffer());
}
