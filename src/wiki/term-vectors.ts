/**
 * The search index of CONTRACT §13.4 kept per page: each page's field-weighted term frequencies (its term vector)
 * over a shared term dictionary. Vectors can be stored and reused page by page (the `pks wiki search` cache), and
 * ranking a query over them gives exactly the hits of `WikiSearchIndex.search` on the same served pages.
 */
import { compareStrings } from './links.js';
import { BM25_B, BM25_K1, FIELD_WEIGHTS, TITLE_SUBSTRING_BONUS, clampLimit } from './search.js';
import { TermCounter } from './term-table.js';
import { forEachToken, tokenize } from './tokens.js';
import type { SearchOptions } from './search.js';
import type { WikiPage } from './types.js';

/** Terms by dense id; the id of a term string is looked up through a map built on first use. */
export class TermDictionary {
  private index: Map<string, number> | null = null;

  constructor(readonly terms: string[] = []) {}

  /** Id of a term, or `-1`. Before the map exists, a scan: a query's few lookups cost less than building it. */
  idOf(term: string): number {
    return this.index === null ? this.terms.indexOf(term) : (this.index.get(term) ?? -1);
  }

  /** Id of a term, appending it when new. */
  intern(term: string): number {
    const index = this.lookup();
    let id = index.get(term);
    if (id === undefined) {
      id = this.terms.length;
      this.terms.push(term);
      index.set(term, id);
    }
    return id;
  }

  private lookup(): Map<string, number> {
    if (this.index === null) {
      this.index = new Map();
      for (let id = 0; id < this.terms.length; id++) this.index.set(this.terms[id]!, id);
    }
    return this.index;
  }
}

/** A page's terms: `pairs` holds (term id, field-weighted frequency) pairs; `length` the field-weighted length. */
export interface TermVector {
  readonly pairs: Uint32Array;
  readonly length: number;
}

/** Builds term vectors with the tokenizer and field weights of `WikiSearchIndex`. */
export class TermVectorizer {
  private readonly counter = new TermCounter();
  private weight = 0;

  constructor(readonly dictionary: TermDictionary) {}

  private readonly count = (token: string): void => this.counter.add(this.dictionary.intern(token), this.weight);

  private add(text: string, weight: number): void {
    this.weight = weight;
    forEachToken(text, this.count);
  }

  vectorize(page: WikiPage): TermVector {
    this.add(page.title, FIELD_WEIGHTS.title);
    this.add(page.id, FIELD_WEIGHTS.id);
    for (const tag of page.tags) this.add(tag, FIELD_WEIGHTS.tags);
    this.add(page.body, FIELD_WEIGHTS.body);
    const pairs = new Uint32Array(this.counter.distinct * 2);
    const length = this.counter.length;
    let at = 0;
    this.counter.drain((id, frequency) => {
      pairs[at++] = id;
      pairs[at++] = frequency;
    });
    return { pairs, length };
  }
}

/** The served pages as the ranking reads them, numbered from 0. */
export interface RankedPages {
  /** The field-weighted length of each page (their number is the number of pages). */
  readonly lengths: Float64Array;
  id(doc: number): string;
  isSource(doc: number): boolean;
}

/** What a query finds in the pages, gathered by the caller from wherever the term vectors are kept. */
export interface QueryCounts {
  /** `pages × terms.length`: the field-weighted frequency of each query term (by slot) in each page. */
  readonly tfs: Float64Array;
  /** The number of pages holding each query term. */
  readonly df: Float64Array;
  /** 1 where the lower-cased title contains the whole lower-cased query. */
  readonly titleMatch: Uint8Array;
}

/** A query as the ranking takes it: trimmed, its lower-cased form, and its distinct terms in query order. */
export interface ParsedQuery {
  readonly q: string;
  readonly lower: string;
  readonly terms: string[];
}

export function parseQuery(query: string): ParsedQuery {
  const q = query.trim();
  return { q, lower: q.toLowerCase(), terms: q === '' ? [] : [...new Set(tokenize(q))] };
}

export interface VectorSearchOutcome {
  /** The query, trimmed. */
  query: string;
  /** The distinct query terms, in query order (the snippet's terms). */
  terms: string[];
  /** Matches after the source filter, before `limit`. */
  total: number;
  /** Best first: the page number and the score rounded to 4 decimals. */
  hits: { doc: number; score: number }[];
}

/**
 * Rank `pages` for `query` exactly as `WikiSearchIndex.search` does: the same BM25 terms added in the same order,
 * the same title bonus, rounding and tie-break by id.
 */
export function rankPages(
  pages: RankedPages,
  query: ParsedQuery,
  counts: QueryCounts,
  options: SearchOptions = {},
): VectorSearchOutcome {
  if (query.q === '') return { query: '', terms: [], total: 0, hits: [] };
  const limit = clampLimit(options.limit);
  const k = query.terms.length;
  const n = pages.lengths.length;
  const { tfs, df, titleMatch } = counts;
  let totalLength = 0;
  for (let doc = 0; doc < n; doc++) totalLength += pages.lengths[doc]!;
  const avgLength = n > 0 && totalLength > 0 ? totalLength / n : 1;
  const idf = Array.from(df, (count) => Math.log(1 + (n - count + 0.5) / (count + 0.5)));
  // The best `limit` so far, best first: by rounded score, then id.
  const best: { doc: number; score: number }[] = [];
  const before = (score: number, doc: number, other: { doc: number; score: number }): boolean =>
    score > other.score || (score === other.score && compareStrings(pages.id(doc), pages.id(other.doc)) < 0);
  let total = 0;
  for (let doc = 0; doc < n; doc++) {
    const norm = BM25_K1 * (1 - BM25_B + (BM25_B * pages.lengths[doc]!) / avgLength);
    let raw = 0;
    for (let slot = 0; slot < k; slot++) {
      const tf = tfs[doc * k + slot]!;
      if (tf > 0) raw += (idf[slot]! * tf * (BM25_K1 + 1)) / (tf + norm);
    }
    if (titleMatch[doc] === 1) raw += TITLE_SUBSTRING_BONUS;
    if (!(raw > 0)) continue;
    if (options.includeSources !== true && pages.isSource(doc)) continue;
    total++;
    const score = Math.round(raw * 10_000) / 10_000;
    if (best.length === limit && !before(score, doc, best[limit - 1]!)) continue;
    let pos = best.length;
    while (pos > 0 && before(score, doc, best[pos - 1]!)) pos--;
    best.splice(pos, 0, { doc, score });
    if (best.length > limit) best.pop();
  }
  return { query: query.q, terms: query.terms, total, hits: best };
}
