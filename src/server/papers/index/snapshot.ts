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

/** Concatenates chunks (in row order) into one. */
export function concatChunks(chunks: readonly ColumnChunk[], widths: Record<HexColumnName, number>): ColumnChunk {
  const count = chunks.reduce((n, c) => n + c.count, 0);
  const typed = <T extends Uint8Array | Int32Array | Float64Array>(pick: (c: ColumnChunk) => T, per = 1): T => {
    const first = chunks[0] ? pick(chunks[0]) : null;
    const out = first ? new (first.constructor as new (n: number) => T)(count * per) : (new Uint8Array(0) as T);
    let at = 0;
    for (const c of chunks) {
      out.set(pick(c), at * per);
      at += c.count;
    }
    return out;
  };
  const strings = <T>(pick: (c: ColumnChunk) => T[]): T[] => {
    const out: T[] = new Array<T>(count);
    let at = 0;
    for (const c of chunks) for (const v of pick(c)) out[at++] = v;
    return out;
  };
  return {
    count,
    ids: strings((c) => c.ids),
    text: columnRecord(TEXT_COLUMNS, (k) => strings((c) => c.text[k])),
    flags: columnRecord(FLAG_COLUMNS, (k) => typed((c) => c.flags[k])),
    imageCount: typed((c) => c.imageCount),
    sizes: columnRecord(SIZE_COLUMNS, (k) => typed((c) => c.sizes[k])),
    times: columnRecord(TIME_COLUMNS, (k) => typed((c) => c.times[k])),
    hex: columnRecord(HEX_COLUMNS, (k) => {
      const other: [number, string][] = [];
      let at = 0;
      for (const c of chunks) {
        for (const [r, v] of c.hex[k].other) other.push([at + r, v]);
        at += c.count;
      }
      return { bytes: typed((c) => c.hex[k].bytes, widths[k]), state: typed((c) => c.hex[k].state), other };
    }),
  };
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
