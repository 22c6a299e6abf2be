/**
 * A set of non-negative integers below 2^53 (OpenAlex work ids) in one open-addressing table of doubles: about
 * 16 bytes per id at the maximum load, where a `Set<number>` of ids above 2^31 (boxed numbers) takes 50–80. The
 * seed and reference sets of a full snapshot hold tens of millions of ids.
 */
const EMPTY = -1;
const MAX_LOAD = 0.5;

export class IdSet {
  private table = new Float64Array(1024).fill(EMPTY);
  private mask = 1023;
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** Slot of `id`, or of the empty slot where it would go. */
  private slot(id: number): number {
    // Multiplicative hash of the low and high 32 bits; linear probing.
    let i = (Math.imul(id >>> 0, 0x9e3779b1) ^ Math.imul(Math.floor(id / 4294967296), 0x85ebca6b)) & this.mask;
    for (;;) {
      const v = this.table[i]!;
      if (v === id || v === EMPTY) return i;
      i = (i + 1) & this.mask;
    }
  }

  has(id: number): boolean {
    return this.table[this.slot(id)] === id;
  }

  add(id: number): void {
    const i = this.slot(id);
    if (this.table[i] === id) return;
    this.table[i] = id;
    if (++this.count > (this.mask + 1) * MAX_LOAD) this.grow();
  }

  private grow(): void {
    const old = this.table;
    this.table = new Float64Array(old.length * 2).fill(EMPTY);
    this.mask = this.table.length - 1;
    for (const v of old) if (v !== EMPTY) this.table[this.slot(v)] = v;
  }

  *[Symbol.iterator](): IterableIterator<number> {
    for (const v of this.table) if (v !== EMPTY) yield v;
  }
}
