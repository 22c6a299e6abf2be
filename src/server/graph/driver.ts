import neo4j, { type Driver } from 'neo4j-driver';
import type { GraphConfig } from '../config/types.js';

export interface GraphClient {
  readonly driver: Driver;
  /** `null` selects the server's default database. */
  readonly database: string | null;
  close(): Promise<void>;
}

export interface GraphClientOptions {
  /** Connections at most (50 by default). */
  readonly maxConnections?: number;
}

/** A Neo4j driver for `GRAPHDB_*`; connecting is lazy, so building never fails on an unreachable server. */
export function createGraphClient(
  config: Pick<GraphConfig, 'uri' | 'username' | 'password' | 'database'>,
  options: GraphClientOptions = {},
): GraphClient {
  const auth = config.username !== null ? neo4j.auth.basic(config.username, config.password ?? '') : undefined;
  const driver = neo4j.driver(config.uri, auth, {
    connectionTimeout: 5_000,
    connectionAcquisitionTimeout: 10_000,
    maxConnectionPoolSize: options.maxConnections ?? 50,
    disableLosslessIntegers: false,
    // The driver's own logging would bypass ours; errors surface through calls instead.
    logging: { level: 'error', logger: () => undefined },
  });
  return {
    driver,
    database: config.database,
    close: () => driver.close(),
  };
}

/**
 * The driver of `POST /api/graph/query` and the other graph endpoints (CONTRACT §14.1): a pool of its own, sized
 * `SVC_GRAPH_QUERY_CONCURRENCY`, so user queries never hold a connection that claims, write-through or the wiki sync
 * need.
 */
export function createUserQueryClient(config: GraphConfig): GraphClient {
  return createGraphClient(config, { maxConnections: config.queryConcurrency });
}
