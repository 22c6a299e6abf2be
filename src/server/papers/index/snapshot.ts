/**
 * Column data of a range of rows as plain arrays and typed arrays (`ColumnChunk`): what is posted to the encoder
 * worker, chunk by chunk, and what the Parquet encoder reads. `TableSnapshot` cuts chunks out of a live table at
 * one point in time: a row changed after the snapshot was taken is served from a saved copy.
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
} from './columns.js';
import type { IndexRow } from './row.js';
import type { IndexTable } from './table.js';

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

/** The buffers of a chunk (to transfer rather than copy). */
export function chunkBuffers(c: ColumnChunk): ArrayBuffer[] {
  return [
    ...FLAG_COLUMNS.map((k) => c.flags[k].buffer),
    c.imageCount.buffer,
    ...SIZE_COLUMNS.map((k) => c.sizes[k].buffer),
    ...TIME_COLUMNS.map((k) => c.times[k].buffer),
    ...HEX_COLUMNS.flatMap((k) => [c.hex[k].bytes.buffer, c.hex[k].state.buffer]),
  ] as ArrayBuffer[];
}

/**
 * Assembles the chunks of `count` rows (added in row order) into one `ColumnChunk`, each copied into place as it
 * arrives and then dropped: the rows are never held twice, and no copy of them all waits for the last chunk.
 */
export class ChunkAssembler {
  private readonly all: ColumnChunk;
  private at = 0;

  constructor(
    readonly count: number,
    private readonly widths: Record<HexColumnName, number>,
  ) {
    this.all = {
      count,
      ids: new Array<string>(count),
      text: columnRecord(TEXT_COLUMNS, () => new Array<string | null>(count)),
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

  add(c: ColumnChunk): void {
    const { all, at } = this;
    if (at + c.count > this.count) throw new Error(`chunks hold more than ${this.count} rows`);
    for (let r = 0; r < c.count; r++) all.ids[at + r] = c.ids[r]!;
    for (const k of TEXT_COLUMNS) for (let r = 0; r < c.count; r++) all.text[k][at + r] = c.text[k][r]!;
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
  result(): ColumnChunk {
    if (this.at !== this.count) throw new Error(`chunks hold ${this.at} of ${this.count} rows`);
    return this.all;
  }
}

export class TableSnapshot {
  /** Rows changed since the snapshot: their values at snapshot time. */
  private readonly saved = new Map<number, IndexRow>();

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
      ids: t.ids,
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

  /** Rows `[start, end)` as they were when the snapshot was taken. */
  chunk(start: number, end: number): ColumnChunk {
    const t = this.table;
    const count = end - start;
    const hex = columnRecord(HEX_COLUMNS, (k) => {
      const col = t.hex[k];
      const state = col.state.slice(start, end);
      const other: [number, string][] = [];
      for (let r = 0; r < count; r++) if (state[r] === 2) other.push([r, col.other.get(start + r) ?? '']);
      return { bytes: col.bytes.slice(start * col.width, end * col.width), state, other };
    });
    const c: ColumnChunk = {
      count,
      ids: t.ids.slice(start, end),
      text: columnRecord(TEXT_COLUMNS, (k) => t.text[k].slice(start, end)),
      flags: columnRecord(FLAG_COLUMNS, (k) => t.flags[k].slice(start, end)),
      imageCount: t.imageCount.slice(start, end),
      sizes: columnRecord(SIZE_COLUMNS, (k) => t.sizes[k].slice(start, end)),
      times: columnRecord(TIME_COLUMNS, (k) => t.times[k].slice(start, end)),
      hex,
    };
    for (const [i, row] of this.saved) if (i >= start && i < end) patch(c, i - start, row);
    return c;
  }
}

/** Writes an object row into row `r` of a chunk. */
function patch(c: ColumnChunk, r: number, row: IndexRow): void {
  for (const k of TEXT_COLUMNS) c.text[k][r] = row[k];
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
