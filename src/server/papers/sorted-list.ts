/**
 * A sorted list of distinct items in blocks of at most 2 × `LOAD` (the layout of Python's `sortedcontainers`):
 * insert and remove are a binary search plus a splice of one small block, iteration from the start is direct.
 * Items must not change their order while in the list (remove the old item, insert the new one).
 */
const LOAD = 512;

export class SortedList<T> {
  private blocks: T[][] = [];
  private count = 0;

  constructor(private readonly compare: (a: T, b: T) => number) {}

  get size(): number {
    return this.count;
  }

  /** Replaces the content with `items` (any order; sorted here). */
  reset(items: T[]): void {
    items.sort(this.compare);
    this.resetSorted(items);
  }

  /** Replaces the content with `items`, which the caller has put in order (not checked). */
  resetSorted(items: T[]): void {
    this.blocks = [];
    for (let i = 0; i < items.length; i += LOAD) this.blocks.push(items.slice(i, i + LOAD));
    this.count = items.length;
  }

  /** Index of the first block whose last item is ≥ `item` (the last block when none is). */
  private blockFor(item: T): number {
    let lo = 0;
    let hi = this.blocks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const block = this.blocks[mid]!;
      if (this.compare(block[block.length - 1]!, item) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** First position in `block` whose item is ≥ `item`. */
  private lowerBound(block: T[], item: T): number {
    let lo = 0;
    let hi = block.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compare(block[mid]!, item) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  insert(item: T): void {
    if (this.blocks.length === 0) {
      this.blocks.push([item]);
      this.count = 1;
      return;
    }
    const b = this.blockFor(item);
    const block = this.blocks[b]!;
    block.splice(this.lowerBound(block, item), 0, item);
    this.count++;
    if (block.length > 2 * LOAD) this.blocks.splice(b, 1, block.slice(0, LOAD), block.slice(LOAD));
  }

  /** Removes the item comparing equal to `item`; `false` when there is none. */
  remove(item: T): boolean {
    if (this.blocks.length === 0) return false;
    const b = this.blockFor(item);
    const block = this.blocks[b]!;
    const i = this.lowerBound(block, item);
    if (i >= block.length || this.compare(block[i]!, item) !== 0) return false;
    block.splice(i, 1);
    this.count--;
    if (block.length === 0) this.blocks.splice(b, 1);
    return true;
  }

  *[Symbol.iterator](): IterableIterator<T> {
    for (const block of this.blocks) yield* block;
  }

  /** The items from position `start` on (whole blocks before it are skipped, not walked). */
  *from(start: number): IterableIterator<T> {
    let skip = Math.max(0, start);
    for (const block of this.blocks) {
      if (skip >= block.length) {
        skip -= block.length;
        continue;
      }
      for (let i = skip; i < block.length; i++) yield block[i]!;
      skip = 0;
    }
  }

  toArray(): T[] {
    return this.blocks.flat();
  }
}
