/**
 * `GET /api/papers` (CONTRACT §18.2): one page of the stored papers from the metadata index, one item per stored
 * versioned id (docs/decisions.md "Paper registry reads"). The index keeps the rows in both list orders, so a page
 * without filters costs O(page). A filtered page makes one plain pass over the columns (which also counts
 * `total`), comparing a lower-cased copy of each id and title that is kept between requests and refreshed only for
 * rows whose title changed; then it sorts the matches when they are few, or picks them out of the kept order.
 */
import type { PaperList, PaperListItem } from '../../shared/api/registry.js';
import { rfc3339 } from '../../shared/time.js';
import type { IndexTable, ListRow } from './index/table.js';
import type { ListSort, PaperIndex, RowListing } from './paper-index.js';
import { requireIndex } from './stored-ids.js';

export interface PaperListQuery {
  /** Case-insensitive substring of the id or the title; `null` or empty: no filter. */
  readonly q: string | null;
  /** `null`: no filter; `true`/`false`: only rows with / without the object. */
  readonly hasMd: boolean | null;
  readonly hasPdf: boolean | null;
  readonly sort: ListSort;
  /** 1-based, already clamped. */
  readonly page: number;
  readonly perPage: number;
}

/** Up to this many matches are sorted on their own; more are picked out of the kept order. */
const SORT_MATCHES_MAX = 4096;

/** Lower-cased ids and titles of one table, by row number (a title is re-lowered when its string changed). */
interface Folded {
  readonly table: IndexTable;
  readonly ids: string[];
  readonly titles: (string | null)[];
  readonly lowerTitles: (string | null)[];
}

/** The list queries over one index; holds the lower-cased search text between requests. */
export class PaperListService {
  private folded: Folded | null = null;

  constructor(private readonly index: PaperIndex) {}

  page(query: PaperListQuery): PaperList {
    requireIndex(this.index);
    const listing = this.index.listing(query.sort);
    const { table, order, compare } = listing;
    const itemOf = (i: number) => listItem(listing.row(i));
    const start = (query.page - 1) * query.perPage;
    const end = start + query.perPage;
    const needle = query.q ? query.q.toLowerCase() : '';
    const items: PaperListItem[] = [];
    if (needle === '' && query.hasMd === null && query.hasPdf === null) {
      for (const i of order.from(start)) {
        if (items.length >= query.perPage) break;
        items.push(itemOf(i));
      }
      return { items, total: order.size, page: query.page, per_page: query.perPage };
    }
    const matches = this.matching(listing, needle, query.hasMd, query.hasPdf);
    const total = matches.length;
    if (total <= SORT_MATCHES_MAX) {
      // Few matches: sort just them.
      matches.sort(compare);
      for (const i of matches.slice(start, end)) items.push(itemOf(i));
      return { items, total, page: query.page, per_page: query.perPage };
    }
    // Many matches: walk the kept order and stop at the end of the page.
    const marks = new Uint8Array(table.length);
    for (const i of matches) marks[i] = 1;
    let seen = 0;
    for (const i of order.from(0)) {
      if (marks[i] !== 1) continue;
      if (seen >= start) items.push(itemOf(i));
      if (++seen >= end) break;
    }
    return { items, total, page: query.page, per_page: query.perPage };
  }

  /** The row numbers (in row order) that pass the filters: one plain pass over the columns. */
  private matching(listing: RowListing, needle: string, hasMd: boolean | null, hasPdf: boolean | null): number[] {
    const { table } = listing;
    const md = hasMd === null ? -1 : hasMd ? 1 : 0;
    const pdf = hasPdf === null ? -1 : hasPdf ? 1 : 0;
    const mdFlags = table.flags.has_md;
    const pdfFlags = table.flags.has_pdf;
    const folded = needle === '' ? null : this.fold(table);
    const out: number[] = [];
    const visit = (i: number, title: string | null) => {
      // A new row's title, or one whose string changed, is lowered (again).
      if (folded !== null && title !== folded.titles[i]) {
        folded.titles[i] = title;
        folded.lowerTitles[i] = title === null ? null : title.toLowerCase();
      }
      if (md !== -1 && mdFlags[i] !== md) return;
      if (pdf !== -1 && pdfFlags[i] !== pdf) return;
      if (folded !== null && !folded.ids[i]!.includes(needle) && !folded.lowerTitles[i]?.includes(needle)) return;
      out.push(i);
    };
    if (folded === null) for (let i = 0; i < table.length; i++) visit(i, null);
    else listing.eachTitle(visit);
    return out;
  }

  /** The lower-cased search text of `table`, its ids extended to its new rows (a reload starts over). */
  private fold(table: IndexTable): Folded {
    let folded = this.folded;
    if (folded === null || folded.table !== table) {
      folded = { table, ids: [], titles: [], lowerTitles: [] };
      this.folded = folded;
    }
    for (let i = folded.ids.length; i < table.length; i++) folded.ids.push(table.idAt(i).toLowerCase());
    return folded;
  }
}

function listItem(row: ListRow): PaperListItem {
  return {
    preprint_id: row.preprint_id,
    paper_id: row.preprint_id,
    status: row.has_md ? 'ready' : 'pending',
    title: row.title,
    has_pdf: row.has_pdf,
    has_md: row.has_md,
    image_count: row.image_count,
    updated_at: rfc3339(row.updated_at),
  };
}
