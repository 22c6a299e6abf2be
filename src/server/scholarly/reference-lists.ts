/**
 * The references of the works that have an arXiv id, kept from the load's first pass so that the citation pass
 * need not read and parse the whole bucket again (a second parse costs about as much client CPU as the `CITES`
 * writes leave spare). Ids sit in one growing array of doubles (8 bytes a reference); past `budget` references
 * the lists are dropped and the citation pass reads the bucket again, so memory stays bounded on any snapshot.
 */
export interface ReferenceList {
  /** Id of the citing work. */
  readonly work: number;
  readonly refs: Float64Array;
}

export class ReferenceLists {
  private ids = new Float64Array(1024);
  private length = 0;
  private readonly works: number[] = [];
  /** End offset in `ids` of each work's list. */
  private readonly ends: number[] = [];
  private dropped = false;

  constructor(readonly budget: number) {}

  /** Whether every list added is held (false once the budget was exceeded). */
  get complete(): boolean {
    return !this.dropped;
  }

  add(work: number, refs: readonly number[]): void {
    if (this.dropped) return;
    const needed = this.length + refs.length;
    if (needed > this.budget) {
      this.dropped = true;
      this.ids = new Float64Array(0);
      this.works.length = 0;
      this.ends.length = 0;
      return;
    }
    if (needed > this.ids.length) {
      const grown = new Float64Array(Math.min(this.budget, Math.max(needed, this.ids.length * 2)));
      grown.set(this.ids.subarray(0, this.length));
      this.ids = grown;
    }
    this.ids.set(refs, this.length);
    this.length = needed;
    this.works.push(work);
    this.ends.push(needed);
  }

  /** The lists in the order added (views into the shared array). */
  *[Symbol.iterator](): IterableIterator<ReferenceList> {
    let start = 0;
    for (let i = 0; i < this.works.length; i++) {
      const end = this.ends[i]!;
      yield { work: this.works[i]!, refs: this.ids.subarray(start, end) };
      start = end;
    }
  }
}
