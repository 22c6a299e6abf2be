import { Type, type Static } from '@sinclair/typebox';
import { GraphFailure, GraphQueryFailure, GraphQueryResult, GraphSchema, GraphStats } from '../../shared/api/graph.js';
import type { RoutePlugin } from '../http/context.js';
import { scope } from './guard.js';
import { ErrorBody } from './schemas.js';

const GRAPH_READ = scope('graph', 'read');

const QueryBody = Type.Object(
  {
    query: Type.Optional(
      Type.String({
        description:
          'Cypher, planned by the database and refused by its plan when it would read files or URLs (`LOAD CSV`), ' +
          'call a procedure or function outside the allow-list, or write; administration commands and control ' +
          'characters are refused; without a `LIMIT` keyword ` LIMIT <limit>` is appended',
      }),
    ),
    limit: Type.Optional(Type.Integer({ description: 'absent or ≤ 0 → 50; clamped to 10,000' })),
  },
  { additionalProperties: false },
);

/** What the document promises: the route itself answers a missing `query` with 400 `query required`. */
const QueryDocument = Type.Object(
  {
    query: Type.String({ minLength: 1, description: QueryBody.properties.query.description }),
    limit: QueryBody.properties.limit,
  },
  { additionalProperties: false },
);

/** `GET /api/graph/stats`, `GET /api/graph/schema`, `POST /api/graph/query` (CONTRACT §14, `graph:read`). */
export const graphRoutes: RoutePlugin = async (app, { ctx }) => {
  const { graph } = ctx;

  app.get(
    '/api/graph/stats',
    {
      config: { guard: GRAPH_READ },
      schema: {
        summary: 'Node, relationship and per-label counts',
        tags: ['graph'],
        response: { 200: Type.Union([GraphStats, GraphFailure]) },
      },
    },
    () => graph.stats(),
  );

  app.get(
    '/api/graph/schema',
    {
      config: { guard: GRAPH_READ },
      schema: {
        summary: 'Labels, relationship types and property keys',
        tags: ['graph'],
        response: { 200: Type.Union([GraphSchema, GraphFailure]) },
      },
    },
    () => graph.schema(),
  );

  // A success arrives as JSON text and is sent as its UTF-8 bytes, not serialised again (the schema still documents
  // it; serialising a union would first validate the whole answer against each branch). As bytes, because Node's
  // `res.end` of a string this size joins it to the header and encodes it there (measured up to ~1 ms slower).
  app.post<{ Body: Static<typeof QueryBody>; Reply: Buffer | GraphQueryFailure | GraphFailure }>(
    '/api/graph/query',
    {
      config: { guard: GRAPH_READ, openapi: { body: QueryDocument } },
      schema: {
        summary: 'Run a read-only Cypher query (at most 10,000 records)',
        tags: ['graph'],
        body: QueryBody,
        response: {
          200: Type.Union([GraphQueryResult, GraphQueryFailure, GraphFailure]),
          400: ErrorBody,
          429: { ...ErrorBody, description: 'as many graph queries as allowed are in flight; see Retry-After' },
        },
      },
    },
    async (request, reply) => {
      // A client that goes away ends its transaction on the server (§14.1).
      const gone = new AbortController();
      const onClose = (): void => {
        if (!reply.raw.writableFinished) gone.abort();
      };
      reply.raw.once('close', onClose);
      const result = await graph
        .query(request.body?.query ?? '', request.body?.limit, gone.signal)
        .finally(() => reply.raw.off('close', onClose));
      if (typeof result !== 'string') return result;
      return reply.type('application/json; charset=utf-8').send(Buffer.from(result));
    },
  );
};
