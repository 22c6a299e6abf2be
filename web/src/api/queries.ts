import { keepPreviousData, QueryClient, queryOptions } from '@tanstack/react-query';
import { listQuery, type PaperListFilters } from '../lib/paper-list';
import { api, ApiError, pathId } from './client';
import { fetchPaper } from './papers';
import type {
  Figures,
  GraphAnswer,
  GraphSchema,
  GraphStats,
  NeedsParserPage,
  PageDetailResponse,
  PageListResponse,
  PaperList,
  PaperStats,
  PatItem,
  ScopeList,
  SearchResponse,
  ServerInfo,
  SyncStatusBody,
  StatsResponse,
} from './types';

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 30_000,
      refetchOnWindowFocus: false,
      // A 4xx will not change by asking again; other failures get two more tries.
      retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2,
    },
  },
});

export interface PageFilters {
  type: string;
  status: string;
  tags: string;
}

const LONG = 5 * 60_000;

export const q = {
  serverInfo: () =>
    queryOptions({ queryKey: ['server-info'], queryFn: () => api<ServerInfo>('/api/server/info'), staleTime: LONG }),
  scopes: () =>
    queryOptions({ queryKey: ['scopes'], queryFn: () => api<ScopeList>('/api/pat/scopes'), staleTime: Infinity }),
  pats: () => queryOptions({ queryKey: ['pats'], queryFn: () => api<{ tokens: PatItem[] }>('/api/pat') }),
  wikiStats: () => queryOptions({ queryKey: ['wiki', 'stats'], queryFn: () => api<StatsResponse>('/api/stats') }),
  pages: (f: PageFilters) =>
    queryOptions({
      queryKey: ['wiki', 'pages', f],
      queryFn: () => {
        const p = new URLSearchParams();
        if (f.type) p.set('page_type', f.type);
        if (f.status) p.set('status', f.status);
        if (f.tags) p.set('tags', f.tags);
        return api<PageListResponse>(`/api/pages${p.size ? `?${p}` : ''}`);
      },
    }),
  /** Every served page id with its title (the non-source list plus the source list), for link checks and titles. */
  pageIndex: () =>
    queryOptions({
      queryKey: ['wiki', 'index'],
      queryFn: async () => {
        const [entries, sources] = await Promise.all([
          api<PageListResponse>('/api/pages'),
          api<PageListResponse>('/api/pages?page_type=source'),
        ]);
        return new Map([...entries.pages, ...sources.pages].map((p) => [p.id, p]));
      },
      staleTime: LONG,
    }),
  page: (id: string) =>
    queryOptions({
      queryKey: ['wiki', 'page', id],
      queryFn: () => api<PageDetailResponse>(`/api/pages/${encodeURIComponent(id)}`),
    }),
  search: (query: string, includeSources: boolean) =>
    queryOptions({
      queryKey: ['wiki', 'search', query, includeSources],
      queryFn: ({ signal }) =>
        api<SearchResponse>(
          `/api/search?${new URLSearchParams({ q: query, limit: '50', include_sources: String(includeSources) })}`,
          { signal },
        ),
    }),
  syncStatus: () =>
    queryOptions({ queryKey: ['wiki', 'sync'], queryFn: () => api<SyncStatusBody>('/api/wiki/sync/status') }),
  paperStats: () =>
    queryOptions({ queryKey: ['papers', 'stats'], queryFn: () => api<PaperStats>('/api/papers/stats') }),
  needsParser: () =>
    queryOptions({
      queryKey: ['papers', 'needs-parser'],
      queryFn: () => api<NeedsParserPage>('/api/papers/needs-parser?limit=100&include_claimed=true'),
    }),
  /** One page of the stored papers; the previous page stays on screen while the next one loads. */
  papers: (f: PaperListFilters) =>
    queryOptions({
      queryKey: ['papers', 'list', f],
      queryFn: ({ signal }) => api<PaperList>(`/api/papers?${listQuery(f)}`, { signal }),
      placeholderData: keepPreviousData,
    }),
  /** A paper's registry record, or null when nothing is stored for it. */
  paper: (id: string) =>
    queryOptions({ queryKey: ['papers', 'detail', id], queryFn: ({ signal }) => fetchPaper(id, signal) }),
  figures: (id: string) =>
    queryOptions({
      queryKey: ['papers', 'figures', id],
      queryFn: ({ signal }) => api<Figures>(`/api/papers/${pathId(id)}/figures`, { signal }),
    }),
  graphStats: () =>
    queryOptions({ queryKey: ['graph', 'stats'], queryFn: () => api<GraphAnswer<GraphStats>>('/api/graph/stats') }),
  graphSchema: () =>
    queryOptions({
      queryKey: ['graph', 'schema'],
      queryFn: () => api<GraphAnswer<GraphSchema>>('/api/graph/schema'),
      staleTime: LONG,
    }),
};
