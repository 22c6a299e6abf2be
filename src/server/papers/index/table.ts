/**
 * The metadata index in memory, column by column (CONTRACT §4.1): typed arrays for flags, counts, sizes and
 * timestamps, packed bytes for digests and ETags, plain arrays for the other strings, and hash tables over typed
 * arrays from `preprint_id` to the row number and from a versionless id to its versions' rows (`IdIndex`). Rows are only appended or changed in place, never removed (a reload builds a
 * new table). About 300 bytes a row instead of one object of two dozen fields.
 */
import {
  FLAG_COLUMNS,
  HEX_COLUMNS,
  HEX_SHAPES,
  SIZE_COLUMNS,
  TEXT_COLUMNS,
  TIME_COLUMNS,
  columnRecord,
  type FlagColumn,
  type HexColumnName,
  type SizeColumn,
  type TextColumn,
  type TimeColumn,
} from './columns.js';
import { HexColumn } from './hex-column.js';
import { IdIndex } from './id-index.js';
import type { IndexRow, RowMutation } from './row.js';
import { TableSnapshot } from './snapshot.js';

const FLAGS = new Set<string>(FLAG_COLUMNS);
const SIZES = new Set<string>(SIZE_COLUMNS);
const TIMES = new Set<string>(TIME_COLUMNS);
const HEXES = new Set<string>(HEX_COLUMNS);
/** Columns with few distinct values: equal strings are shared. */
const INTERNED = new Set<string>(['yymm', 'categories', 'publication_date']);

export class IndexTable {
  private capacity: number;
  length = 0;
  readonly ids: string[] = [];
  private readonly byId: IdIndex;
  flags: Record<FlagColumn, Uint8Array>;
  imageCount: Int32Array;
  sizes: Record<SizeColumn, Float64Array>;
  times: Record<TimeColumn, Float64Array>;
  readonly hex: Record<HexColumnName, HexColumn>;
  readonly text: Record<TextColumn, (string | null)[]>;
  private readonly interned = new Map<string, string>();
  private readonly snapshots = new Set<TableSnapshot>();

  constructor(capacity = 1024) {
    this.capacity = Math.max(16, capacity);
    this.byId = new IdIndex(this.ids, this.capacity);
    this.flags = columnRecord(FLAG_COLUMNS, () => new Uint8Array(this.capacity));
    this.imageCount = new Int32Array(this.capacity);
    this.sizes = columnRecord(SIZE_COLUMNS, () => new Float64Array(this.capacity).fill(NaN));
    this.times = columnRecord(TIME_COLUMNS, () => new Float64Array(this.capacity).fill(NaN));
    this.hex = columnRecord(HEX_COLUMNS, (c) => new HexColumn(HEX_SHAPES[c], this.capacity));
    this.text = columnRecord(TEXT_COLUMNS, () => []);
  }

  static fromRows(rows: Iterable<IndexRow>): IndexTable {
    const list = [...rows];
    const table = new IndexTable(list.length);
    for (const r of list) table.upsert(r);
    return table;
  }

  get size(): number {
    return this.length;
  }

  private ensure(needed: number): void {
    if (needed <= this.capacity) return;
    const capacity = Math.max(needed, Math.ceil(this.capacity * 1.5));
    const grow = <T extends Uint8Array | Int32Array | Float64Array>(a: T, fill?: number): T => {
      const b = new (a.constructor as new (n: number) => T)(capacity);
      if (fill !== undefined) b.fill(fill, a.length);
      b.set(a);
      return b;
    };
    this.flags = columnRecord(FLAG_COLUMNS, (c) => grow(this.flags[c]));
    this.imageCount = grow(this.imageCount);
    this.sizes = columnRecord(SIZE_COLUMNS, (c) => grow(this.sizes[c], NaN));
    this.times = columnRecord(TIME_COLUMNS, (c) => grow(this.times[c], NaN));
    for (const c of HEX_COLUMNS) this.hex[c].grow(capacity);
    this.capacity = capacity;
  }

  /**
   * Adds `count` rows whose cells the caller fills (decoding); `ids` must be set for each before `indexRows`.
   * Returns the first new row number.
   */
  allocate(count: number): number {
    const start = this.length;
    this.ensure(start + count);
    this.length += count;
    for (const c of TEXT_COLUMNS) this.text[c].length = this.length;
    for (const c of TEXT_COLUMNS) this.text[c].fill(null, start);
    this.ids.length = this.length;
    return start;
  }

  /**
   * Builds the id map after a bulk decode. A duplicate id keeps its last row's values (in the first row), and the
   * later duplicates are dropped.
   */
  indexRows(): void {
    if (this.byId.bulk(this.length)) this.dropDuplicates();
  }

  /**
   * Rows `[0, sortedRows)` are in ascending `preprint_id` order (a loaded index as this service writes it): their
   * row numbers compare as their ids do. Rows never move and ids never change, so this holds until a reload.
   */
  get sortedRows(): number {
    return this.byId.sorted;
  }

  /** Rebuilds the table with each id once, in the order of its first row, with its last row's values. */
  private dropDuplicates(): void {
    const rows: IndexRow[] = [];
    const seen = new Set<string>();
    for (const id of this.ids) {
      if (seen.has(id)) continue;
      seen.add(id);
      rows.push(this.row(this.byId.get(id)!));
    }
    const clean = IndexTable.fromRows(rows);
    Object.assign(this, { ...clean, snapshots: this.snapshots });
  }

  intern(value: string): string {
    const known = this.interned.get(value);
    if (known !== undefined) return known;
    this.interned.set(value, value);
    return value;
  }

  indexOf(id: string): number | undefined {
    return this.byId.get(id);
  }

  has(id: string): boolean {
    return this.byId.get(id) !== undefined;
  }

  /** Row numbers of every stored version of a paper (ids `<versionless>v<N>`), by version. */
  versionsOf(versionless: string): number[] {
    return this.byId.versionsOf(versionless);
  }

  /** The row as an object (a fresh one on every call). */
  row(i: number): IndexRow {
    const date = (t: number) => (Number.isNaN(t) ? null : new Date(t));
    const num = (n: number) => (Number.isNaN(n) ? null : n);
    return {
      preprint_id: this.ids[i]!,
      key: this.text.key[i] ?? '',
      yymm: this.text.yymm[i] ?? '',
      has_pdf: this.flags.has_pdf[i] === 1,
      has_md: this.flags.has_md[i] === 1,
      has_json: this.flags.has_json[i] === 1,
      image_count: this.imageCount[i]!,
      pdf_size_bytes: num(this.sizes.pdf_size_bytes[i]!),
      md_size_bytes: num(this.sizes.md_size_bytes[i]!),
      images_size_bytes: num(this.sizes.images_size_bytes[i]!),
      pdf_sha256: this.hex.pdf_sha256.get(i),
      md_sha256: this.hex.md_sha256.get(i),
      pdf_etag: this.hex.pdf_etag.get(i),
      md_etag: this.hex.md_etag.get(i),
      pdf_uploaded_at: date(this.times.pdf_uploaded_at[i]!),
      md_uploaded_at: date(this.times.md_uploaded_at[i]!),
      images_uploaded_at: date(this.times.images_uploaded_at[i]!),
      updated_at: new Date(this.times.updated_at[i]!),
      title: this.text.title[i] ?? null,
      authors: this.text.authors[i] ?? null,
      categories: this.text.categories[i] ?? null,
      doi: this.text.doi[i] ?? null,
      openalex_id: this.text.openalex_id[i] ?? null,
      publication_date: this.text.publication_date[i] ?? null,
    };
  }

  *rows(): IterableIterator<IndexRow> {
    for (let i = 0; i < this.length; i++) yield this.row(i);
  }

  /** Sets one cell from a row-object value (null/undefined → null; flags null → false; image_count null → 0). */
  setCell(i: number, column: string, value: unknown): void {
    if (FLAGS.has(column)) this.flags[column as FlagColumn][i] = value === true ? 1 : 0;
    else if (column === 'image_count') this.imageCount[i] = Math.trunc(Number(value ?? 0)) || 0;
    else if (SIZES.has(column)) this.sizes[column as SizeColumn][i] = value == null ? NaN : Math.trunc(Number(value));
    else if (TIMES.has(column)) {
      const t = value == null ? NaN : value instanceof Date ? value.getTime() : new Date(value as string).getTime();
      this.times[column as TimeColumn][i] = column === 'updated_at' && Number.isNaN(t) ? 0 : t;
    } else if (HEXES.has(column)) this.hex[column as HexColumnName].set(i, value == null ? null : String(value));
    else if (column === 'key') {
      const s = value == null ? null : String(value);
      this.text.key[i] = s === this.ids[i] ? this.ids[i]! : s;
    } else if (column in this.text) this.setText(i, column as TextColumn, value == null ? null : String(value));
  }

  /** Sets a text column other than `key` (shared strings for the few-valued columns). */
  setText(i: number, column: TextColumn, s: string | null): void {
    this.text[column][i] = s !== null && INTERNED.has(column) ? this.intern(s) : s;
  }

  /** Changes columns of row `i` (active snapshots keep the old row). */
  set(i: number, mutation: RowMutation): void {
    for (const s of this.snapshots) s.preserve(i, this);
    for (const [column, value] of Object.entries(mutation)) {
      if (value !== undefined) this.setCell(i, column, value);
    }
  }

  /** Sets the whole row of `row.preprint_id`, appending it when new. Returns the row number. */
  upsert(row: IndexRow): number {
    const existing = this.byId.get(row.preprint_id);
    if (existing !== undefined) {
      const { preprint_id: _id, ...rest } = row;
      this.set(existing, rest);
      return existing;
    }
    const i = this.allocate(1);
    this.ids[i] = row.preprint_id;
    this.byId.set(i);
    for (const [column, value] of Object.entries(row)) if (column !== 'preprint_id') this.setCell(i, column, value);
    return i;
  }

  /** A point-in-time view for serialising while writes continue: rows changed afterwards keep their old values. */
  snapshot(): TableSnapshot {
    const s = new TableSnapshot(this, this.length, () => this.snapshots.delete(s));
    this.snapshots.add(s);
    return s;
  }
}
