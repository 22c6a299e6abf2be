/**
 * The search index's raw material: each document's terms with their field-weighted frequencies, appended to flat
 * lists one document at a time. Document d owns entries `[docStarts[d], docStarts[d + 1])` of `termIds`/`tfs`, and
 * its weighted length is `lengths[d]`. `WikiSearchIndex` regroups the entries by term into its postings.
 */
import { IntList, TermCounter, TermTable, internAsciiTokens } from './term-table.js';
import { forEachToken } from './tokens.js';

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

  /** Close the current document. */
  endDoc(): void {
    this.lengths.push(this.counter.length);
    this.counter.drainInto(this.termIds, this.tfs);
    this.docStarts.push(this.termIds.length);
  }
}
