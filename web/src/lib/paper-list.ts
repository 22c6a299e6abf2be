/**
 * The papers list's state as it lives in the page address (`/papers?q=…&has_pdf=…&has_md=…&sort=…&page=…`) and the
 * `GET /api/papers` query it asks (CONTRACT §18.2). The address uses the API's own parameter names; whatever a
 * hand-edited address holds, the request carries only values the server accepts.
 */
import { fmtNumber } from './format.js';

export type Flag = '' | 'true' | 'false';
export type PaperSort = 'updated_at' | 'id';

export interface PaperListFilters {
  /** Case-insensitive substring of id or title; '' for all. */
  q: string;
  hasPdf: Flag;
  hasMd: Flag;
  sort: PaperSort;
  /** 1-based. */
  page: number;
}

/** Papers per page (the server's default). */
export const PER_PAGE = 20;

const flag = (v: string | null): Flag => (v === 'true' || v === 'false' ? v : '');

/** The filters an address holds; unknown or malformed values fall back to the defaults. */
export function filtersFrom(params: URLSearchParams): PaperListFilters {
  const page = Number(params.get('page'));
  return {
    q: params.get('q') ?? '',
    hasPdf: flag(params.get('has_pdf')),
    hasMd: flag(params.get('has_md')),
    sort: params.get('sort') === 'id' ? 'id' : 'updated_at',
    page: Number.isSafeInteger(page) && page > 1 ? page : 1,
  };
}

/** The query string of `GET /api/papers` for these filters (defaults left out, `q` trimmed). */
export function listQuery(f: PaperListFilters): string {
  const p = new URLSearchParams();
  const text = f.q.trim();
  if (text) p.set('q', text);
  if (f.hasPdf) p.set('has_pdf', f.hasPdf);
  if (f.hasMd) p.set('has_md', f.hasMd);
  if (f.sort !== 'updated_at') p.set('sort', f.sort);
  if (f.page > 1) p.set('page', String(f.page));
  p.set('per_page', String(PER_PAGE));
  return p.toString();
}

/** Pages of `perPage` items that `total` items fill (at least one, so "page 1 of 1" reads right when empty). */
export const pageCount = (total: number, perPage: number): number => Math.max(1, Math.ceil(total / perPage));

/** "21–40 of 57": the 1-based range shown on `page`, or null when the page holds nothing. */
export function rangeText(page: number, perPage: number, shown: number, total: number): string | null {
  if (shown === 0) return null;
  const first = (page - 1) * perPage + 1;
  return `${fmtNumber(first)}–${fmtNumber(first + shown - 1)} of ${fmtNumber(total)}`;
}
