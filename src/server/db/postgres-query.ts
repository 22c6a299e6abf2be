/**
 * Statement helpers every PostgreSQL adapter of the user database shares: NUL-safe lookups (request text may hold
 * U+0000, which PostgreSQL refuses) and client checkouts that survive their connection dying.
 */
import type pg from 'pg';

export type Query = <R extends pg.QueryResultRow>(sql: string, params?: unknown[]) => Promise<pg.QueryResult<R>>;

const hasNul = (v: unknown): boolean => typeof v === 'string' && v.includes('\u0000');

/**
 * PostgreSQL TEXT cannot hold NUL (it refuses such a parameter), so no stored value holds one: a lookup, update
 * or delete keyed by such a string matches nothing, answered without a round trip instead of failing. Inserts
 * still fail; the services validate what they store.
 */
export function nulSafe(pool: pg.Pool): Query {
  return async <R extends pg.QueryResultRow>(sql: string, params?: unknown[]) =>
    params?.some(hasNul) && !/^\s*INSERT\b/i.test(sql)
      ? ({ rows: [] as R[], rowCount: 0, command: '', oid: 0, fields: [] } as pg.QueryResult<R>)
      : pool.query<R>(sql, params);
}

/**
 * JSON text for a JSONB parameter: JSONB cannot hold U+0000 (it refuses `\u0000`), so the character becomes
 * U+FFFD, the replacement character — these documents are shown to users, never parsed back as keys.
 */
export function jsonbText(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'string' ? v.replaceAll('\u0000', '\uFFFD') : v));
}

/**
 * Runs `work` on a client of its own. A connection lost meanwhile fails the pending query; its `error` event must
 * not crash the process as well (a checked-out client has no pool listener), and a client whose work failed is
 * discarded rather than returned to the pool in an unknown state.
 */
export async function withClient<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  const ignore = () => undefined;
  client.on('error', ignore);
  let failed: Error | undefined;
  try {
    return await work(client);
  } catch (err) {
    failed = err instanceof Error ? err : new Error(String(err));
    throw err;
  } finally {
    client.off('error', ignore);
    client.release(failed);
  }
}
