import { api } from './client';
import type { GraphAnswer, GraphQueryResult } from './types';

/** `POST /api/graph/query`: a read-only Cypher query, at most `limit` records (CONTRACT §14). */
export const runGraphQuery = (query: string, limit: number): Promise<GraphAnswer<GraphQueryResult>> =>
  api<GraphAnswer<GraphQueryResult>>('/api/graph/query', { method: 'POST', json: { query, limit } });

/** Splits a graph answer: the `{error}` shape (HTTP 200) becomes `failure`, any other answer `result`. */
export function readGraphAnswer<T extends object>(
  answer: GraphAnswer<T> | undefined,
): { failure: string | null; result: T | undefined } {
  if (answer && 'error' in answer && typeof answer.error === 'string')
    return { failure: answer.error, result: undefined };
  return { failure: null, result: answer as T | undefined };
}
