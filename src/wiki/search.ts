/**
 * Ranked full-text search over served pages (CONTRACT §13.4).
 *
 * Tokens are lower-cased runs of letters/digits (NFC-normalised; so ids split on `-`). Each page is one document
 * whose term frequency is field-weighted: title × 3, id × 3, tags × 2, body × 1; document length is weighted the
 * same way. Score = Σ over distinct query terms of BM25 (k1 = 1.2, b = 0.75, idf = ln(1 + (N − n + 0.5)/(n + 0.5))),
 * plus 5 when the whole lower-cased query is a substring of the lower-cased title. Pages with score > 0 match;
 * order is score (rounded to 4 decimals) descending, then id ascending.
 */
import { compareStrings } from './links.js';
import { SEARCH_DEFAULT_LIMIT, SEARCH_MAX_LIMIT, SNIPPET_LENGTH } from './limits.js';
import { DocTerms } from './doc-terms.js';
import type { TermTable } from './term-table.js';
import { TOKEN_RE, tokenize } from './tokens.js';
import type { WikiPage } from './types.js';

export const BM25_K1 = 1.2;
export const BM25_B = 0.75;
export const FIELD_WEIGHTS = { title: 3, id: 3, tags: 2, body: 1 } as const;
export const TITLE_SUBSTRING_BONUS = 5;

const TITLE_SEPARATOR = '\u0000';

export interface SearchOptions {
  /** Maximum hits returned; clamped to 1..100; default 10. */
  limit?: number;
  /** Include `source` pages (default false). */
  includeSources?: boolean;
}

export interface SearchHit {
  page: WikiPage;
  /** Rounded to 4 decimals. */
  score: number;
  snippet: string;
  /** The query terms that occur in this page (title, id, tags or body), in query order. */
  terms: string[];
}

export interface SearchOutcome {
  /** The query, trimmed. */
  query: string;
  /** Matches after the source filter, before `limit`. */
  total: number;
  hits: SearchHit[];
}

export function clampLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return SEARCH_DEFAULT_LIMIT;
  return Math.min(SEARCH_MAX_LIMIT, Math.max(1, Math.trunc(limit)));
}

/**
 * Incremental construction of the index data, one page per `step()` (lets async builds yield). Each page appends its
 * distinct terms and their weighted frequencies to flat lists (`DocTerms`); `postings()` then regroups them by term
 * (a counting sort, stable, so every term's docs stay ascending) into one array of docs and one of frequencies.
 */
class IndexBuilder {
  readonly entries = new DocTerms();
  totalLength = 0;
  private next = 0;

  constructor(private readonly pages: readonly WikiPage[]) {}

  get terms(): TermTable {
    return this.entries.table;
  }

  get lengths(): Int32Array {
    return this.entries.lengths.data.subarray(0, this.entries.size);
  }

  get done(): boolean {
    return this.next >= this.pages.length;
  }

  /** Index the next page. */
  step(): void {
    const page = this.pages[this.next++]!;
    const entries = this.entries;
    entries.addText(page.title, FIELD_WEIGHTS.title);
    entries.addText(page.id, FIELD_WEIGHTS.id);
    for (const tag of page.tags) entries.addText(tag, FIELD_WEIGHTS.tags);
    entries.addText(page.body, FIELD_WEIGHTS.body);
    entries.endDoc();
    this.totalLength += entries.lengths.data[entries.size - 1]!;
  }

  /** The postings of every term, grouped by term id, docs ascending within a term. */
  postings(): { offsets: Int32Array; docs: Int32Array; tfs: Int32Array } {
    const termCount = this.terms.size;
    const total = this.entries.termIds.length;
    const entryTerms = this.entries.termIds.data;
    const entryTfs = this.entries.tfs.data;
    const docStarts = this.entries.docStarts.data;
    const offsets = new Int32Array(termCount + 1);
    for (let e = 0; e < total; e++) offsets[entryTerms[e]! + 1]!++;
    for (let t = 0; t < termCount; t++) offsets[t + 1]! += offsets[t]!;
    const fill = offsets.slice(0, termCount);
    const docs = new Int32Array(total);
    const tfs = new Int32Array(total);
    for (let doc = 0; doc < this.pages.length; doc++) {
      for (let e = docStarts[doc]!; e < docStarts[doc + 1]!; e++) {
        const at = fill[entryTerms[e]!]!++;
        docs[at] = doc;
        tfs[at] = entryTfs[e]!;
      }
    }
    return { offsets, docs, tfs };
  }
}

export class WikiSearchIndex {
  private readonly docs: readonly WikiPage[];
  /**
   * Every title lower-cased, joined by NUL, so one `indexOf` pass finds the titles that contain a query (a query
   * without NUL cannot match across titles); `titleStarts[d]` is where doc d's title begins.
   */
  private readonly titlesLower: string;
  private readonly titleStarts: Int32Array;
  /** 1 for `source` pages (filtered out unless asked for). */
  private readonly isSource: Uint8Array;
  /** BM25 length normalisation per doc: k1 · (1 − b + b · length / average length). */
  private readonly norms: Float64Array;
  /** Position of each doc in id order (ties are broken by id). */
  private readonly idRank: Int32Array;
  private readonly terms: TermTable;
  /**
   * Postings of all terms in two flat arrays: term id t owns `[postingOffsets[t], postingOffsets[t + 1])` of
   * `postingDocs` (ascending doc numbers) and `postingTfs` (their field-weighted term frequencies).
   */
  private readonly postingOffsets: Int32Array;
  private readonly postingDocs: Int32Array;
  private readonly postingTfs: Int32Array;
  /** Per-query scratch: accumulated scores (all zero between queries) and the docs touched. */
  private readonly scores: Float64Array;
  private readonly touched: Int32Array;

  /** Build the index synchronously. */
  constructor(pages: readonly WikiPage[]);
  /** @internal Finish an index from a completed builder. */
  constructor(pages: readonly WikiPage[], builder: IndexBuilder);
  constructor(pages: readonly WikiPage[], builder?: IndexBuilder) {
    const built = builder ?? new IndexBuilder(pages);
    while (!built.done) built.step();
    this.docs = pages;
    const titles = pages.map((p) => p.title.toLowerCase());
    this.titlesLower = titles.join(TITLE_SEPARATOR);
    this.titleStarts = new Int32Array(pages.length + 1);
    for (let doc = 0; doc < pages.length; doc++) {
      this.titleStarts[doc + 1] = this.titleStarts[doc]! + titles[doc]!.length + TITLE_SEPARATOR.length;
    }
    this.isSource = Uint8Array.from(pages, (p) => (p.type === 'source' ? 1 : 0));
    this.terms = built.terms;
    const postings = built.postings();
    this.postingOffsets = postings.offsets;
    this.postingDocs = postings.docs;
    this.postingTfs = postings.tfs;
    const avgLength = pages.length > 0 && built.totalLength > 0 ? built.totalLength / pages.length : 1;
    this.norms = Float64Array.from(built.lengths, (length) => BM25_K1 * (1 - BM25_B + (BM25_B * length) / avgLength));
    this.scores = new Float64Array(pages.length);
    this.touched = new Int32Array(pages.length);
    this.idRank = new Int32Array(pages.length);
    if (pages.every((page, doc) => doc === 0 || compareStrings(pages[doc - 1]!.id, page.id) < 0)) {
      // Pages in id order (a snapshot's are): each doc's rank is its number.
      for (let doc = 0; doc < pages.length; doc++) this.idRank[doc] = doc;
    } else {
      pages
        .map((page, doc) => ({ id: page.id, doc }))
        .sort((a, b) => compareStrings(a.id, b.id))
        .forEach(({ doc }, rank) => {
          this.idRank[doc] = rank;
        });
    }
  }

  /** Build the index, yielding to the event loop every `sliceMs` milliseconds (keeps a server responsive). */
  static async build(pages: readonly WikiPage[], sliceMs = 10): Promise<WikiSearchIndex> {
    const builder = new IndexBuilder(pages);
    let sliceStart = performance.now();
    while (!builder.done) {
      builder.step();
      if (performance.now() - sliceStart > sliceMs) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
    }
    return new WikiSearchIndex(pages, builder);
  }

  /** Whether `term` occurs in document `doc` (posting lists are in ascending doc order). */
  private contains(term: string, doc: number): boolean {
    const id = this.terms.get(term);
    if (id === -1) return false;
    const docs = this.postingDocs;
    let lo = this.postingOffsets[id]!;
    let hi = this.postingOffsets[id + 1]! - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const value = docs[mid]!;
      if (value === doc) return true;
      if (value < doc) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  }

  /** Docs whose lower-cased title contains `qLower` (non-empty), ascending. */
  private titlesContaining(qLower: string): number[] {
    const found: number[] = [];
    const n = this.docs.length;
    const all = this.titlesLower;
    const starts = this.titleStarts;
    if (qLower.includes(TITLE_SEPARATOR)) {
      // Only a title given as an escaped YAML string can hold a NUL: test each title on its own.
      for (let doc = 0; doc < n; doc++) {
        if (all.slice(starts[doc]!, starts[doc + 1]! - TITLE_SEPARATOR.length).includes(qLower)) found.push(doc);
      }
      return found;
    }
    let at = all.indexOf(qLower);
    while (at !== -1) {
      // The title holding position `at`: the last doc whose title starts at or before it.
      let lo = 0;
      let hi = n - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (starts[mid]! <= at) lo = mid;
        else hi = mid - 1;
      }
      found.push(lo);
      at = lo + 1 < n ? all.indexOf(qLower, starts[lo + 1]!) : -1;
    }
    return found;
  }

  get size(): number {
    return this.docs.length;
  }

  search(query: string, options: SearchOptions = {}): SearchOutcome {
    const q = query.trim();
    if (q === '') return { query: '', total: 0, hits: [] };
    const limit = clampLimit(options.limit);
    const includeSources = options.includeSources === true;
    const terms = [...new Set(tokenize(q))];
    const n = this.docs.length;
    // Reused buffers (search is synchronous): scores of touched docs, reset before returning.
    const scores = this.scores;
    const touched = this.touched;
    let touchedCount = 0;

    for (const term of terms) {
      const id = this.terms.get(term);
      if (id === -1) continue;
      const docs = this.postingDocs;
      const tfs = this.postingTfs;
      const start = this.postingOffsets[id]!;
      const end = this.postingOffsets[id + 1]!;
      const df = end - start;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      const norms = this.norms;
      for (let i = start; i < end; i++) {
        const doc = docs[i]!;
        const tf = tfs[i]!;
        if (scores[doc] === 0) touched[touchedCount++] = doc;
        scores[doc]! += (idf * tf * (BM25_K1 + 1)) / (tf + norms[doc]!);
      }
    }
    const qLower = q.toLowerCase();
    for (const doc of this.titlesContaining(qLower)) {
      if (scores[doc] === 0) touched[touchedCount++] = doc;
      scores[doc]! += TITLE_SUBSTRING_BONUS;
    }

    // Count matches and keep the best `limit`, ranked by rounded score, then id (idRank).
    const idRank = this.idRank;
    const bestDocs: number[] = [];
    const bestScores: number[] = [];
    let total = 0;
    for (let t = 0; t < touchedCount; t++) {
      const doc = touched[t]!;
      const raw = scores[doc]!;
      scores[doc] = 0;
      if (!(raw > 0)) continue;
      if (!includeSources && this.isSource[doc] === 1) continue;
      total++;
      const score = Math.round(raw * 10_000) / 10_000;
      let pos = bestDocs.length;
      while (
        pos > 0 &&
        (score > bestScores[pos - 1]! || (score === bestScores[pos - 1] && idRank[doc]! < idRank[bestDocs[pos - 1]!]!))
      ) {
        pos--;
      }
      if (pos >= limit) continue;
      bestDocs.splice(pos, 0, doc);
      bestScores.splice(pos, 0, score);
      if (bestDocs.length > limit) {
        bestDocs.pop();
        bestScores.pop();
      }
    }
    const top = bestDocs.map((doc, i) => ({ doc, score: bestScores[i]! }));
    const hits = top.map(({ doc, score }) => {
      const page = this.docs[doc]!;
      const present = terms.filter((term) => this.contains(term, doc));
      return { page, score, snippet: makeSnippet(page.body, terms), terms: present };
    });
    return { query: q, total, hits };
  }
}

/**
 * Up to 160 characters of the body (whitespace collapsed) around the first occurrence of any query term, with `...`
 * where the text was cut; the first 160 characters when no term occurs in the body.
 */
export function makeSnippet(body: string, terms: readonly string[], length = SNIPPET_LENGTH): string {
  const text = body.normalize('NFC').replace(/\s+/g, ' ').trim();
  if (text.length <= length) return text;
  const wanted = new Set(terms);
  let hit = -1;
  let hitLength = 0;
  if (wanted.size > 0) {
    for (const m of text.matchAll(TOKEN_RE)) {
      if (wanted.has(m[0].toLowerCase())) {
        hit = m.index;
        hitLength = m[0].length;
        break;
      }
    }
  }
  let start = 0;
  if (hit > 0) {
    // Put the hit about a third into the window, then keep the window inside the text.
    start = Math.max(0, Math.min(hit - Math.floor(length / 3), text.length - length));
    // Do not start mid-word when a word boundary is close and the hit stays inside.
    if (start > 0 && text[start - 1] !== ' ') {
      const space = text.indexOf(' ', start);
      if (space !== -1 && space < hit && space - start < 20) start = space + 1;
    }
  }
  let end = Math.min(text.length, start + length);
  if (end < text.length && text[end] !== ' ') {
    const space = text.lastIndexOf(' ', end);
    if (space > start && end - space < 20 && space >= hit + hitLength) end = space;
  }
  const core = text.slice(start, end).trim();
  return `${start > 0 ? '...' : ''}${core}${end < text.length ? '...' : ''}`;
}
