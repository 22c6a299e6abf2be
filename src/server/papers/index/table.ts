/**
 * The metadata index in memory, column by column (CONTRACT §4.1): typed arrays for flags, counts, sizes and
 * timestamps, packed bytes for digests and ETags, plain arrays for the other strings, and hash tables over typed
 * arrays from `preprint_id` to the row number and from a versionless id to its versions' rows (`IdIndex`). Rows are
 * only appended or changed in place, never removed (a reload builds a new table). About 300 bytes a row instead of
 * one object of two dozen fields.
 *
 * A table opened from a file (`IndexTable.opened`) holds only the columns a start needs (`HOT_COLUMNS`: ids, the
 * three flags, `pdf_uploaded_at`; of `image_count` only its sum, `TALLIED_COLUMNS`); the others are decoded a row
 * group at a time from the file (`ColdSource`) before a row of that group is read or written, and all at once by the
 * whole-column getters (`text`, `times`, `sizes`, `hex`, `imageCount`) or `decodeAll`. Their strings live per row group until the `text` getter makes
 * plain columns of them. A file that cannot be read (or changed since the open) makes every later cold access throw
 * a `ColdReadError`.
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
  type ColumnSpec,
} from './columns.js';
import { HexColumn } from './hex-column.js';
import { PackedIds } from './packed-ids.js';
import { IdIndex } from './id-index.js';
import type { PlainText } from './plain-text.js';
import type { IndexRow, RowMutation } from './row.js';
import { TableSnapshot, type StringPacker } from './snapshot.js';

const FLAGS = new Set<string>(FLAG_COLUMNS);
const SIZES = new Set<string>(SIZE_COLUMNS);
const TIMES = new Set<string>(TIME_COLUMNS);
const HEXES = new Set<string>(HEX_COLUMNS);
/** Columns with few distinct values: equal strings are shared. */
const INTERNED = new Set<string>(['yymm', 'categories', 'publication_date']);

/** The columns a start reads (counters, the needs-parser order, id lookups): decoded when a file is opened. */
export const HOT_COLUMNS: ReadonlySet<string> = new Set(['preprint_id', ...FLAG_COLUMNS, 'pdf_uploaded_at']);

/**
 * Cold columns a start reads only to sum (`image_count`, for the §4.3 images counter: 10 MiB for 2.6M rows that
 * nothing else at a start reads); their cells are decoded with their row group like any cold column.
 */
export const TALLIED_COLUMNS: ReadonlySet<string> = new Set(['image_count']);

/** Every column of an opened file's that is decoded on first use. */
const COLD_COLUMNS: ReadonlySet<string> = new Set(
  [...FLAG_COLUMNS, 'image_count', ...SIZE_COLUMNS, ...TIME_COLUMNS, ...HEX_COLUMNS, ...TEXT_COLUMNS].filter(
    (c) => !HOT_COLUMNS.has(c),
  ),
);

type TextRecord = Record<TextColumn, (string | null)[]>;

/** The table's storage, written by the decoder without decoding anything first. */
export interface RawColumns {
  flags: Record<FlagColumn, Uint8Array>;
  imageCount: Int32Array;
  sizes: Record<SizeColumn, Float64Array>;
  times: Record<TimeColumn, Float64Array>;
  readonly hex: Record<HexColumnName, HexColumn>;
  text: TextRecord;
}

/**
 * The cold columns of an opened file: each row group is decoded in `steps(g)` steps (a column chunk each, so an
 * asynchronous decode can let the event loop run between them), which write the group's rows through the table's
 * raw columns and `setText`. A step sets every cell of its own column in the group's rows (its default, then the
 * chunk's values), and step 0 also those of the columns without a chunk in the group: the steps of a group can run
 * in any order, one at a time.
 */
export interface ColdSource {
  /** The first row of each row group, then the file's row count. */
  readonly groupStarts: readonly number[];
  steps(group: number): number;
  /** The step of group `group` that decodes `column`'s chunk; -1 when the group has none (its cells keep defaults). */
  stepOf(group: number, column: ColumnSpec['name']): number;
  /**
   * Runs a slice of step `step` of group `group` (synchronous: reads the file with blocking calls); `true` when the
   * step is done, else call again for the next slice. Throws on a bad file.
   */
  step(table: IndexTable, group: number, step: number): boolean;
  /**
   * Decodes typed cold column `column` of group `group` into rows `[0, rows of the group)` of `into` (a scratch
   * table), not into the table: its cells' defaults where the chunk has no value, or where the group has none. The
   * file is read at the first `next()`, then a slice of rows is decoded per `next()`.
   */
  typedInto(group: number, column: ColumnSpec['name'], into: IndexTable): Generator<void, void>;
  /**
   * Text column `column` of group `group` as the file holds it (no strings made, nothing written to the table);
   * null when the group has no chunk of it (every cell null). Read in slices like `typedInto`. Throws on a bad file.
   */
  plainText(group: number, column: TextColumn): Generator<void, PlainText | null>;
  /**
   * Walks group `group`'s cold chunks as a decode reads them, keeping nothing (the file's check after an open): a
   * slice per `next()`. Throws where a decode would. Independent of `step`, so it never disturbs a decode of the
   * group.
   */
  check(group: number): Generator<void, void>;
  /** Releases the file (once every group is decoded, or when the table is released); idempotent. */
  close(): void;
}

/**
 * A cold column chunk of an opened file could not be read (a corrupt page, an I/O error, a file closed by
 * `release`), or the file changed under its descriptor since it was opened (`fileChanged`: rewritten in place). The
 * table is then unusable for the rows it has not decoded: its owner treats it as an unreadable index.
 */
export class ColdReadError extends Error {
  constructor(
    message: string,
    readonly fileChanged = false,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'ColdReadError';
  }

  /** A read of the file failed (an errno `code`: EIO…), not its decode: the same object may read fine later. */
  get transient(): boolean {
    return typeof (this.cause as { code?: unknown } | undefined)?.code === 'string';
  }
}

interface Lazy {
  readonly source: ColdSource;
  /** Rows of the file (`[0, rows)`); later rows are the table's own. */
  readonly rows: number;
  /** Per group: the next step to run (the group is decoded when it reaches `source.steps(g)`). */
  readonly progress: Int32Array;
  /** Per group: a bit for each step past `progress` already run by a one-column read (`forEachText`), skipped later. */
  readonly ahead: Uint32Array;
  /** Groups whose next step a sliced decode (`decodeAll`) has started and not finished. */
  readonly halfDone: Set<number>;
  left: number;
  /** Per group, its rows' text cells: a column's array is made at its first value that is not null. */
  readonly text: (Partial<TextRecord> | undefined)[];
  /** Text cells of rows `[rows, length)`. */
  readonly extra: TextRecord;
  /** Why the file can no longer be read (every later cold access throws it), once it failed or was released. */
  failure: ColdReadError | null;
  /** Σ `image_count` of every row: the file's sum as read at the open, kept exact on every change since. */
  images: number;
  /**
   * Per file row, 1 where its `key` is its id (the usual case), kept as this mark rather than as a string of its
   * own: the ids are packed bytes, so a decoded key equal to its id was a second copy of it (2.6M strings, ~120 MiB
   * of heap that every major collection marked, once the needs-parser listing had read every group's keys).
   */
  readonly keyIsId: Uint8Array;
}

/** What the needs-parser listing reads of a row. */
export type QueueRow = Pick<IndexRow, 'preprint_id' | 'key' | 'yymm' | 'pdf_uploaded_at'>;

/** What a page of the paper list reads of a row. */
export type ListRow = Pick<IndexRow, 'preprint_id' | 'title' | 'has_pdf' | 'has_md' | 'image_count' | 'updated_at'>;

const emptyText = (): TextRecord => columnRecord(TEXT_COLUMNS, () => []);

export class IndexTable {
  private capacity: number;
  length = 0;
  /** The ids as strings: of every row, or with `packed`, of the rows after the file's. */
  private idList: string[] = [];
  private packed: PackedIds | null = null;
  private readonly byId: IdIndex;
  /** The columns' storage, for the decoder (no decode on access); readers use the getters. */
  readonly raw: RawColumns;
  private lazy: Lazy | null = null;
  private readonly interned = new Map<string, string>();
  private readonly snapshots = new Set<TableSnapshot>();

  /** `untouched`: rows `[0, untouched)` of the cold numeric columns are left unfilled (a group decode sets them). */
  constructor(capacity = 1024, untouched = 0) {
    this.capacity = Math.max(16, capacity);
    this.byId = new IdIndex((row) => this.idAt(row), this.capacity);
    const from = Math.min(untouched, this.capacity);
    this.raw = {
      flags: columnRecord(FLAG_COLUMNS, () => new Uint8Array(this.capacity)),
      imageCount: new Int32Array(this.capacity),
      sizes: columnRecord(SIZE_COLUMNS, () => new Float64Array(this.capacity).fill(NaN, from)),
      times: columnRecord(TIME_COLUMNS, (c) =>
        new Float64Array(this.capacity).fill(NaN, c === 'pdf_uploaded_at' ? 0 : from),
      ),
      hex: columnRecord(HEX_COLUMNS, (c) => new HexColumn(HEX_SHAPES[c], this.capacity)),
      text: emptyText(),
    };
  }

  /**
   * A table of the `rows` rows of a file whose cold columns `source` decodes on first use; the caller fills the
   * hot columns (`ids`, `raw`) and then calls `indexRows`. `headroom`: rows that can be added before arrays grow.
   */
  static opened(rows: number, source: ColdSource, headroom: number, idBytes: number): IndexTable {
    const table = new IndexTable(rows + headroom, rows);
    table.packed = new PackedIds(rows, idBytes);
    const groups = source.groupStarts.length - 1;
    table.lazy = {
      source,
      rows,
      progress: new Int32Array(groups),
      ahead: new Uint32Array(groups),
      halfDone: new Set(),
      left: groups,
      text: new Array<Partial<TextRecord> | undefined>(groups).fill(undefined),
      extra: emptyText(),
      failure: null,
      images: 0,
      keyIsId: new Uint8Array(rows),
    };
    table.allocate(rows);
    if (groups === 0) table.flatten();
    return table;
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

  /** The id column as strings (an opened table's packed ids become strings for good: prefer `idAt`). */
  get ids(): string[] {
    const packed = this.packed;
    if (packed !== null) {
      this.idList = this.idSlice(0, this.length);
      this.packed = null;
    }
    return this.idList;
  }

  /** Row `i`'s `preprint_id`. */
  idAt(i: number): string {
    const packed = this.packed;
    if (packed === null) return this.idList[i]!;
    if (i >= packed.rows) return this.idList[i - packed.rows]!;
    return packed.at(i);
  }

  /** The ids of rows `[start, end)`. */
  idSlice(start: number, end: number): string[] {
    const packed = this.packed;
    if (packed === null) return this.idList.slice(start, end);
    if (end <= packed.rows) return packed.slice(start, end);
    const out = packed.slice(start, packed.rows);
    for (let i = Math.max(start, packed.rows); i < end; i++) out.push(this.idList[i - packed.rows]!);
    return out;
  }

  /**
   * Calls `visit` with the ids of rows `[start, end)` as UTF-8 bytes (`bytes[0, length)`, valid during the call),
   * without making strings where they are packed.
   */
  eachIdBytes(start: number, end: number, visit: (i: number, bytes: Buffer, length: number) => void): void {
    const packed = this.packed;
    let i = start;
    if (packed !== null && i < packed.rows) {
      i = Math.min(end, packed.rows);
      packed.eachBytes(start, i, visit);
    }
    for (; i < end; i++) {
      const bytes = Buffer.from(this.idAt(i));
      visit(i, bytes, bytes.length);
    }
  }

  /** Whether the decoder packs the ids (`packId`) rather than setting `ids`. */
  get packingIds(): boolean {
    return this.packed !== null;
  }

  /** Sets row `row`'s id from UTF-8 bytes `src[start, end)`; rows come in order, from 0 (the decoder). */
  packId(row: number, src: Uint8Array, start: number, end: number): void {
    this.packed!.add(row, src, start, end);
  }

  /** After the decoder packed the ids: checks that every row has one, and frees the room left over. */
  sealIds(): void {
    this.packed?.seal();
  }

  get flags(): Record<FlagColumn, Uint8Array> {
    return this.raw.flags;
  }

  get imageCount(): Int32Array {
    this.decodeGroups();
    return this.raw.imageCount;
  }

  /** Row `i`'s `image_count` (that column of its group decoded first). */
  imageCountAt(i: number): number {
    this.prepareColumns(i, ['image_count']);
    return this.raw.imageCount[i]!;
  }

  /** Σ `image_count` of every row, without decoding (an opened table keeps it from the open on). */
  imageTotal(): number {
    if (this.lazy !== null) return this.lazy.images;
    let total = 0;
    for (let i = 0; i < this.length; i++) total += this.raw.imageCount[i]!;
    return total;
  }

  /** Adds the decoder's sum of the file's `image_count` cells (left cold) to `imageTotal` (a file without rows: 0). */
  fileImages(total: number): void {
    if (this.lazy !== null) this.lazy.images += total;
  }

  /** `pdf_uploaded_at` (a hot column: no decode). */
  get pdfUploadedAt(): Float64Array {
    return this.raw.times.pdf_uploaded_at;
  }

  get sizes(): Record<SizeColumn, Float64Array> {
    this.decodeGroups();
    return this.raw.sizes;
  }

  get times(): Record<TimeColumn, Float64Array> {
    this.decodeGroups();
    return this.raw.times;
  }

  get hex(): Record<HexColumnName, HexColumn> {
    this.decodeGroups();
    return this.raw.hex;
  }

  get text(): TextRecord {
    this.decodeCold();
    return this.raw.text;
  }

  /** Whether cold columns of the file are still to decode. */
  get partlyDecoded(): boolean {
    return this.lazy !== null && this.lazy.left > 0;
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
    const raw = this.raw;
    raw.flags = columnRecord(FLAG_COLUMNS, (c) => grow(raw.flags[c]));
    raw.imageCount = grow(raw.imageCount);
    raw.sizes = columnRecord(SIZE_COLUMNS, (c) => grow(raw.sizes[c], NaN));
    raw.times = columnRecord(TIME_COLUMNS, (c) => grow(raw.times[c], NaN));
    for (const c of HEX_COLUMNS) raw.hex[c].grow(capacity);
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
    const lazy = this.lazy;
    const text = lazy === null ? this.raw.text : lazy.extra;
    const offset = lazy === null ? 0 : lazy.rows;
    for (const c of TEXT_COLUMNS) {
      const column = text[c];
      const from = Math.max(0, start - offset);
      column.length = Math.max(0, this.length - offset);
      column.fill(null, from);
    }
    const packed = this.packed;
    this.idList.length = packed === null ? this.length : Math.max(0, this.length - packed.rows);
    return start;
  }

  /** The row group of file row `i` (`i` < the file's rows). */
  private groupOf(i: number): number {
    const starts = this.lazy!.source.groupStarts;
    let lo = 0;
    let hi = starts.length - 2;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (starts[mid]! <= i) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /**
   * Runs the next slice of a decode step of group `g`; returns whether the group is now decoded. A failure closes
   * the file and is kept: the table throws it (a `ColdReadError`) at every later cold access.
   */
  private advance(g: number): boolean {
    const lazy = this.lazy!;
    const steps = lazy.source.steps(g);
    if (lazy.progress[g]! >= steps) return true;
    if (lazy.failure !== null) throw lazy.failure;
    lazy.text[g] ??= {};
    try {
      if (!lazy.source.step(this, g, lazy.progress[g]!)) {
        lazy.halfDone.add(g);
        return false;
      }
    } catch (err) {
      throw this.fail(lazy, err, g);
    }
    lazy.halfDone.delete(g);
    lazy.progress[g]!++;
    while (lazy.progress[g]! < steps && ((lazy.ahead[g]! >>> lazy.progress[g]!) & 1) === 1) lazy.progress[g]!++;
    if (lazy.progress[g]! < steps) return false;
    // Every group decoded: the file is not read again (the text cells stay per group until a whole-column read).
    if (--lazy.left === 0) lazy.source.close();
    return true;
  }

  /** Records why the file cannot be read (`err`, while decoding group `g`), closes it, and returns the error. */
  private fail(lazy: Lazy, err: unknown, g: number): ColdReadError {
    lazy.failure ??=
      err instanceof ColdReadError
        ? err
        : new ColdReadError(`index row group ${g}: ${(err as Error).message}`, false, { cause: err });
    lazy.source.close();
    return lazy.failure;
  }

  /**
   * Decodes the cold columns of row `i`'s group, if it is a row of the file not decoded yet. Throws a
   * `ColdReadError` when the file cannot be read (a writer calls it before changing anything).
   */
  prepare(i: number): void {
    const lazy = this.lazy;
    if (lazy === null || i >= lazy.rows) return;
    const g = this.groupOf(i);
    while (!this.advance(g));
  }

  /**
   * Decodes `columns` of row `i`'s group, if it is a row of the file (hot columns and other names: nothing to do).
   * A writer calls it with the columns it reads and writes before changing anything: a write decodes no other
   * column (a row's upload does not make strings of its group's 16,384 titles and author lists), and a file that
   * cannot be read throws its `ColdReadError` here, before any change.
   */
  prepareColumns(i: number, columns: Iterable<string>): void {
    const lazy = this.lazy;
    if (lazy === null || i >= lazy.rows) return;
    const g = this.groupOf(i);
    for (const column of columns) {
      if (COLD_COLUMNS.has(column)) this.decodeGroupColumn(g, column as ColumnSpec['name']);
    }
  }

  /**
   * Checks that every cold chunk not decoded yet decodes (into scratch tables, dropped): a slice per `pause`, so the
   * event loop is held a few milliseconds at a time. Rejects with the `ColdReadError` of the first failure (the
   * table then fails every later cold access); stops early once the table is decoded or released.
   */
  async validate(pause: () => Promise<void>): Promise<void> {
    for (let g = 0; ; g++) {
      const lazy = this.lazy;
      if (lazy === null || g >= lazy.progress.length) return;
      if (lazy.failure !== null) throw lazy.failure;
      if (lazy.progress[g]! >= lazy.source.steps(g)) continue;
      const slices = lazy.source.check(g);
      for (;;) {
        try {
          if (slices.next().done === true) break;
        } catch (err) {
          throw this.fail(lazy, err, g);
        }
        await pause();
        // Decoded meanwhile (a request, a flush), failed or released: nothing left to check in this group.
        if (this.lazy !== lazy || lazy.failure !== null || lazy.progress[g]! >= lazy.source.steps(g)) {
          slices.return();
          break;
        }
      }
    }
  }

  /**
   * Closes the file now (the table was replaced by a reload): rows not decoded yet can no longer be read, so only a
   * table nobody reads any more is released. Idempotent.
   */
  release(): void {
    const lazy = this.lazy;
    if (lazy === null) return;
    lazy.failure ??= new ColdReadError('index table released (replaced by a reload)');
    lazy.source.close();
  }

  /** Decodes every cold column now (blocking); the text stays per row group. */
  private decodeGroups(): void {
    const lazy = this.lazy;
    if (lazy === null) return;
    for (let g = 0; g < lazy.progress.length; g++) while (!this.advance(g));
  }

  /** Decodes every cold column now and makes the text plain columns (blocking: ~170 ms for 2.6M rows). */
  private decodeCold(): void {
    this.decodeGroups();
    if (this.lazy !== null) this.flatten();
  }

  /**
   * Decodes every cold column, a slice at a time, awaiting `pause` between slices (an in-place encode's first step).
   * The text stays per row group: one plain 2.6M-cell array costs ~10 ms to allocate at once.
   */
  async decodeAll(pause: () => Promise<void>): Promise<void> {
    for (let g = 0; this.lazy !== null && g < this.lazy.progress.length;) {
      if (this.advance(g)) g++;
      await pause();
    }
  }

  /** Once every group is decoded: the text of the groups into plain columns, and the file released. */
  private flatten(): void {
    const lazy = this.lazy!;
    const starts = lazy.source.groupStarts;
    const nulls = (g: number) => new Array<string | null>(starts[g + 1]! - starts[g]!).fill(null);
    this.raw.text = columnRecord(TEXT_COLUMNS, (c) =>
      ([] as (string | null)[]).concat(...lazy.text.map((t, g) => t![c] ?? nulls(g)), lazy.extra[c]),
    );
    const key = this.raw.text.key;
    this.eachIdBytes(0, lazy.rows, (i, bytes, length) => {
      if (lazy.keyIsId[i] === 1) key[i] = bytes.toString('utf8', 0, length);
    });
    this.lazy = null;
    lazy.source.close();
  }

  /** Text cell `i` of `column` (its group decoded). */
  private textAt(i: number, column: TextColumn): string | null {
    const lazy = this.lazy;
    if (lazy === null) return this.raw.text[column][i] ?? null;
    if (i >= lazy.rows) return lazy.extra[column][i - lazy.rows] ?? null;
    if (column === 'key' && lazy.keyIsId[i] === 1) return this.idAt(i);
    const g = this.groupOf(i);
    return lazy.text[g]![column]?.[i - lazy.source.groupStarts[g]!] ?? null;
  }

  /** Sets text cell `i` of `column` without decoding first (the decoder; shared strings for few-valued columns). */
  setText(i: number, column: TextColumn, s: string | null): void {
    const value = s !== null && INTERNED.has(column) ? this.intern(s) : s;
    const lazy = this.lazy;
    if (lazy === null) this.raw.text[column][i] = value;
    else if (i >= lazy.rows) lazy.extra[column][i - lazy.rows] = value;
    else {
      if (column === 'key') lazy.keyIsId[i] = 0;
      const g = this.groupOf(i);
      const starts = lazy.source.groupStarts;
      const cells = lazy.text[g]!;
      if (value !== null) cells[column] ??= new Array<string | null>(starts[g + 1]! - starts[g]!).fill(null);
      const at = cells[column];
      if (at !== undefined) at[i - starts[g]!] = value;
    }
  }

  /** Sets row `i`'s `key` to its id: of a file row, the mark `keyIsId` (no string kept); of another, the id itself. */
  setKeyToId(i: number): void {
    const lazy = this.lazy;
    if (lazy === null || i >= lazy.rows) return this.setText(i, 'key', this.idAt(i));
    this.setText(i, 'key', null);
    lazy.keyIsId[i] = 1;
  }

  /**
   * Builds the id map after a bulk decode. A duplicate id keeps its last row's values (in the first row), and the
   * later duplicates are dropped.
   */
  indexRows(): void {
    let ascending: boolean | undefined;
    if (this.packed !== null) {
      ascending = this.packed.ascending;
      // Other orders are hashed, which reads every id: as strings.
      if (!ascending) void this.ids;
    }
    if (this.byId.bulk(this.length, ascending)) this.dropDuplicates();
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
    this.decodeCold();
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

  /**
   * Row `i`'s fields of the needs-parser listing (§9.2), decoding no more of its row group than its `key` and `yymm`
   * chunks: a page of 100 candidates touches ~100 of 160 groups of a 2.6M-row file, and decoding them whole held
   * the event loop ~0.9 s and added ~370 MiB.
   */
  queueRow(i: number): QueueRow {
    const lazy = this.lazy;
    if (lazy !== null && i < lazy.rows) {
      const g = this.groupOf(i);
      this.decodeGroupColumn(g, 'key');
      this.decodeGroupColumn(g, 'yymm');
    }
    const t = this.raw.times.pdf_uploaded_at[i]!;
    return {
      preprint_id: this.idAt(i),
      key: this.textAt(i, 'key') ?? '',
      yymm: this.textAt(i, 'yymm') ?? '',
      pdf_uploaded_at: Number.isNaN(t) ? null : new Date(t),
    };
  }

  /**
   * Calls `visit` with each row's `column` cell (null where it has none), in row order. Of an opened table's file
   * rows only that column's chunks are decoded, not the groups' other columns: a read of one column over every row
   * (the DOI lookup's map, a list filter's titles) costs that column alone, where decoding every column of 2.6M rows
   * took seconds and ~750 MiB.
   */
  forEachCell(column: TextColumn, visit: (i: number, value: string | null) => void): void {
    const lazy = this.lazy;
    if (lazy !== null && column === 'key') {
      // Keys kept as marks read as their ids.
      for (let i = 0; i < this.length; i++) {
        if (i < lazy.rows) this.decodeGroupColumn(this.groupOf(i), 'key');
        visit(i, this.textAt(i, 'key'));
      }
      return;
    }
    const each = (cells: readonly (string | null)[] | undefined, first: number, count: number) => {
      for (let r = 0; r < count; r++) visit(first + r, cells?.[r] ?? null);
    };
    if (lazy === null) return each(this.raw.text[column], 0, this.length);
    const starts = lazy.source.groupStarts;
    for (let g = 0; g + 1 < starts.length; g++) {
      this.decodeGroupColumn(g, column);
      each(lazy.text[g]?.[column], starts[g]!, starts[g + 1]! - starts[g]!);
    }
    each(lazy.extra[column], lazy.rows, this.length - lazy.rows);
  }

  /** Calls `visit` with each row's `column` cell that is not null, in row order (see `forEachCell`). */
  forEachText(column: TextColumn, visit: (i: number, value: string) => void): void {
    this.forEachCell(column, (i, value) => {
      if (value !== null) visit(i, value);
    });
  }

  /** Time column `column` of every row (the table's own array), decoding of the file's rows that column only. */
  timeColumn(column: TimeColumn): Float64Array {
    const lazy = this.lazy;
    if (lazy !== null) for (let g = 0; g + 1 < lazy.source.groupStarts.length; g++) this.decodeGroupColumn(g, column);
    return this.raw.times[column];
  }

  /** What a page of the paper list shows of row `i`: its group's other columns are not decoded. */
  listRow(i: number): ListRow {
    const lazy = this.lazy;
    if (lazy !== null && i < lazy.rows) {
      const g = this.groupOf(i);
      for (const column of ['title', 'image_count', 'updated_at'] as const) this.decodeGroupColumn(g, column);
    }
    const { flags, imageCount, times } = this.raw;
    return {
      preprint_id: this.idAt(i),
      title: this.textAt(i, 'title'),
      has_pdf: flags.has_pdf[i] === 1,
      has_md: flags.has_md[i] === 1,
      image_count: imageCount[i]!,
      updated_at: new Date(times.updated_at[i]!),
    };
  }

  /**
   * Runs the step of group `g` that decodes `column` ahead of the group's other steps: each step writes its own
   * column only. A step run ahead is marked in `ahead`, and `advance` skips it; a step a sliced decode left half done
   * ends first (the source runs one step of a group at a time).
   */
  private decodeGroupColumn(g: number, column: ColumnSpec['name']): void {
    const lazy = this.lazy!;
    // Without a chunk of the column, step 0 (which sets its default) is the one to run.
    const k = Math.max(0, lazy.source.stepOf(g, column));
    if (k < lazy.progress[g]! || ((lazy.ahead[g]! >>> k) & 1) === 1) return;
    if (lazy.halfDone.has(g) || k === lazy.progress[g]) {
      const at = lazy.progress[g]!;
      while (lazy.progress[g] === at && !this.advance(g));
      return this.decodeGroupColumn(g, column);
    }
    if (lazy.failure !== null) throw lazy.failure;
    lazy.text[g] ??= {};
    try {
      while (!lazy.source.step(this, g, k));
    } catch (err) {
      throw this.fail(lazy, err, g);
    }
    lazy.ahead[g]! |= 1 << k;
  }

  /**
   * The row groups of the file overlapping rows `[start, end)` with columns not decoded yet: no row's cell of such a
   * column was written (a write decodes the columns it writes first), so a flush can copy them from the file
   * (`inFile`).
   */
  fileGroupsIn(start: number, end: number): number[] {
    const lazy = this.lazy;
    if (lazy === null || start >= Math.min(end, lazy.rows)) return [];
    const starts = lazy.source.groupStarts;
    const out: number[] = [];
    for (let g = this.groupOf(start); g + 1 < starts.length && starts[g]! < end; g++) {
      if (lazy.progress[g]! < lazy.source.steps(g)) out.push(g);
    }
    return out;
  }

  /**
   * Whether cold column `column` of file group `g` is not decoded: its cells are the file's (`plainText`,
   * `typedInto`), none written.
   */
  inFile(g: number, column: ColumnSpec['name']): boolean {
    const lazy = this.lazy;
    return (
      lazy !== null && g < lazy.progress.length && COLD_COLUMNS.has(column) && !this.columnDecoded(lazy, g, column)
    );
  }

  /** Decodes typed cold column `column` of file group `g` into `into`'s first rows, a slice per `next()` (see `ColdSource.typedInto`). */
  typedInto(g: number, column: ColumnSpec['name'], into: IndexTable): Generator<void, void> {
    return this.fileRead(g, () => this.lazy!.source.typedInto(g, column, into));
  }

  /** Text column `column` of file group `g` as the file holds it, a slice per `next()` (see `ColdSource.plainText`). */
  plainText(g: number, column: TextColumn): Generator<void, PlainText | null> {
    return this.fileRead(g, () => this.lazy!.source.plainText(g, column));
  }

  /** A sliced read of file group `g` (`read`), whose failure makes the file unreadable like a decode's. */
  private *fileRead<T>(g: number, read: () => Generator<void, T>): Generator<void, T> {
    const lazy = this.lazy!;
    if (lazy.failure !== null) throw lazy.failure;
    try {
      return yield* read();
    } catch (err) {
      throw this.fail(lazy, err, g);
    }
  }

  /** The first row of file group `g`. */
  groupStart(g: number): number {
    return this.lazy!.source.groupStarts[g]!;
  }

  /** The rows of file group `g`. */
  groupRows(g: number): number {
    const starts = this.lazy!.source.groupStarts;
    return starts[g + 1]! - starts[g]!;
  }

  /** A table of `rows` rows to decode a group's columns into (`typedInto`). */
  static scratch(rows: number): IndexTable {
    const table = new IndexTable(rows);
    table.allocate(rows);
    return table;
  }

  /**
   * Calls `visit` for each piece `[from, to)` of rows `[start, end)` within one row group `g` of the file, in row
   * order, then for the rows after the file's (`g` -1).
   */
  forEachGroupPiece(start: number, end: number, visit: (g: number, from: number, to: number) => void): void {
    const lazy = this.lazy;
    let i = start;
    if (lazy !== null && i < lazy.rows) {
      const starts = lazy.source.groupStarts;
      for (let g = this.groupOf(i); i < Math.min(end, lazy.rows); g++) {
        const stop = Math.min(end, starts[g + 1]!);
        visit(g, i, stop);
        i = stop;
      }
    }
    if (i < end) visit(-1, i, end);
  }

  private columnDecoded(lazy: Lazy, g: number, column: ColumnSpec['name']): boolean {
    const k = Math.max(0, lazy.source.stepOf(g, column));
    return k < lazy.progress[g]! || ((lazy.ahead[g]! >>> k) & 1) === 1;
  }

  /** Packs the ids of rows `[start, end)` into `packer` (an opened file's as the bytes they are kept as). */
  packIds(start: number, end: number, packer: StringPacker): void {
    const packed = this.packed;
    let i = start;
    if (packed !== null && start < packed.rows) {
      i = Math.min(end, packed.rows);
      packed.eachBytes(start, i, (_, bytes, length) => packer.bytes(bytes, 0, length));
    }
    for (; i < end; i++) packer.string(this.idAt(i));
  }

  /**
   * Packs text column `column` of rows `[start, end)` into `packer`: the rows of a group whose column is not decoded
   * (`inFile`) from `plain(g)`, the column as the file holds it; the others from their strings, or from `saved`
   * for a row there.
   */
  packText(
    column: TextColumn,
    start: number,
    end: number,
    packer: StringPacker,
    plain: (g: number) => PlainText | null,
    saved: ReadonlyMap<number, IndexRow>,
  ): void {
    const isSaved = (i: number) => saved.size > 0 && saved.has(i);
    const cell = (i: number) => (isSaved(i) ? saved.get(i)![column] : this.textAt(i, column));
    const marks = column === 'key' ? this.lazy?.keyIsId : undefined;
    this.forEachGroupPiece(start, end, (g, from, to) => {
      if (g >= 0 && this.inFile(g, column)) {
        const text = plain(g);
        const first = this.groupStart(g);
        if (text === null) packer.nulls(to - from);
        else packer.plain(text, from - first, to - first);
      } else if (g >= 0 && marks !== undefined) {
        // A key kept as a mark is packed from its id's bytes, no string made.
        this.eachIdBytes(from, to, (i, bytes, length) => {
          if (marks[i] === 1 && !isSaved(i)) packer.bytes(bytes, 0, length);
          else packer.string(cell(i));
        });
      } else for (let i = from; i < to; i++) packer.string(cell(i));
    });
  }

  /** The row as an object (a fresh one on every call). */
  row(i: number): IndexRow {
    this.prepare(i);
    const { flags, imageCount, sizes, times, hex } = this.raw;
    const date = (t: number) => (Number.isNaN(t) ? null : new Date(t));
    const num = (n: number) => (Number.isNaN(n) ? null : n);
    return {
      preprint_id: this.idAt(i),
      key: this.textAt(i, 'key') ?? '',
      yymm: this.textAt(i, 'yymm') ?? '',
      has_pdf: flags.has_pdf[i] === 1,
      has_md: flags.has_md[i] === 1,
      has_json: flags.has_json[i] === 1,
      image_count: imageCount[i]!,
      pdf_size_bytes: num(sizes.pdf_size_bytes[i]!),
      md_size_bytes: num(sizes.md_size_bytes[i]!),
      images_size_bytes: num(sizes.images_size_bytes[i]!),
      pdf_sha256: hex.pdf_sha256.get(i),
      md_sha256: hex.md_sha256.get(i),
      pdf_etag: hex.pdf_etag.get(i),
      md_etag: hex.md_etag.get(i),
      pdf_uploaded_at: date(times.pdf_uploaded_at[i]!),
      md_uploaded_at: date(times.md_uploaded_at[i]!),
      images_uploaded_at: date(times.images_uploaded_at[i]!),
      updated_at: new Date(times.updated_at[i]!),
      title: this.textAt(i, 'title'),
      authors: this.textAt(i, 'authors'),
      categories: this.textAt(i, 'categories'),
      doi: this.textAt(i, 'doi'),
      openalex_id: this.textAt(i, 'openalex_id'),
      publication_date: this.textAt(i, 'publication_date'),
    };
  }

  *rows(): IterableIterator<IndexRow> {
    for (let i = 0; i < this.length; i++) yield this.row(i);
  }

  /** Sets one cell from a row-object value (null/undefined → null; flags null → false; image_count null → 0). */
  setCell(i: number, column: string, value: unknown): void {
    this.prepareColumns(i, [column]);
    const raw = this.raw;
    if (FLAGS.has(column)) raw.flags[column as FlagColumn][i] = value === true ? 1 : 0;
    else if (column === 'image_count') {
      const count = Math.trunc(Number(value ?? 0)) || 0;
      if (this.lazy !== null) this.lazy.images += count - raw.imageCount[i]!;
      raw.imageCount[i] = count;
    } else if (SIZES.has(column)) raw.sizes[column as SizeColumn][i] = value == null ? NaN : Math.trunc(Number(value));
    else if (TIMES.has(column)) {
      const t = value == null ? NaN : value instanceof Date ? value.getTime() : new Date(value as string).getTime();
      raw.times[column as TimeColumn][i] = column === 'updated_at' && Number.isNaN(t) ? 0 : t;
    } else if (HEXES.has(column)) raw.hex[column as HexColumnName].set(i, value == null ? null : String(value));
    else if (column === 'key') {
      const s = value == null ? null : String(value);
      if (s !== null && s === this.idAt(i)) this.setKeyToId(i);
      else this.setText(i, 'key', s);
    } else if ((TEXT_COLUMNS as readonly string[]).includes(column)) {
      this.setText(i, column as TextColumn, value == null ? null : String(value));
    }
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
    const packed = this.packed;
    this.idList[packed === null ? i : i - packed.rows] = row.preprint_id;
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
