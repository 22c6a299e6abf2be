/**
 * The row lookups of an `IndexTable`, keyed by the table's own id strings: `preprint_id` → row number, and
 * versionless id → the rows of its versions. A loaded index whose ids are in ascending order (the order this
 * service writes) is searched by bisection over that prefix of rows — nothing is built for it; other rows (added
 * after the load, or all of a file in another order) go into open-addressing hash tables over typed arrays, the
 * versions of a paper chained through a per-row link. A `Map` of 2.6M ids and a `Map` of 2.6M versionless strings
 * to arrays held ~450 MB of heap in millions of objects and took a third of a load's CPU (docs/decisions.md).
 */

const EMPTY = 0;
/** Linear probing stays short up to this load factor (2.6M rows fill 4M slots to 0.62). */
const MAX_LOAD = 0.7;

/** FNV-1a over the UTF-16 code units of `s[0, end)`. */
function hash(s: string, end: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < end; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** Where the trailing `v<digits>` of a versioned id starts, or -1 when the id has none. */
export function versionSplit(id: string): number {
  let i = id.length - 1;
  while (i >= 0 && id.charCodeAt(i) >= 48 && id.charCodeAt(i) <= 57) i--;
  return i < 0 || i === id.length - 1 || id.charCodeAt(i) !== 118 /* v */ ? -1 : i;
}

/** Versions are digit strings without leading zeros: a longer one is larger, equal lengths compare as text. */
function compareVersions(a: string, b: string): number {
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * An open-addressing (linear probing) hash table whose slots hold row number + 1 (0 = empty); the key of a slot is
 * derived from the row (`keyOf`), so no key is stored twice.
 */
class RowHash {
  slots: Int32Array;
  private used = 0;

  constructor(expected: number) {
    this.slots = new Int32Array(tableSize(expected));
  }

  /** The slot of `key` (hashed `h`): the one holding a matching row, or the empty one where it would go. */
  find(h: number, matches: (row: number) => boolean): number {
    const mask = this.slots.length - 1;
    let at = h & mask;
    for (;;) {
      const v = this.slots[at]!;
      if (v === EMPTY || matches(v - 1)) return at;
      at = (at + 1) & mask;
    }
  }

  /** Fills an empty slot found by `find`; the caller re-finds after a `true` (the table grew). */
  fill(at: number, row: number, rehash: (row: number) => number): boolean {
    this.slots[at] = row + 1;
    this.used++;
    if (this.used <= this.slots.length * MAX_LOAD) return false;
    const old = this.slots;
    this.slots = new Int32Array(old.length * 2);
    const mask = this.slots.length - 1;
    for (const v of old) {
      if (v === EMPTY) continue;
      let i = rehash(v - 1) & mask;
      while (this.slots[i] !== EMPTY) i = (i + 1) & mask;
      this.slots[i] = v;
    }
    return true;
  }
}

/** A power of two holding `expected` rows at a load factor ≤ `MAX_LOAD`. */
function tableSize(expected: number): number {
  let n = 16;
  while (n * MAX_LOAD < expected) n *= 2;
  return n;
}

export class IdIndex {
  /** Rows `[0, sorted)` have ascending, distinct ids and are found by bisection, not in the hash tables. */
  sorted = 0;
  private readonly byId: RowHash;
  private readonly byPaper: RowHash;
  /** Per row: the next row (+ 1) of the same paper, 0 at the end of the chain. */
  private nextVersion: Int32Array;

  /** Reads the table's id column (never written here). */
  private readonly id: (row: number) => string;

  /** `ids`: the table's id column, or a function reading it by row. */
  constructor(ids: readonly string[] | ((row: number) => string), expected = 16) {
    this.id = typeof ids === 'function' ? ids : (row) => ids[row]!;
    this.byId = new RowHash(expected);
    this.byPaper = new RowHash(expected);
    this.nextVersion = new Int32Array(Math.max(16, expected));
  }

  /**
   * Indexes rows `[0, length)` after a bulk decode: by bisection when their ids ascend (`ascending`, when the caller
   * checked it already), else one by one. Returns whether an id occurs twice (its last row is the one mapped).
   */
  bulk(length: number, ascending?: boolean): boolean {
    const id = this.id;
    if (ascending === undefined) {
      ascending = true;
      for (let i = 1; i < length && ascending; i++) ascending = id(i - 1) < id(i);
    }
    if (ascending) {
      this.sorted = length;
      return false;
    }
    let duplicates = false;
    for (let i = 0; i < length; i++) if (this.set(i)) duplicates = true;
    return duplicates;
  }

  /** The first row of the sorted prefix whose id is ≥ `id`. */
  private lowerBound(value: string): number {
    const id = this.id;
    let lo = 0;
    let hi = this.sorted;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (id(mid) < value) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The row of `id`. */
  get(value: string): number | undefined {
    const id = this.id;
    if (this.sorted > 0) {
      const at = this.lowerBound(value);
      if (at < this.sorted && id(at) === value) return at;
    }
    const v = this.byId.slots[this.byId.find(hash(value, value.length), (r) => id(r) === value)]!;
    return v === EMPTY ? undefined : v - 1;
  }

  /**
   * Maps `ids[row]` (an id not in the sorted prefix) to `row`, replacing the row it mapped to (a duplicate id:
   * its versions list the new row). Returns whether the id was mapped already.
   */
  set(row: number): boolean {
    const idOf = this.id;
    const id = idOf(row);
    const h = hash(id, id.length);
    const at = this.byId.find(h, (r) => idOf(r) === id);
    if (this.byId.slots[at] !== EMPTY) {
      this.byId.slots[at] = row + 1;
      return true;
    }
    this.byId.fill(at, row, (r) => {
      const key = idOf(r);
      return hash(key, key.length);
    });
    this.noteVersion(id, row);
    return false;
  }

  private noteVersion(id: string, row: number): void {
    const split = versionSplit(id);
    if (split < 0) return;
    if (row >= this.nextVersion.length) {
      const grown = new Int32Array(Math.max(row + 1, Math.ceil(this.nextVersion.length * 1.5)));
      grown.set(this.nextVersion);
      this.nextVersion = grown;
    }
    const idOf = this.id;
    const at = this.byPaper.find(hash(id, split), (r) => samePaper(idOf(r), id, split));
    const head = this.byPaper.slots[at]!;
    if (head === EMPTY) {
      this.nextVersion[row] = EMPTY;
      this.byPaper.fill(at, row, (r) => {
        const key = idOf(r);
        return hash(key, versionSplit(key));
      });
      return;
    }
    // Into the chain after the head (the chain's order does not matter; `versionsOf` sorts).
    this.nextVersion[row] = this.nextVersion[head - 1]!;
    this.nextVersion[head - 1] = row + 1;
  }

  /** Row numbers of every stored version of a paper (ids `<versionless>v<N>`), by version. */
  versionsOf(versionless: string): number[] {
    const id = this.id;
    const n = versionless.length;
    const head = this.byPaper.slots[this.byPaper.find(hash(versionless, n), (r) => samePaper(id(r), versionless, n))]!;
    const rows: number[] = [];
    if (this.sorted > 0) {
      const prefix = versionless + 'v';
      for (let i = this.lowerBound(prefix); i < this.sorted; i++) {
        const value = id(i);
        if (!value.startsWith(prefix)) break;
        if (versionSplit(value) === n) rows.push(i);
      }
    }
    for (let v = head; v !== EMPTY; v = this.nextVersion[v - 1]!) {
      // The chain holds each id's first row; the id may map to a later one since (a duplicate).
      rows.push(this.get(id(v - 1))!);
    }
    return rows.sort((a, b) => compareVersions(id(a).slice(n + 1), id(b).slice(n + 1)));
  }
}

/** Whether versioned id `id` belongs to the paper `paper[0, length)` (its versionless part is exactly that). */
function samePaper(id: string, paper: string, length: number): boolean {
  if (versionSplit(id) !== length) return false;
  for (let i = length - 1; i >= 0; i--) if (id.charCodeAt(i) !== paper.charCodeAt(i)) return false;
  return true;
}
