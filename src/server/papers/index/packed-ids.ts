/**
 * The ids of an opened index file's rows as front-coded UTF-8 bytes: each row keeps only the bytes after the prefix
 * its id shares with the row before's (the whole id at the start of each run of `RUN_ROWS` rows), its tail's length
 * and the shared prefix's length in a byte each, and each run its offset. Ids in this service's order share most of
 * their bytes (`2301.00001v1`, `2301.00002v1`): 2.6M ids take ~15 MiB instead of ~40 MiB as bytes with an offset per
 * row, or ~100 MiB as strings, and nothing for the collector to trace. An id is rebuilt from its run's start (at
 * most `RUN_ROWS - 1` tails to apply); a slice of rows is rebuilt in one pass.
 */
import { freeNow } from './free-now.js';

const RUN_ROWS = 16;
/** A length byte meaning "the tail's length is in `long`" (tails of 255 bytes or more). */
const LONG = 255;
/** The longest prefix a row records sharing (a longer one is stored as part of its tail). */
const MAX_SHARED = 255;

/**
 * Orders UTF-8 byte ranges `a[aStart, aEnd)` and `b[bStart, bEnd)` as their strings compare (`<`: UTF-16 code
 * units), or NaN when only the strings can tell (two different non-ASCII bytes: above U+E000 the orders differ).
 */
function compareUtf8(a: Uint8Array, aStart: number, aEnd: number, b: Uint8Array, bStart: number, bEnd: number): number {
  for (let n = Math.min(aEnd - aStart, bEnd - bStart), k = 0; k < n; k++) {
    const u = a[aStart + k]!;
    const v = b[bStart + k]!;
    if (u === v) continue;
    return u >= 0x80 && v >= 0x80 ? NaN : u - v;
  }
  return aEnd - aStart - (bEnd - bStart);
}

/** A buffer an id is rebuilt in (grown for long ids; synchronous use only). */
let scratch = Buffer.alloc(256);

/** `scratch` with room for `length` bytes, keeping its first `keep`. */
function scratchFor(length: number, keep: number): Buffer {
  if (length > scratch.length) {
    const grown = Buffer.alloc(Math.max(length, scratch.length * 2));
    scratch.copy(grown, 0, 0, keep);
    scratch = grown;
  }
  return scratch;
}

export class PackedIds {
  /** The rows' tails, one after the other. */
  private text: Buffer;
  private used = 0;
  /** Per row, its tail's length (`LONG`: in `long`). */
  private readonly tails: Uint8Array;
  private readonly long = new Map<number, number>();
  /** Per row, how many leading bytes its id shares with the row before's (0 at a run's start). */
  private readonly shared: Uint8Array;
  /** Per run, the offset of its first row's tail. */
  private readonly runs: Int32Array;
  /** Rows added so far (in row order). */
  private filled = 0;
  /** The last added id's bytes, while rows are added. */
  private last = Buffer.alloc(64);
  private lastLength = 0;
  private inOrder = true;

  /** `rows` ids of about `bytes` bytes in all (more room is made when needed; `seal` frees what is left over). */
  constructor(
    readonly rows: number,
    bytes: number,
  ) {
    this.text = Buffer.alloc(bytes);
    this.tails = new Uint8Array(rows);
    this.shared = new Uint8Array(rows);
    this.runs = new Int32Array(Math.ceil(rows / RUN_ROWS));
  }

  /** Whether the ids strictly ascend (by string order); known once every row is added. */
  get ascending(): boolean {
    return this.inOrder;
  }

  /** Sets row `row`'s id from the UTF-8 bytes `src[start, end)`; rows come in order, from 0. */
  add(row: number, src: Uint8Array, start: number, end: number): void {
    if (row !== this.filled) throw new Error('index ids out of row order');
    const length = end - start;
    const last = this.last;
    if (row > 0 && this.inOrder) {
      const order = compareUtf8(last, 0, this.lastLength, src, start, end);
      if (!(order < 0)) {
        const decode = (b: Uint8Array, s: number, e: number) =>
          Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8', s, e);
        this.inOrder = Number.isNaN(order) && decode(last, 0, this.lastLength) < decode(src, start, end);
      }
    }
    let keep = 0;
    if (row % RUN_ROWS !== 0) {
      const most = Math.min(length, this.lastLength, MAX_SHARED);
      while (keep < most && last[keep] === src[start + keep]) keep++;
    } else this.runs[row / RUN_ROWS] = this.used;
    const tail = length - keep;
    if (this.used + tail > this.text.length) {
      const text = Buffer.alloc(Math.max(this.used + tail, this.text.length * 2));
      this.text.copy(text, 0, 0, this.used);
      freeNow(this.text);
      this.text = text;
    }
    // Ids are short: a loop beats making a view for `set`.
    const text = this.text;
    for (let k = 0, at = this.used; k < tail; k++) text[at + k] = src[start + keep + k]!;
    this.used += tail;
    this.tails[row] = Math.min(tail, LONG);
    if (tail >= LONG) this.long.set(row, tail);
    this.shared[row] = keep;
    if (length > last.length) {
      this.last = Buffer.alloc(Math.max(length, last.length * 2));
      last.copy(this.last, 0, 0, keep);
    }
    for (let k = keep; k < length; k++) this.last[k] = src[start + k]!;
    this.lastLength = length;
    this.filled++;
  }

  /** After the last row: checks that every row has an id, and frees the room left over. */
  seal(): void {
    if (this.filled !== this.rows) throw new Error('index row without preprint_id');
    this.last = Buffer.alloc(0);
    if (this.used === this.text.length) return;
    const room = this.text;
    this.text = Buffer.from(room.subarray(0, this.used));
    freeNow(room);
  }

  private tailLength(i: number): number {
    const n = this.tails[i]!;
    return n === LONG ? this.long.get(i)! : n;
  }

  /**
   * Applies row `i`'s tail (at `at` in `text`) to the id before it, which `scratch` holds; returns the id's length.
   */
  private apply(i: number, at: number): number {
    const keep = this.shared[i]!;
    const tail = this.tailLength(i);
    const into = scratchFor(keep + tail, keep);
    const text = this.text;
    for (let k = 0; k < tail; k++) into[keep + k] = text[at + k]!;
    return keep + tail;
  }

  /** Row `i`'s id. */
  at(i: number): string {
    const run = i - (i % RUN_ROWS);
    let at = this.runs[run / RUN_ROWS]!;
    let length = 0;
    for (let j = run; j <= i; j++) {
      length = this.apply(j, at);
      at += this.tailLength(j);
    }
    return scratch.toString('utf8', 0, length);
  }

  /** The ids of rows `[start, end)`, rebuilt in one pass. */
  slice(start: number, end: number): string[] {
    const out = new Array<string>(Math.max(0, end - start));
    this.eachBytes(start, end, (i, bytes, length) => (out[i - start] = bytes.toString('utf8', 0, length)));
    return out;
  }

  /**
   * Calls `visit` with each id of rows `[start, end)` as UTF-8 bytes (`bytes[0, length)`, valid until the next
   * call: a buffer rebuilt in place), in one pass and without making strings.
   */
  eachBytes(start: number, end: number, visit: (i: number, bytes: Buffer, length: number) => void): void {
    if (start >= end) return;
    const run = start - (start % RUN_ROWS);
    let at = this.runs[run / RUN_ROWS]!;
    for (let j = run; j < end; j++) {
      const length = this.apply(j, at);
      at += this.tailLength(j);
      if (j >= start) visit(j, scratch, length);
    }
  }
}
