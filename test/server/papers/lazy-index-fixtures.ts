/**
 * Rows, files and indexes for the tests of the lazily opened index (lazy-index-faults, lazy-index-review,
 * storage/s3-open-index): small tables written as this service writes them, in row groups small enough that most
 * rows are in cold groups.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parquetMetadata } from 'hyparquet';
import { parquetWriteBuffer } from 'hyparquet-writer';
import pino from 'pino';
import { INDEX_COLUMNS } from '../../../src/server/papers/index/columns.js';
import { decodeTable } from '../../../src/server/papers/index/parquet-read.js';
import { encodeColumns } from '../../../src/server/papers/index/parquet-write.js';
import type { IndexRow } from '../../../src/server/papers/index/row.js';
import { IndexTable } from '../../../src/server/papers/index/table.js';
import { StoreIndexPersistence } from '../../../src/server/papers/index-parquet.js';
import { PaperIndex } from '../../../src/server/papers/paper-index.js';
import { LocalObjectStore } from '../../../src/server/storage/local-store.js';

export const quiet = pino({ level: 'silent' });

/** Paper `2501.<n>v1` with a PDF (uploaded at 1,700,000,000,000 + n ms), titled `title`. */
export function indexRow(n: number, title: string | null, extra: Partial<IndexRow> = {}): IndexRow {
  const id = `2501.${String(n).padStart(5, '0')}v1`;
  return {
    preprint_id: id,
    key: id,
    yymm: '2501',
    has_pdf: true,
    has_md: false,
    has_json: false,
    image_count: 1,
    pdf_size_bytes: 100 + n,
    md_size_bytes: null,
    images_size_bytes: null,
    pdf_sha256: 'a'.repeat(64),
    md_sha256: null,
    pdf_etag: null,
    md_etag: null,
    pdf_uploaded_at: new Date(1_700_000_000_000 + n),
    md_uploaded_at: null,
    images_uploaded_at: null,
    updated_at: new Date(1_700_000_000_000 + n),
    title,
    authors: null,
    categories: null,
    doi: null,
    openalex_id: null,
    publication_date: null,
    ...extra,
  };
}

/** Papers 1…`n`, titled `title 1`…`title n`. */
export const indexRows = (n: number, title = 'title'): IndexRow[] =>
  Array.from({ length: n }, (_, k) => indexRow(k + 1, `${title} ${k + 1}`));

/** The rows as this service writes them, `groupRows` rows per row group. */
export function encodeRows(rows: IndexRow[], groupRows: number): Buffer {
  const s = IndexTable.fromRows(rows).snapshot();
  const bytes = Buffer.from(encodeColumns(s.view(), groupRows));
  s.release();
  return bytes;
}

/**
 * The rows as another writer lays them out (hyparquet-writer, PLAIN pages, which this service's reader decodes), with
 * the physical types of some columns changed (`{ image_count: 'INT64' }`, pandas' default); `rowGroupSize` rows per
 * group, the writer's default when not given.
 */
export function foreignLayoutFile(rows: IndexRow[], types: Record<string, string>, rowGroupSize?: number): Buffer {
  const columnData = INDEX_COLUMNS.map((c) => {
    const type = types[c.name] ?? c.type;
    return {
      name: c.name,
      type,
      nullable: c.nullable,
      encoding: 'PLAIN',
      data: rows.map((r) => {
        const v = r[c.name];
        return type === 'INT64' && v !== null ? BigInt(v as number) : v;
      }),
    };
  });
  const options = { columnData: columnData as never, codec: 'SNAPPY', ...(rowGroupSize ? { rowGroupSize } : {}) };
  return Buffer.from(parquetWriteBuffer(options as never));
}

/** Where group `g`'s chunk of column `name` is in the file. */
export function chunkAt(bytes: Buffer, g: number, name: string): { start: number; length: number } {
  const meta = parquetMetadata(new Uint8Array(bytes).buffer);
  const c = meta.row_groups[g]!.columns.find((x) => x.meta_data!.path_in_schema[0] === name)!;
  return { start: Number(c.meta_data!.data_page_offset), length: Number(c.meta_data!.total_compressed_size) };
}

/** Group `g`'s chunk of column `name` overwritten with 0xff (bit rot: it does not decode). */
export function corrupt(bytes: Buffer, g: number, name: string): Buffer {
  const { start, length } = chunkAt(bytes, g, name);
  const out = Buffer.from(bytes);
  out.fill(0xff, start, start + length);
  return out;
}

let dirs = 0;
/** A local store in `dir` whose index file holds `bytes`, and a loaded index over it (flushes only when asked). */
export async function indexOver(dir: string, bytes: Buffer) {
  const raw = path.join(dir, `raw-${++dirs}`);
  await mkdir(path.join(raw, 'index'), { recursive: true });
  const file = path.join(raw, 'index', 'papers.parquet');
  await writeFile(file, bytes);
  const persistence = new StoreIndexPersistence(new LocalObjectStore(raw), quiet);
  const index = new PaperIndex(quiet, persistence, { flushDelayMs: 1e9, reloadIntervalMs: 1e9 });
  await index.load();
  return { index, file, raw, persistence };
}

/** The stored index file's rows, by id. */
export async function storedRows(file: string): Promise<Map<string, IndexRow>> {
  const table = await decodeTable(await readFile(file));
  return new Map([...table.rows()].map((r) => [r.preprint_id, r]));
}
