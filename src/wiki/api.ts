/**
 * Response bodies of the wiki read endpoints (CONTRACT §13.4), as plain objects, so routes only parse the query
 * string and serialise. Query-string syntax errors (non-integer `limit`, bad booleans) stay the route's job.
 */
import { dateToRfc3339 } from './dates.js';
import { isSafePageId } from './ids.js';
import { compareStrings } from './links.js';
import { backlinksOf, linksOf, type WikiSnapshot } from './snapshot.js';
import { PAGE_STATUSES, PAGE_TYPES, type FrontmatterMap, type WikiPage } from './types.js';

export interface PageListItem {
  id: string;
  title: string;
  type: string;
  category: string;
  status: string;
  tags: string[];
}

export interface PageListResponse {
  total: number;
  pages: PageListItem[];
}

export interface PageListQuery {
  /** Exact type; `source` pages are listed only with `page_type=source`. Empty = no filter. */
  page_type?: string | undefined;
  /** Exact status. Empty = no filter. */
  status?: string | undefined;
  /** Comma-separated tags, any-of, case-insensitive exact. Empty = no filter. */
  tags?: string | undefined;
}

export interface PageDetailResponse {
  id: string;
  title: string;
  type: string;
  category: string;
  tags: string[];
  status: string;
  created_at: string | null;
  updated_at: string | null;
  related: string[];
  doi: string | null;
  content: string;
  links: string[];
  backlinks: string[];
  frontmatter: FrontmatterMap;
}

export interface StatsResponse {
  total_pages: number;
  entries: number;
  sources: number;
  by_type: Record<string, number>;
  by_status: Record<string, number>;
  by_category: Record<string, number>;
  synced_to_graph: number;
  needs_sync: number;
  invalid_pages: number;
}

export interface SearchResultItem {
  id: string;
  title: string;
  type: string;
  category: string;
  snippet: string;
  score: number;
}

export interface SearchResponse {
  query: string;
  total: number;
  results: SearchResultItem[];
}

export interface SearchQuery {
  q?: string | undefined;
  /** Clamped to 1..100; default 10. */
  limit?: number | undefined;
  include_sources?: boolean | undefined;
}

function listItem(page: WikiPage): PageListItem {
  return {
    id: page.id,
    title: page.title,
    type: page.type,
    category: page.category ?? '',
    status: page.status,
    tags: [...page.tags],
  };
}

/** `GET /api/pages` body: served pages sorted by id, filtered. */
export function listPages(snapshot: WikiSnapshot, query: PageListQuery = {}): PageListResponse {
  const type = query.page_type ?? '';
  const status = query.status ?? '';
  const wantedTags = (query.tags ?? '')
    .split(',')
    .map((t) => t.trim().toLowerCase())
    .filter((t) => t !== '');
  const pages = snapshot.pages.filter((page) => {
    if (type === '' ? page.type === 'source' : page.type !== type) return false;
    if (status !== '' && page.status !== status) return false;
    if (wantedTags.length > 0 && !page.tags.some((tag) => wantedTags.includes(tag.toLowerCase()))) return false;
    return true;
  });
  return { total: pages.length, pages: pages.map(listItem) };
}

/**
 * `GET /api/pages/{page_id}` body, or `null` for an unknown or invalid id (any `/`, `..`, NUL, ...) — the route
 * answers 404 `{"detail":"Page not found: <id>"}`. Source pages are retrievable.
 */
export function getPageDetail(snapshot: WikiSnapshot, id: string): PageDetailResponse | null {
  if (!isSafePageId(id)) return null;
  const page = snapshot.byId.get(id);
  if (!page) return null;
  return {
    id: page.id,
    title: page.title,
    type: page.type,
    category: page.category ?? '',
    tags: [...page.tags],
    status: page.status,
    created_at: dateToRfc3339(page.created_at),
    updated_at: dateToRfc3339(page.updated_at),
    related: [...page.related],
    doi: page.doi,
    content: page.body,
    links: [...linksOf(snapshot, page.id)],
    backlinks: [...backlinksOf(snapshot, page.id)],
    frontmatter: page.frontmatter,
  };
}

/** `GET /api/stats` body: counts over served pages. */
export function wikiStats(snapshot: WikiSnapshot): StatsResponse {
  // Maps, not objects: statuses and categories are free text (a `__proto__` category must stay a plain key).
  const byType = new Map<string, number>(PAGE_TYPES.map((t) => [t, 0]));
  const byStatus = new Map<string, number>(PAGE_STATUSES.map((s) => [s, 0]));
  const byCategory = new Map<string, number>();
  let synced = 0;
  for (const page of snapshot.pages) {
    increment(byType, page.type);
    increment(byStatus, page.status);
    if (page.category !== null) increment(byCategory, page.category);
    if (page.graph_synced) synced++;
  }
  const total = snapshot.pages.length;
  const sources = byType.get('source') ?? 0;
  return {
    total_pages: total,
    entries: total - sources,
    sources,
    by_type: Object.fromEntries(byType),
    by_status: Object.fromEntries(byStatus),
    by_category: Object.fromEntries([...byCategory].sort(([a], [b]) => compareStrings(a, b))),
    synced_to_graph: synced,
    needs_sync: total - synced,
    invalid_pages: snapshot.excluded.length,
  };
}

/** `GET /api/search` body. */
export function searchWiki(snapshot: WikiSnapshot, query: SearchQuery): SearchResponse {
  const outcome = snapshot.search.search(query.q ?? '', {
    limit: query.limit,
    includeSources: query.include_sources === true,
  });
  return {
    query: outcome.query,
    total: outcome.total,
    results: outcome.hits.map(({ page, score, snippet }) => ({
      id: page.id,
      title: page.title,
      type: page.type,
      category: page.category ?? '',
      snippet,
      score,
    })),
  };
}

function increment(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}
