/**
 * The §4.1 schema of `index/papers.parquet`, in column order, and the in-memory kind of each column.
 */
import type { IndexRow } from './row.js';

export type ColumnType = 'STRING' | 'BOOLEAN' | 'INT32' | 'INT64' | 'TIMESTAMP';

export interface ColumnSpec {
  readonly name: keyof IndexRow;
  readonly type: ColumnType;
  readonly nullable: boolean;
}

export const INDEX_COLUMNS: readonly ColumnSpec[] = [
  { name: 'preprint_id', type: 'STRING', nullable: false },
  { name: 'key', type: 'STRING', nullable: true },
  { name: 'yymm', type: 'STRING', nullable: true },
  { name: 'has_pdf', type: 'BOOLEAN', nullable: true },
  { name: 'has_md', type: 'BOOLEAN', nullable: true },
  { name: 'has_json', type: 'BOOLEAN', nullable: true },
  { name: 'image_count', type: 'INT32', nullable: true },
  { name: 'pdf_size_bytes', type: 'INT64', nullable: true },
  { name: 'md_size_bytes', type: 'INT64', nullable: true },
  { name: 'images_size_bytes', type: 'INT64', nullable: true },
  { name: 'pdf_sha256', type: 'STRING', nullable: true },
  { name: 'md_sha256', type: 'STRING', nullable: true },
  { name: 'pdf_etag', type: 'STRING', nullable: true },
  { name: 'md_etag', type: 'STRING', nullable: true },
  { name: 'pdf_uploaded_at', type: 'TIMESTAMP', nullable: true },
  { name: 'md_uploaded_at', type: 'TIMESTAMP', nullable: true },
  { name: 'images_uploaded_at', type: 'TIMESTAMP', nullable: true },
  { name: 'updated_at', type: 'TIMESTAMP', nullable: false },
  { name: 'title', type: 'STRING', nullable: true },
  { name: 'authors', type: 'STRING', nullable: true },
  { name: 'categories', type: 'STRING', nullable: true },
  { name: 'doi', type: 'STRING', nullable: true },
  { name: 'openalex_id', type: 'STRING', nullable: true },
  { name: 'publication_date', type: 'STRING', nullable: true },
];

/** Boolean columns (`Uint8Array`, null stored as false). */
export const FLAG_COLUMNS = ['has_pdf', 'has_md', 'has_json'] as const;
/** Int64 columns (`Float64Array`, null = NaN). */
export const SIZE_COLUMNS = ['pdf_size_bytes', 'md_size_bytes', 'images_size_bytes'] as const;
/** Timestamp columns (`Float64Array` of ms, null = NaN). */
export const TIME_COLUMNS = ['pdf_uploaded_at', 'md_uploaded_at', 'images_uploaded_at', 'updated_at'] as const;
/** Hex digests and ETags, packed as bytes when they have the usual shape (`HexColumn`). */
export const HEX_COLUMNS = ['pdf_sha256', 'md_sha256', 'pdf_etag', 'md_etag'] as const;
/** Other string columns (plain arrays; `key`, `yymm`, `categories`, `publication_date` share equal strings). */
export const TEXT_COLUMNS = [
  'key',
  'yymm',
  'title',
  'authors',
  'categories',
  'doi',
  'openalex_id',
  'publication_date',
] as const;

export type FlagColumn = (typeof FLAG_COLUMNS)[number];
export type SizeColumn = (typeof SIZE_COLUMNS)[number];
export type TimeColumn = (typeof TIME_COLUMNS)[number];
export type HexColumnName = (typeof HEX_COLUMNS)[number];
export type TextColumn = (typeof TEXT_COLUMNS)[number];

/** The packed shape of a hex column: `digits` lowercase hex digits, optionally in double quotes (S3 ETags). */
export const HEX_SHAPES: Readonly<Record<HexColumnName, { readonly digits: number; readonly quoted: boolean }>> = {
  pdf_sha256: { digits: 64, quoted: false },
  md_sha256: { digits: 64, quoted: false },
  pdf_etag: { digits: 32, quoted: true },
  md_etag: { digits: 32, quoted: true },
};

/** One value per column of a column list (`keys`), made by `make`. */
export const columnRecord = <K extends string, V>(keys: readonly K[], make: (k: K) => V): Record<K, V> =>
  Object.fromEntries(keys.map((k) => [k, make(k)])) as Record<K, V>;
