/**
 * The search index's raw material: each document's terms with their field-weighted frequencies, appended to flat
 * lists one document at a time. Document d owns entries `[docStarts[d], docStarts[d + 1])` of `termIds`/`tfs`, and
 * its weighted length is `lengths[d]`. `WikiSearchIndex` regroups the entries by term into its postings; pksd's load
 * worker counts page bodies with the same code and hands them over as `CountedBodies`.
 */
import { IntList, TermCounter, TermTable, internAsciiTokens } from './term-table.js';
import { forEachToken } from './tokens.js';

/**
 * Page bodies already counted (by pksd's load worker), per file of the scan: file f's body has entries
 * `[starts[f], starts[f + 1])`, term ids into `terms`; `counted[f]` is 0 for a file whose body was not counted.
 */
export interface CountedBodies {
  readonly terms: readonly string[];
  readonly counted: Uint8Array;
  readonly starts: Int32Array;
  readonly termIds: Int32Array;
  readonly tfs: Int32Array;
}

export class DocTerms {
  readonly termIds = new IntList();
  readonly tfs = new IntList();
  readonly docStarts = new IntList();
  readonly lengths = new IntList();
  private readonly counter = new TermCounter();
  private weight = 0;
  private readonly countToken = (id: number): void => this.counter.add(id, this.weight);

  constructor(readonly table: TermTable = new TermTable()) {
    this.docStarts.push(0);
  }

  /** Documents ended so far. */
  get size(): number {
    return this.lengths.length;
  }

  /** Count the tokens of `text` in the current document, each with `weight`. */
  addText(text: string, weight: number): void {
    this.weight = weight;
    if (internAsciiTokens(this.table, text, this.countToken)) return;
    forEachToken(text, (token) => this.counter.add(this.table.intern(token), weight));
  }

  /** Count term `id` with frequency `tf` in the current document. */
  addCounted(id: number, tf: number): void {
    this.counter.add(id, tf);
  }

  /** Close the current document. */
  endDoc(): void {
    this.lengths.push(this.counter.length);
    this.counter.drain(this.append);
    this.docStarts.push(this.termIds.length);
  }

  private readonly append = (id: number, tf: number): void => {
    this.termIds.push(id);
    this.tfs.push(tf);
  };
}

/**
 * Counts page bodies file by file, in scan order (`add` each file's page body, `null` for a file that is no page),
 * weight 1 (`WikiSearchIndex` applies the body's field weight).
 */
export class BodyCounts {
  private readonly docs = new DocTerms();
  private readonly counted = new IntList();

  add(body: string | null): void {
    if (body !== null) this.docs.addText(body, 1);
    this.counted.push(body === null ? 0 : 1);
    this.docs.endDoc();
  }

  /** The counts so far, in fresh typed arrays (transferable). */
  result(): CountedBodies {
    const { docs } = this;
    return {
      terms: docs.table.terms,
      counted: Uint8Array.from(this.counted.data.subarray(0, this.counted.length)),
      starts: docs.docStarts.data.slice(0, docs.size + 1),
      termIds: docs.termIds.data.slice(0, docs.termIds.length),
      tfs: docs.tfs.data.slice(0, docs.tfs.length),
    };
  }
}
