/**
 * Chunk search over HTTP (CONTRACT §11.7): `GET /api/rag/healthz` (anonymous) and `POST /api/rag/search`
 * (`papers:read`), registered when paper access is on and both search upstreams are configured.
 */
import { Type } from '@sinclair/typebox';
import { InvalidInputError } from '../../shared/domain-errors.js';
import type { RoutePlugin } from '../http/context.js';
import type { ChunkSearch, SearchInput } from '../rag/service.js';
import { PUBLIC, scope } from './guard.js';
import { ErrorBody, Nullable } from './schemas.js';

const MAX_QUERY = 2048;

const SearchBody = Type.Object(
  {
    query: Type.String({ description: `trimmed, 1..${MAX_QUERY} characters` }),
    top_k: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, description: 'default 8' })),
    rerank: Type.Optional(Type.Boolean({ description: 'default true' })),
    rerank_pool: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 200, description: 'default 50; raised to top_k when smaller' }),
    ),
    use_sparse: Type.Optional(Type.Boolean({ description: 'default true' })),
    filters: Type.Optional(
      // JSON bodies are validated as sent (no coercion, http/validation.ts), so `3` stays a number and `"0811"` a
      // string; `anyOf`, not a type list, which Ajv's strict mode refuses to compile quietly.
      Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()]), {
        description: 'payload key → exact value (all must match)',
      }),
    ),
  },
  { additionalProperties: false },
);

const Hit = Type.Object({
  preprint_id: Nullable(Type.String()),
  canonical: Nullable(Type.String()),
  yymm: Nullable(Type.String()),
  version: Nullable(Type.Integer()),
  title: Nullable(Type.String()),
  authors: Type.Array(Type.String()),
  categories: Type.Array(Type.String()),
  section_path: Type.Array(Type.String()),
  chunk_index: Nullable(Type.Integer()),
  snippet: Type.String(),
  score: Type.Number(),
  md_object_key: Nullable(Type.String()),
  char_start: Nullable(Type.Integer()),
  char_end: Nullable(Type.Integer()),
  image_refs: Type.Array(Type.String()),
});

const SearchResponse = Type.Object({
  query: Type.String(),
  took_s: Type.Number(),
  reranked: Type.Boolean(),
  results: Type.Array(Hit),
});

export const ragRoutes: RoutePlugin<{ search: ChunkSearch }> = async (app, { search }) => {
  const tags = ['search'];
  app.get(
    '/api/rag/healthz',
    {
      config: { guard: PUBLIC },
      schema: {
        summary: 'Health of the chunk-search upstreams (vector DB and embed server)',
        tags,
        response: { 200: Type.Object({ status: Type.String({ enum: ['ok', 'degraded', 'down'] }) }) },
      },
    },
    async () => ({ status: await search.health() }),
  );

  app.post(
    '/api/rag/search',
    {
      config: { guard: scope('papers', 'read') },
      schema: {
        summary: 'Search paper chunks (dense + sparse fusion, optional rerank)',
        tags,
        body: SearchBody,
        response: {
          200: SearchResponse,
          400: { ...ErrorBody, description: 'a value out of range (no clamping) or an unknown field' },
          502: { ...ErrorBody, description: 'search upstream error: <reason>' },
        },
      },
    },
    async (request) => {
      const body = request.body;
      const query = body.query.trim();
      if (query.length < 1 || query.length > MAX_QUERY) {
        throw new InvalidInputError(`query: must be 1..${MAX_QUERY} characters after trimming`);
      }
      const topK = body.top_k ?? 8;
      const input: SearchInput = {
        query,
        top_k: topK,
        rerank: body.rerank ?? true,
        rerank_pool: Math.max(body.rerank_pool ?? 50, topK),
        use_sparse: body.use_sparse ?? true,
        filters: body.filters ?? {},
      };
      return search.search(input);
    },
  );
};
