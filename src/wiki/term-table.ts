/**
 * Term dictionary for the search index: term string → dense id, with a lookup straight from a slice of a text so
 * that indexing ASCII bodies allocates no string per token (open addressing, FNV-1a over lower-cased char codes).
 */

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

export class TermTable {
  private keys: (string | undefined)[];
  private hashes: Int32Array;
  private ids: Int32Array;
  private mask: number;
  private count = 0;

  constructor(initialCapacity = 1024) {
    let capacity = 16;
    while (capacity < initialCapacity * 2) capacity *= 2;
    this.keys = new Array<string | undefined>(capacity);
    this.hashes = new Int32Array(capacity);
    this.ids = new Int32Array(capacity);
    this.mask = capacity - 1;
  }

  get size(): number {
    return this.count;
  }

  /** Hash of a (lower-case) term string. */
  static hash(term: string): number {
    let h = FNV_OFFSET;
    for (let i = 0; i < term.length; i++) h = Math.imul(h ^ term.charCodeAt(i), FNV_PRIME);
    return h | 0;
  }

  /** Id of a term, or `-1`. */
  get(term: string): number {
    const h = TermTable.hash(term);
    for (let slot = h & this.mask; ; slot = (slot + 1) & this.mask) {
      const key = this.keys[slot];
      if (key === undefined) return -1;
      if (this.hashes[slot] === h && key === term) return this.ids[slot]!;
    }
  }

  /** Id of a term string, inserting it with id `size` when new. */
  intern(term: string): number {
    return this.internHashed(TermTable.hash(term), term, null, 0, 0);
  }

  /**
   * Id of the ASCII token `text[start, end)` lower-cased, whose FNV-1a hash over lower-cased char codes is `h`;
   * inserted when new.
   */
  internSlice(h: number, text: string, start: number, end: number): number {
    return this.internHashed(h, null, text, start, end);
  }

  private internHashed(h: number, term: string | null, text: string | null, start: number, end: number): number {
    for (let slot = h & this.mask; ; slot = (slot + 1) & this.mask) {
      const key = this.keys[slot];
      if (key === undefined) {
        const value = term ?? text!.slice(start, end).toLowerCase();
        const id = this.count++;
        this.keys[slot] = value;
        this.hashes[slot] = h;
        this.ids[slot] = id;
        if (this.count * 2 > this.mask) this.grow();
        return id;
      }
      if (this.hashes[slot] !== h) continue;
      if (term !== null ? key === term : sliceEqualsLower(key, text!, start, end)) return this.ids[slot]!;
    }
  }

  private grow(): void {
    const { keys, hashes, ids } = this;
    const capacity = keys.length * 2;
    this.keys = new Array<string | undefined>(capacity);
    this.hashes = new Int32Array(capacity);
    this.ids = new Int32Array(capacity);
    this.mask = capacity - 1;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      if (key === undefined) continue;
      let slot = hashes[i]! & this.mask;
      while (this.keys[slot] !== undefined) slot = (slot + 1) & this.mask;
      this.keys[slot] = key;
      this.hashes[slot] = hashes[i]!;
      this.ids[slot] = ids[i]!;
    }
  }
}

function sliceEqualsLower(key: string, text: string, start: number, end: number): boolean {
  if (key.length !== end - start) return false;
  for (let i = 0; i < key.length; i++) {
    let c = text.charCodeAt(start + i);
    if (c >= 0x41 && c <= 0x5a) c += 0x20;
    if (key.charCodeAt(i) !== c) return false;
  }
  return true;
}

// eslint-disable-next-line no-control-regex
const NON_ASCII_RE = /[^\u0000-\u007f]/;

/**
 * Call `fn(termId)` for every token of an ASCII-only `text` (`[A-Za-z0-9]` runs, lower-cased), interning terms in
 * `table`. Returns `false` without doing anything when the text is not ASCII-only (use the general tokenizer then).
 */
export function internAsciiTokens(table: TermTable, text: string, fn: (id: number) => void): boolean {
  if (NON_ASCII_RE.test(text)) return false;
  const n = text.length;
  let start = -1;
  let h = FNV_OFFSET;
  for (let i = 0; i <= n; i++) {
    let c = i < n ? text.charCodeAt(i) : 0x20;
    const upper = c >= 0x41 && c <= 0x5a;
    if (upper || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39)) {
      if (upper) c += 0x20;
      if (start === -1) {
        start = i;
        h = FNV_OFFSET;
      }
      h = Math.imul(h ^ c, FNV_PRIME);
    } else if (start !== -1) {
      fn(table.internSlice(h | 0, text, start, i));
      start = -1;
    }
  }
  return true;
}
