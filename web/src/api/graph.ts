import { queryOptions } from '@tanstack/react-query';
import { api } from './client';
import type { GraphAnswer, GraphQueryResult } from './types';

/** `POST /api/graph/query`: a read-only Cypher query, at most `limit` records (CONTRACT §14). */
export const runGraphQuery = (
  query: string,
  limit: number,
  signal?: AbortSignal,
): Promise<GraphAnswer<GraphQueryResult>> =>
  api<GraphAnswer<GraphQueryResult>>('/api/graph/query', { method: 'POST', json: { query, limit }, signal });

/**
 * The explorer's query, cached by its text and limit: Back to an earlier query shows its result again without
 * asking the server. Cancelling aborts the request; the server then ends the transaction (§14.1).
 */
export const graphQuery = (query: string | null, limit: number) =>
  queryOptions({
    queryKey: ['graph', 'query', query, limit],
    queryFn: ({ signal }) => runGraphQuery(query!, limit, signal),
    enabled: query !== null && query.trim() !== '',
    staleTime: Infinity,
    gcTime: 30 * 60_000,
    retry: false,
  });

/** Splits a graph answer: the `{error}` shape (HTTP 200) becomes `failure`, any other answer `result`. */
export function readGraphAnswer<T extends object>(
  answer: GraphAnswer<T> | undefined,
): { failure: string | null; result: T | undefined } {
  if (answer && 'error' in answer && typeof answer.error === 'string')
    return { failure: answer.error, result: undefined };
  return { failure: null, result: answer as T | undefined };
}
