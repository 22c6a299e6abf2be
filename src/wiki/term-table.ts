/**
 * Term dictionary for the search index: term string → dense id, with a lookup straight from the bytes of a token so
 * that indexing ASCII bodies allocates no string per token (open addressing, FNV-1a over lower-cased char codes; the
 * terms' characters kept in one flat array, compared without touching a string).
 */

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** A growable `Int32Array`. */
export class IntList {
  data = new Int32Array(1024);
  length = 0;

  push(value: number): void {
    if (this.length === this.data.length) {
      const grown = new Int32Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = value;
  }

  /** Room for `count` more values; returns the (possibly new) `data`. */
  reserve(count: number): Int32Array {
    if (this.length + count > this.data.length) this.data = grown(this.data, this.length + count);
    return this.data;
  }
}

export class TermTable {
  /** Per slot: the term id, `-1` when empty. */
  private slotIds: Int32Array;
  private hashes: Int32Array;
  private mask: number;
  /** Per term id: the term, and where its UTF-16 code units start in `chars`. */
  private readonly byId: string[] = [];
  private charStarts = new Int32Array(1024);
  private chars = new Uint16Array(8192);
  private charsUsed = 0;

  constructor(initialCapacity = 1024) {
    let capacity = 16;
    while (capacity < initialCapacity * 2) capacity *= 2;
    this.slotIds = new Int32Array(capacity).fill(-1);
    this.hashes = new Int32Array(capacity);
    this.mask = capacity - 1;
  }

  get size(): number {
    return this.byId.length;
  }

  /** The terms, by id. */
  get terms(): readonly string[] {
    return this.byId;
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
      const id = this.slotIds[slot]!;
      if (id === -1) return -1;
      if (this.hashes[slot] === h && this.byId[id] === term) return id;
    }
  }

  /** Id of a term string, inserting it with id `size` when new. */
  intern(term: string): number {
    const h = TermTable.hash(term);
    for (let slot = h & this.mask; ; slot = (slot + 1) & this.mask) {
      const id = this.slotIds[slot]!;
      if (id === -1) return this.insert(slot, h, term);
      if (this.hashes[slot] === h && this.byId[id] === term) return id;
    }
  }

  /**
   * Id of the token `bytes[start, end)` (lower-case ASCII), whose FNV-1a hash is `h`; inserted when new. Compares
   * the bytes with the stored characters, so a token already in the table costs no string.
   */
  internBytes(h: number, bytes: Buffer, start: number, end: number): number {
    const length = end - start;
    for (let slot = h & this.mask; ; slot = (slot + 1) & this.mask) {
      const id = this.slotIds[slot]!;
      if (id === -1) return this.insert(slot, h, bytes.toString('latin1', start, end));
      if (this.hashes[slot] !== h) continue;
      let at = this.charStarts[id]!;
      if (this.charStarts[id + 1]! - at !== length) continue;
      const chars = this.chars;
      let i = start;
      while (i < end && chars[at] === bytes[i]) {
        at++;
        i++;
      }
      if (i === end) return id;
    }
  }

  private insert(slot: number, h: number, term: string): number {
    const id = this.byId.length;
    this.byId.push(term);
    this.slotIds[slot] = id;
    this.hashes[slot] = h;
    if (id + 2 > this.charStarts.length) this.charStarts = grown(this.charStarts, id + 2);
    if (this.charsUsed + term.length > this.chars.length) this.chars = grown(this.chars, this.charsUsed + term.length);
    for (let i = 0; i < term.length; i++) this.chars[this.charsUsed++] = term.charCodeAt(i);
    this.charStarts[id + 1] = this.charsUsed;
    if (this.byId.length * 2 > this.mask) this.grow();
    return id;
  }

  private grow(): void {
    const { slotIds, hashes } = this;
    const capacity = slotIds.length * 2;
    this.slotIds = new Int32Array(capacity).fill(-1);
    this.hashes = new Int32Array(capacity);
    this.mask = capacity - 1;
    for (let i = 0; i < slotIds.length; i++) {
      const id = slotIds[i]!;
      if (id === -1) continue;
      let slot = hashes[i]! & this.mask;
      while (this.slotIds[slot] !== -1) slot = (slot + 1) & this.mask;
      this.slotIds[slot] = id;
      this.hashes[slot] = hashes[i]!;
    }
  }
}

/** A copy of `array` at least `size` long (doubling). */
function grown<T extends Int32Array | Uint16Array>(array: T, size: number): T {
  const copy = new (array.constructor as new (length: number) => T)(Math.max(size, array.length * 2));
  copy.set(array);
  return copy;
}

/** Per byte: its lower-case form when it belongs to a token (`[A-Za-z0-9]`), else 0. */
const TOKEN_BYTES = new Uint8Array(256);
for (let c = 0x30; c <= 0x39; c++) TOKEN_BYTES[c] = c;
for (let c = 0x61; c <= 0x7a; c++) TOKEN_BYTES[c] = c;
for (let c = 0x41; c <= 0x5a; c++) TOKEN_BYTES[c] = c + 0x20;

/** Texts up to this long are checked and copied in JavaScript, longer ones by native code. */
const SHORT_TEXT = 64;

/** The text's bytes, lower-cased in place while tokenizing (reused: tokenizing is synchronous and not reentrant). */
let scratch = Buffer.allocUnsafeSlow(64 * 1024);

/**
 * Call `fn(termId)` for every token of an ASCII-only `text` (`[A-Za-z0-9]` runs, lower-cased), interning terms in
 * `table`. Returns `false` without doing anything when the text is not ASCII-only (use the general tokenizer then).
 * The text is copied into a byte buffer first: scanning bytes costs less than `charCodeAt` on the sliced strings that
 * page bodies are.
 */
export function internAsciiTokens(table: TermTable, text: string, fn: (id: number) => void): boolean {
  const n = text.length;
  if (scratch.length < n) scratch = Buffer.allocUnsafeSlow(Math.max(n, scratch.length * 2));
  const bytes = scratch;
  if (n <= SHORT_TEXT) {
    // Titles, ids, tags: copied here, as the native calls' own cost exceeds the copy.
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c > 0x7f) return false;
      bytes[i] = c;
    }
  } else {
    // As many UTF-8 bytes as UTF-16 units: every character is ASCII.
    if (Buffer.byteLength(text, 'utf8') !== n) return false;
    bytes.write(text, 0, n, 'latin1');
  }
  // Two tight loops, one over the gap and one over the token, instead of one loop that asks per byte whether a token
  // is open: a third fewer cycles on the bodies (fewer branches, and no mispredicted one per byte).
  let i = 0;
  for (;;) {
    while (i < n && TOKEN_BYTES[bytes[i]!] === 0) i++;
    if (i === n) return true;
    const start = i;
    let h = FNV_OFFSET;
    let c;
    while (i < n && (c = TOKEN_BYTES[bytes[i]!]!) !== 0) {
      bytes[i++] = c;
      h = Math.imul(h ^ c, FNV_PRIME);
    }
    fn(table.internBytes(h | 0, bytes, start, i));
  }
}

/**
 * Weighted frequencies of the terms of one document: `add` each occurrence, then `drain` (which leaves the counter
 * empty for the next document).
 */
export class TermCounter {
  /** Per term id: the weighted frequency in the current document (all zero between documents). */
  private counts = new Int32Array(1024);
  private readonly touched = new IntList();
  /** The current document's weighted length. */
  length = 0;

  /** Distinct terms counted so far. */
  get distinct(): number {
    return this.touched.length;
  }

  add(id: number, weight: number): void {
    if (id >= this.counts.length) this.counts = grown(this.counts, id + 1);
    if (this.counts[id] === 0) this.touched.push(id);
    this.counts[id]! += weight;
    this.length += weight;
  }

  /** `drain` appending each term to `ids` and its frequency to `tfs` (lists of one length), without a call per term. */
  drainInto(ids: IntList, tfs: IntList): void {
    const touched = this.touched.data;
    const n = this.touched.length;
    const idData = ids.reserve(n);
    const tfData = tfs.reserve(n);
    let at = ids.length;
    for (let i = 0; i < n; i++, at++) {
      const id = touched[i]!;
      idData[at] = id;
      tfData[at] = this.counts[id]!;
      this.counts[id] = 0;
    }
    ids.length = at;
    tfs.length = at;
    this.touched.length = 0;
    this.length = 0;
  }

  /** Each counted term once, in first-counted order, with its frequency; then reset. */
  drain(fn: (id: number, frequency: number) => void): void {
    const touched = this.touched.data;
    for (let i = 0; i < this.touched.length; i++) {
      const id = touched[i]!;
      fn(id, this.counts[id]!);
      this.counts[id] = 0;
    }
    this.touched.length = 0;
    this.length = 0;
  }
}
