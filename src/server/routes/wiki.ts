import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { PullResult, SyncStatus } from '../../shared/api/wiki-sync.js';
import { InvalidInputError, NotFoundError } from '../../shared/domain-errors.js';
import { getPageDetail, listPages, searchWiki, wikiStats } from '../../wiki/index.js';
import type { RoutePlugin } from '../http/context.js';
import { PageBodies } from '../wiki/page-bodies.js';
import { queryBoolean } from '../http/query.js';
import { scope } from './guard.js';
import { ErrorBody, Nullable, OpenObject, QueryBoolean } from './schemas.js';

const Counts = Type.Object({}, { additionalProperties: Type.Integer() });

const PageListQuery = Type.Object(
  {
    page_type: Type.Optional(Type.String({ description: 'exact type; `source` pages are listed only with `source`' })),
    status: Type.Optional(Type.String({ description: 'exact status' })),
    tags: Type.Optional(Type.String({ description: 'CSV of tags, any-of, case-insensitive exact' })),
  },
  { additionalProperties: true },
);

const PageListItem = Type.Object({
  id: Type.String(),
  title: Type.String(),
  type: Type.String(),
  category: Type.String(),
  status: Type.String(),
  tags: Type.Array(Type.String()),
});

const PageList = Type.Object({ total: Type.Integer(), pages: Type.Array(PageListItem) });

const PageParams = Type.Object({ page_id: Type.String() });

const PageDetail = Type.Object({
  id: Type.String(),
  title: Type.String(),
  type: Type.String(),
  category: Type.String(),
  tags: Type.Array(Type.String()),
  status: Type.String(),
  created_at: Nullable(Type.String({ format: 'date-time' })),
  updated_at: Nullable(Type.String({ format: 'date-time' })),
  related: Type.Array(Type.String()),
  doi: Nullable(Type.String()),
  content: Type.String(),
  links: Type.Array(Type.String()),
  backlinks: Type.Array(Type.String()),
  frontmatter: OpenObject({}, 'the parsed frontmatter mapping, dates as YYYY-MM-DD'),
});

const Stats = Type.Object({
  total_pages: Type.Integer(),
  entries: Type.Integer(),
  sources: Type.Integer(),
  by_type: Counts,
  by_status: Counts,
  by_category: Counts,
  synced_to_graph: Type.Integer(),
  needs_sync: Type.Integer(),
  invalid_pages: Type.Integer(),
});

const SearchQuery = Type.Object(
  {
    q: Type.Optional(Type.String()),
    limit: Type.Optional(Type.Integer({ description: 'default 10, clamped to 1..100' })),
    include_sources: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

const SearchQueryDocument = Type.Object({
  ...SearchQuery.properties,
  include_sources: Type.Optional(QueryBoolean('include `source` pages (default false)')),
});

const SearchResults = Type.Object({
  query: Type.String(),
  total: Type.Integer(),
  results: Type.Array(
    Type.Object({
      id: Type.String(),
      title: Type.String(),
      type: Type.String(),
      category: Type.String(),
      snippet: Type.String(),
      score: Type.Number(),
    }),
  ),
});

/**
 * The pull takes no parameters: no body, an empty body or `{}`. (Not a body schema: Fastify would then reject a
 * request without a body.) Other bodies get the §0.2 answers.
 */
function requireEmptyBody(body: unknown): void {
  if (body === undefined || body === null) return;
  if (typeof body !== 'object' || Array.isArray(body)) throw new InvalidInputError('body: must be object');
  const [first] = Object.keys(body);
  if (first !== undefined) throw new InvalidInputError(`unknown field '${first}'`);
}

/** Serialized page bodies held (`PageBodies`), and the largest one kept. */
const PAGE_BODIES_BYTES = 16 * 1024 * 1024;
const PAGE_BODY_MAX_BYTES = 256 * 1024;

/** Wiki endpoints (CONTRACT §13.4): pages, stats, search, sync status and pull. */
export const wikiRoutes: RoutePlugin = async (app, { ctx }) => {
  const wiki = ctx.wiki;
  const read = { guard: scope('wiki', 'read') };
  const tags = ['wiki'];

  app.get(
    '/api/pages',
    {
      config: read,
      schema: {
        summary: 'List wiki pages (source pages only with page_type=source)',
        tags,
        querystring: PageListQuery,
        response: { 200: PageList },
      },
    },
    async (request) => listPages(wiki.snapshot(), request.query),
  );

  // The page's JSON as bytes, serialized once per snapshot; the content type is the one the serializer's answer has.
  const bodies = new PageBodies(PAGE_BODIES_BYTES, PAGE_BODY_MAX_BYTES);
  const pageDetail = (id: string, reply: FastifyReply): void => {
    const snapshot = wiki.snapshot();
    const body = bodies.get(snapshot, id, () => getPageDetail(snapshot, id));
    if (body === null) throw new NotFoundError(`Page not found: ${id}`);
    void reply.type('application/json; charset=utf-8').send(body);
  };
  app.get(
    '/api/pages/:page_id',
    {
      config: read,
      schema: {
        summary: 'One wiki page: frontmatter, content, links and backlinks',
        tags,
        params: PageParams,
        response: { 200: PageDetail, 404: ErrorBody },
      },
    },
    (request, reply) => pageDetail(request.params.page_id, reply),
  );
  // An id sent with a raw `/` spans segments: it is never a page, but it gets the same 404 body (§13.4).
  app.get(
    '/api/pages/*',
    {
      config: read,
      schema: {
        hide: true,
        params: Type.Object({ '*': Type.String() }),
        response: { 200: PageDetail, 404: ErrorBody },
      },
    },
    (request, reply) => pageDetail(request.params['*'], reply),
  );

  app.get(
    '/api/stats',
    { config: read, schema: { summary: 'Wiki statistics', tags, response: { 200: Stats } } },
    async () => wikiStats(wiki.snapshot()),
  );

  app.get(
    '/api/search',
    {
      config: { ...read, openapi: { querystring: SearchQueryDocument } },
      schema: {
        summary: 'Full-text search over wiki pages (BM25)',
        tags,
        querystring: SearchQuery,
        response: { 200: SearchResults },
      },
    },
    async (request) => {
      const { q, limit } = request.query;
      const includeSources = queryBoolean(request.query.include_sources, 'include_sources');
      return searchWiki(wiki.snapshot(), { q, limit, include_sources: includeSources });
    },
  );

  app.get(
    '/api/wiki/sync/status',
    {
      config: read,
      schema: { summary: 'Local git status of the wiki checkout (no network)', tags, response: { 200: SyncStatus } },
    },
    async () => wiki.syncStatus(),
  );

  app.post(
    '/api/wiki/sync/pull',
    {
      config: { guard: scope('wiki', 'write'), rateLimitClass: 'write' },
      schema: {
        summary: 'Fetch (prune) and fast-forward the wiki checkout, then refresh the cache',
        description: 'Takes no body (an empty body or `{}` is accepted).',
        tags,
        response: {
          200: PullResult,
          400: { ...ErrorBody, description: 'a body other than none, empty or `{}`' },
          409: {
            ...ErrorBody,
            description: 'the checkout is missing, not a git checkout, dirty, or cannot fast-forward',
          },
          500: { ...ErrorBody, description: 'git cannot be run' },
          502: { ...ErrorBody, description: 'git fetch or pull failed' },
        },
      },
    },
    async (request) => {
      requireEmptyBody(request.body);
      return wiki.pull();
    },
  );
};
