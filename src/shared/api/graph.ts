/**
 * The graph endpoints' answers (CONTRACT §14): statistics, schema and read-only queries, and the 200 `{error}` a graph
 * that is not configured, unreachable or failing answers instead. TypeBox only: the server documents its routes
 * with these schemas, and the web reads their bodies through the `Static<>` types.
 */
import { Type, type Static } from '@sinclair/typebox';

/** HTTP 200 `{error}`: the graph is not configured, unreachable or failed (CONTRACT §14). */
export const GraphFailure = Type.Object(
  { error: Type.String() },
  { description: 'the graph is not configured (`graph not configured (GRAPHDB_URI empty)`), unreachable or failed' },
);
export type GraphFailure = Static<typeof GraphFailure>;

/** `GET /api/graph/stats`. */
export const GraphStats = Type.Object({
  nodes: Type.Integer({ minimum: 0 }),
  relationships: Type.Integer({ minimum: 0 }),
  labels: Type.Array(Type.String(), { description: 'every label in the database, sorted' }),
  label_counts: Type.Record(Type.String(), Type.Integer({ minimum: 0 }), { description: 'nodes per label' }),
});
export type GraphStats = Static<typeof GraphStats>;

/** `GET /api/graph/schema`. */
export const GraphSchema = Type.Object({
  labels: Type.Array(Type.String()),
  relationship_types: Type.Array(Type.String()),
  property_keys: Type.Array(Type.String()),
});
export type GraphSchema = Static<typeof GraphSchema>;

/** The success answer of `POST /api/graph/query` (the server writes it as JSON text while the records stream in). */
export const GraphQueryResult = Type.Object({
  /** The query as run (with the appended `LIMIT`, if any). */
  query: Type.String({ description: 'the query as run' }),
  columns: Type.Array(Type.String()),
  records: Type.Array(
    Type.Record(Type.String(), Type.Unknown(), {
      description:
        'column → value: nodes `{id, labels, properties}`, relationships `{id, type, start_node, end_node, ' +
        'properties}`, paths `{nodes, relationships}`, unsafe integers as decimal strings, temporal values as ' +
        'ISO 8601, points `{srid, x, y, z?}`, byte arrays as base64',
    }),
  ),
  /** More than 10,000 records: the first 10,000 are returned. */
  truncated: Type.Boolean({
    description: 'cut at 10,000 records or at `SVC_GRAPH_QUERY_MAX_BYTES` of encoded records: what fit is returned',
  }),
});
export type GraphQueryResult = Static<typeof GraphQueryResult>;

/** `POST /api/graph/query` 200 `{query, error}`: the query as run and why it failed. */
export const GraphQueryFailure = Type.Object(
  { query: Type.String({ description: 'the query as run' }), error: Type.String() },
  { description: 'the database refused or failed the query, or could not be reached' },
);
export type GraphQueryFailure = Static<typeof GraphQueryFailure>;
