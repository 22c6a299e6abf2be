/**
 * Column data of a range of rows as plain arrays and typed arrays (`ColumnChunk`), and what the Parquet encoder
 * reads (`EncodableChunk`). `TableSnapshot` cuts chunks out of a live table at one point in time: a row changed
 * after the snapshot was taken is served from a saved copy. A chunk is posted to the encoder worker with its strings
 * packed as UTF-8 bytes (`PostedChunk`), which the worker keeps as they came (`PackedColumn`): its heap never holds
 * the rows' strings, whose collections there, on the cores this thread shares, stalled the event loop (issue 25).
 * Rows of an opened file still as the file holds them are packed from the file's bytes, so neither thread makes
 * their strings.
 */
import {
  FLAG_COLUMNS,
  HEX_COLUMNS,
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
import { freeNow } from './free-now.js';
import type { PlainText } from './plain-text.js';
import type { IndexRow } from './row.js';
import { IndexTable } from './table.js';

export interface HexChunk {
  /** Packed values (`state` 1), `width` bytes a row. */
  readonly bytes: Uint8Array;
  /** 0 null, 1 packed, 2 in `other`. */
  readonly state: Uint8Array;
  /** [row within the chunk, value] for state 2. */
  readonly other: [number, string][];
}

export interface ColumnChunk {
  readonly count: number;
  readonly ids: string[];
  readonly text: Record<TextColumn, (string | null)[]>;
  readonly flags: Record<FlagColumn, Uint8Array>;
  readonly imageCount: Int32Array;
  readonly sizes: Record<SizeColumn, Float64Array>;
  readonly times: Record<TimeColumn, Float64Array>;
  readonly hex: Record<HexColumnName, HexChunk>;
}

/** A string column as the encoder reads it: a plain array (the table's, a chunk's), or UTF-8 bytes. */
export type StringColumn = readonly (string | null)[] | PackedColumn;

/** What the Parquet encoder reads: a `ColumnChunk` whose string columns may be packed. */
export type EncodableChunk = Omit<ColumnChunk, 'ids' | 'text'> & {
  readonly ids: StringColumn;
  readonly text: Record<TextColumn, StringColumn>;
};

/** The string columns of `count` rows as UTF-8 bytes: `preprint_id`, then `TEXT_COLUMNS`, each row after row. */
export interface PackedStrings {
  readonly count: number;
  readonly bytes: Uint8Array;
  /** Where value `column * count + row` ends in `bytes` (it starts where the value before it ends). */
  readonly ends: Int32Array;
  /** 1 where that value is null. */
  readonly nulls: Uint8Array;
}

/** A chunk as posted to the encoder worker. */
export type PostedChunk = Omit<ColumnChunk, 'ids' | 'text'> & { readonly strings: PackedStrings };

/**
 * Reused between the chunks of a snapshot (one per snapshot: a chunk is packed over several turns): a chunk's
 * strings are written here, then copied out at their size.
 */
class PackScratch {
  buffer = Buffer.alloc(0);
}

/**
 * Writes the string columns of a chunk (`PackedStrings`), value after value: from strings (a lone surrogate becomes
 * U+FFFD, as the encoder writes it), from UTF-8 bytes, or from a file's values (`PlainText`) without making strings.
 */
export class StringPacker {
  private at = 0;
  private j = 0;
  private readonly ends: Int32Array;
  private readonly nullMarks: Uint8Array;

  constructor(
    private readonly count: number,
    columns: number,
    private readonly scratch: PackScratch,
  ) {
    this.ends = new Int32Array(columns * count);
    this.nullMarks = new Uint8Array(columns * count);
  }

  /** Room for `n` more bytes in the scratch buffer. */
  private room(n: number): Buffer {
    const scratch = this.scratch;
    if (scratch.buffer.length - this.at < n) {
      const next = Buffer.allocUnsafe(Math.max(scratch.buffer.length * 2, this.at + n, 1 << 20));
      scratch.buffer.copy(next, 0, 0, this.at);
      scratch.buffer = next;
    }
    return scratch.buffer;
  }

  string(s: string | null | undefined): void {
    if (s == null) return this.nulls(1);
    this.at += this.room(s.length * 3).write(s, this.at);
    this.ends[this.j++] = this.at;
  }

  /** A value given as UTF-8 bytes `src[from, to)`. */
  bytes(src: Uint8Array, from: number, to: number): void {
    const out = this.room(to - from);
    let at = this.at;
    for (let k = from; k < to; k++) out[at++] = src[k]!;
    this.at = at;
    this.ends[this.j++] = at;
  }

  nulls(n: number): void {
    for (let k = 0; k < n; k++) {
      this.nullMarks[this.j] = 1;
      this.ends[this.j++] = this.at;
    }
  }

  /** Rows `[from, to)` of a file's column (their bytes as stored). */
  plain(text: PlainText, from: number, to: number): void {
    const { bytes, offsets, nulls } = text;
    const out = this.room(offsets[to]! - offsets[from]!);
    let at = this.at;
    for (let r = from; r < to; r++) {
      if (nulls[r] === 1) this.nullMarks[this.j] = 1;
      else for (let k = offsets[r]! + 4, e = offsets[r + 1]!; k < e; k++) out[at++] = bytes[k]!;
      this.ends[this.j++] = at;
    }
    this.at = at;
  }

  /** The packed values, once `count` values of each column were written. */
  finish(): PackedStrings {
    if (this.j !== this.ends.length) throw new Error(`packed ${this.j} of ${this.ends.length} values`);
    const bytes = new Uint8Array(this.scratch.buffer.subarray(0, this.at));
    return { count: this.count, bytes, ends: this.ends, nulls: this.nullMarks };
  }
}

const utf8 = new TextDecoder();

/**
 * One string column of packed chunks (`PackedStrings` of `partRows` rows each, the last one possibly fewer), read
 * by row number without making strings: `seek` points `bytes`, `from` and `to` at a value.
 */
export class PackedColumn {
  bytes: Uint8Array = new Uint8Array(0);
  from = 0;
  to = 0;
  private part: PackedStrings | null = null;

  constructor(
    private readonly parts: readonly PackedStrings[],
    private readonly column: number,
    private readonly partRows: number,
  ) {}

  /** Points `part` (and `bytes`) at the part holding row `r`; returns the value's index there. */
  private locate(r: number): number {
    const p = this.parts[Math.floor(r / this.partRows)]!;
    this.part = p;
    this.bytes = p.bytes;
    return this.column * p.count + (r % this.partRows);
  }

  isNull(r: number): boolean {
    const j = this.locate(r);
    return this.part!.nulls[j] === 1;
  }

  /** Points `bytes`, `from`, `to` at row `r`'s value (empty when null). */
  seek(r: number): void {
    const j = this.locate(r);
    const ends = this.part!.ends;
    this.from = j === 0 ? 0 : ends[j - 1]!;
    this.to = ends[j]!;
  }

  get(r: number): string | null {
    if (this.isNull(r)) return null;
    this.seek(r);
    return utf8.decode(this.bytes.subarray(this.from, this.to));
  }

  /** Orders rows `a` and `b` as their strings compare (`<`: UTF-16 code units), bytes first. */
  compare(a: number, b: number): number {
    this.seek(a);
    const x = this.bytes;
    const xFrom = this.from;
    const xLen = this.to - xFrom;
    this.seek(b);
    const y = this.bytes;
    const yLen = this.to - this.from;
    for (let i = 0, n = Math.min(xLen, yLen); i < n; i++) {
      const u = x[xFrom + i]!;
      const v = y[this.from + i]!;
      if (u === v) continue;
      // UTF-8 bytes order as code points, and those as UTF-16 code units only below U+E000: compare the strings.
      if (u >= 0x80 && v >= 0x80) {
        const s = this.get(a)!;
        const t = this.get(b)!;
        return s < t ? -1 : s > t ? 1 : 0;
      }
      return u - v;
    }
    return xLen - yLen;
  }
}

/** The buffers of a posted chunk (to transfer rather than copy). */
export function chunkBuffers(c: PostedChunk): ArrayBuffer[] {
  return [
    c.strings.bytes.buffer,
    c.strings.ends.buffer,
    c.strings.nulls.buffer,
    ...FLAG_COLUMNS.map((k) => c.flags[k].buffer),
    c.imageCount.buffer,
    ...SIZE_COLUMNS.map((k) => c.sizes[k].buffer),
    ...TIME_COLUMNS.map((k) => c.times[k].buffer),
    ...HEX_COLUMNS.flatMap((k) => [c.hex[k].bytes.buffer, c.hex[k].state.buffer]),
  ] as ArrayBuffer[];
}

/**
 * Assembles the posted chunks of `count` rows (added in row order) into one `EncodableChunk`: typed columns are
 * copied into place as each chunk arrives, and its strings are kept as they came (`PackedColumn`). The rows are
 * never held twice, and no JS string of them is made here.
 */
export class ChunkAssembler {
  private readonly all: Omit<ColumnChunk, 'ids' | 'text'>;
  private readonly parts: PackedStrings[] = [];
  private at = 0;

  constructor(
    readonly count: number,
    private readonly widths: Record<HexColumnName, number>,
  ) {
    this.all = {
      count,
      flags: columnRecord(FLAG_COLUMNS, () => new Uint8Array(count)),
      imageCount: new Int32Array(count),
      sizes: columnRecord(SIZE_COLUMNS, () => new Float64Array(count)),
      times: columnRecord(TIME_COLUMNS, () => new Float64Array(count)),
      hex: columnRecord(HEX_COLUMNS, (k) => ({
        bytes: new Uint8Array(count * widths[k]),
        state: new Uint8Array(count),
        other: [],
      })),
    };
  }

  add(c: PostedChunk): void {
    const { all, at } = this;
    if (at + c.count > this.count) throw new Error(`chunks hold more than ${this.count} rows`);
    const first = this.parts[0];
    if (first !== undefined && (c.count > first.count || (c.count < first.count && at + c.count !== this.count))) {
      throw new Error(`a chunk of ${c.count} rows after chunks of ${first.count}`);
    }
    this.parts.push(c.strings);
    for (const k of FLAG_COLUMNS) all.flags[k].set(c.flags[k], at);
    all.imageCount.set(c.imageCount, at);
    for (const k of SIZE_COLUMNS) all.sizes[k].set(c.sizes[k], at);
    for (const k of TIME_COLUMNS) all.times[k].set(c.times[k], at);
    for (const k of HEX_COLUMNS) {
      const h = all.hex[k];
      h.bytes.set(c.hex[k].bytes, at * this.widths[k]);
      h.state.set(c.hex[k].state, at);
      for (const [r, v] of c.hex[k].other) h.other.push([at + r, v]);
    }
    this.at += c.count;
  }

  /** The assembled rows, once every chunk was added. */
  result(): EncodableChunk {
    if (this.at !== this.count) throw new Error(`chunks hold ${this.at} of ${this.count} rows`);
    const partRows = this.parts[0]?.count ?? 1;
    return {
      ...this.all,
      ids: new PackedColumn(this.parts, 0, partRows),
      text: columnRecord(TEXT_COLUMNS, (k) => new PackedColumn(this.parts, 1 + TEXT_COLUMNS.indexOf(k), partRows)),
    };
  }
}

export class TableSnapshot {
  /** Rows changed since the snapshot: their values at snapshot time. */
  private readonly saved = new Map<number, IndexRow>();
  /** Text columns of file groups read for `posted` (by `plainKey`), until a chunk past the group is cut. */
  private readonly plain = new Map<number, PlainText | null>();
  /** Typed columns of file groups decoded for `posted`, likewise; and scratch tables free for another group. */
  private readonly scratch = new Map<number, GroupScratch>();
  private readonly pool: IndexTable[] = [];
  private readonly packScratch = new PackScratch();
  /** The file read `prepare` is in the middle of. */
  private reading: FileRead | null = null;

  constructor(
    private readonly table: IndexTable,
    readonly length: number,
    private readonly onRelease: () => void,
  ) {}

  /** Called before row `i` changes. */
  preserve(i: number, table: IndexTable): void {
    if (i < this.length && !this.saved.has(i)) this.saved.set(i, table.row(i));
  }

  release(): void {
    this.reading?.slices.return(undefined);
    this.reading = null;
    for (const g of [...this.scratch.keys(), ...this.plainGroups()]) this.drop(g);
    freeNow(this.packScratch.buffer);
    this.packScratch.buffer = Buffer.alloc(0);
    this.pool.length = 0;
    this.onRelease();
  }

  /** Rows changed since the snapshot was taken (row number → its values then); grows as the table changes. */
  get changed(): ReadonlyMap<number, IndexRow> {
    return this.saved;
  }

  /**
   * The table's own columns, without a copy: rows `[0, length)` read as they were when the snapshot was taken,
   * except the rows in `changed`, whose values then are there (see `IndexEncoder.steps`). A column the table
   * reallocates later (it grew) still holds the unchanged rows' values.
   */
  view(): ColumnChunk {
    const t = this.table;
    return {
      count: this.length,
      // A copy (the ids of rows never change): an opened table's ids stay packed.
      ids: t.idSlice(0, this.length),
      text: t.text,
      flags: t.flags,
      imageCount: t.imageCount,
      sizes: t.sizes,
      times: t.times,
      hex: columnRecord(HEX_COLUMNS, (k) => ({
        bytes: t.hex[k].bytes,
        state: t.hex[k].state,
        other: [...t.hex[k].other],
      })),
    };
  }

  /**
   * Readies rows `[start, end)` for `posted` a slice at a time (a few thousand rows of one column): a typed column of
   * a file group decoded into a scratch table, or a text column of one read from the file (the columns it has not
   * decoded itself: `IndexTable.inFile`). `false` while there is more to do.
   */
  prepare(start: number, end: number): boolean {
    const read = this.reading ?? this.nextRead(start, end);
    if (read === null) return true;
    this.reading = read;
    // A column the table decoded meanwhile (a write) is read from the table: the file's read is dropped.
    if (!this.table.inFile(read.g, read.column)) {
      read.slices.return(undefined);
      this.reading = null;
      return false;
    }
    const step = read.slices.next();
    if (step.done === true) {
      this.reading = null;
      read.done(step.value);
    }
    return false;
  }

  /** The next file read that rows `[start, end)` need, or null. */
  private nextRead(start: number, end: number): FileRead | null {
    const t = this.table;
    for (const g of t.fileGroupsIn(start, end)) {
      for (const column of TYPED_COLUMNS) {
        if (!t.inFile(g, column)) continue;
        const scratch = this.scratchOf(g);
        if (scratch.typed.has(column)) continue;
        return { g, column, slices: t.typedInto(g, column, scratch.table), done: () => scratch.typed.add(column) };
      }
      for (const column of TEXT_COLUMNS) {
        const key = plainKey(g, column);
        if (this.plain.has(key) || !t.inFile(g, column)) continue;
        return { g, column, slices: t.plainText(g, column), done: (text) => this.plain.set(key, text ?? null) };
      }
    }
    return null;
  }

  /** File group `g`'s scratch table (one of the pool's, or a new one). */
  private scratchOf(g: number): GroupScratch {
    let scratch = this.scratch.get(g);
    if (scratch === undefined) {
      const rows = this.table.groupRows(g);
      const pooled = this.pool.findIndex((p) => p.length >= rows);
      const table = pooled >= 0 ? this.pool.splice(pooled, 1)[0]! : IndexTable.scratch(rows);
      scratch = { table, typed: new Set() };
      this.scratch.set(g, scratch);
    }
    return scratch;
  }

  /**
   * Rows `[start, end)` as they were when the snapshot was taken, as posted to the encoder worker. The cells of
   * rows still as the file holds them are taken from the file (`prepare`, or now): a flush makes no string of them
   * and decodes nothing into the table. Chunks are cut in row order (a file group's reads are dropped once past it).
   * A column per `next()` (the table may change between them): its first chunks run before the JIT has compiled
   * this code, at several times the later cost.
   */
  *posted(start: number, end: number): Generator<void, PostedChunk> {
    const t = this.table;
    while (!this.prepare(start, end));
    const count = end - start;
    const packer = new StringPacker(count, 1 + TEXT_COLUMNS.length, this.packScratch);
    t.packIds(start, end, packer);
    for (const column of TEXT_COLUMNS) {
      yield;
      t.packText(column, start, end, packer, (g) => this.plain.get(plainKey(g, column)) ?? null, this.saved);
    }
    yield;
    const { raw } = t;
    const c: PostedChunk = {
      count,
      strings: packer.finish(),
      flags: columnRecord(FLAG_COLUMNS, (k) => raw.flags[k].slice(start, end)),
      imageCount: new Int32Array(count),
      sizes: columnRecord(SIZE_COLUMNS, () => new Float64Array(count)),
      times: columnRecord(TIME_COLUMNS, () => new Float64Array(count)),
      hex: columnRecord(HEX_COLUMNS, (k) => ({
        bytes: new Uint8Array(count * raw.hex[k].width),
        state: new Uint8Array(count),
        other: [],
      })),
    };
    t.forEachGroupPiece(start, end, (g, from, to) => {
      // A column of a file group not decoded by the table is in the group's scratch table, from its row 0.
      const scratch = g >= 0 ? this.scratch.get(g) : undefined;
      const source = (column: ColumnSpec['name']) =>
        scratch !== undefined && t.inFile(g, column)
          ? { r: scratch.table.raw, at: from - t.groupStart(g) }
          : { r: raw, at: from };
      const n = to - from;
      const into = from - start;
      const image = source('image_count');
      c.imageCount.set(image.r.imageCount.subarray(image.at, image.at + n), into);
      for (const k of SIZE_COLUMNS) {
        const { r, at } = source(k);
        c.sizes[k].set(r.sizes[k].subarray(at, at + n), into);
      }
      for (const k of TIME_COLUMNS) {
        const { r, at } = source(k);
        c.times[k].set(r.times[k].subarray(at, at + n), into);
      }
      for (const k of HEX_COLUMNS) {
        const { r, at } = source(k);
        const col = r.hex[k];
        const out = c.hex[k];
        out.bytes.set(col.bytes.subarray(at * col.width, (at + n) * col.width), into * col.width);
        out.state.set(col.state.subarray(at, at + n), into);
        for (let q = 0; q < n; q++)
          if (col.state[at + q] === 2) out.other.push([into + q, col.other.get(at + q) ?? '']);
      }
    });
    for (const [i, row] of this.saved) if (i >= start && i < end) patch(c, i - start, row);
    const next = new Set(t.fileGroupsIn(end, end + 1));
    for (const g of [...this.scratch.keys(), ...this.plainGroups()]) if (!next.has(g)) this.drop(g);
    return c;
  }

  /** The groups with a text column read. */
  private plainGroups(): number[] {
    return [...this.plain.keys()].map((key) => Math.floor(key / TEXT_COLUMNS.length));
  }

  /** Frees file group `g`'s reads (its scratch table back to the pool). */
  private drop(g: number): void {
    for (const column of TEXT_COLUMNS) {
      const key = plainKey(g, column);
      const text = this.plain.get(key);
      this.plain.delete(key);
      if (text) freeNow(text.bytes, text.offsets, text.nulls);
    }
    const scratch = this.scratch.get(g);
    this.scratch.delete(g);
    if (scratch !== undefined) this.pool.push(scratch.table);
  }
}

/** The columns of typed arrays or packed digests that can be cold. */
const TYPED_COLUMNS: readonly ColumnSpec['name'][] = ['image_count', ...SIZE_COLUMNS, ...TIME_COLUMNS, ...HEX_COLUMNS];

/** A read of one column of file group `g` for a flush, a slice per `next()`; `done` keeps what it read. */
interface FileRead {
  readonly g: number;
  readonly column: ColumnSpec['name'];
  readonly slices: Generator<void, PlainText | null | void>;
  readonly done: (text: PlainText | null | void) => void;
}

/** A file group's typed columns decoded for a flush, into a table of its own (row 0 is the group's first). */
interface GroupScratch {
  readonly table: IndexTable;
  readonly typed: Set<ColumnSpec['name']>;
}

const plainKey = (g: number, column: TextColumn) => g * TEXT_COLUMNS.length + TEXT_COLUMNS.indexOf(column);

/** Writes the typed columns of an object row into row `r` of a chunk (its text is packed from the row). */
function patch(c: PostedChunk, r: number, row: IndexRow): void {
  for (const k of FLAG_COLUMNS) c.flags[k][r] = row[k] ? 1 : 0;
  c.imageCount[r] = row.image_count;
  for (const k of SIZE_COLUMNS) c.sizes[k][r] = row[k] ?? NaN;
  for (const k of TIME_COLUMNS) c.times[k][r] = row[k]?.getTime() ?? NaN;
  for (const k of HEX_COLUMNS) {
    const h = c.hex[k];
    const i = h.other.findIndex(([at]) => at === r);
    if (i >= 0) h.other.splice(i, 1);
    const v = row[k];
    h.state[r] = v === null ? 0 : 2;
    if (v !== null) h.other.push([r, v]);
  }
}
