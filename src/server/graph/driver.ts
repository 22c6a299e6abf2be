import neo4j, { type Driver } from 'neo4j-driver';
import type { GraphConfig } from '../config/types.js';

export interface GraphClient {
  readonly driver: Driver;
  /** `null` selects the server's default database. */
  readonly database: string | null;
  close(): Promise<void>;
}

/** A Neo4j driver for `GRAPHDB_*`; connecting is lazy, so building never fails on an unreachable server. */
export function createGraphClient(config: GraphConfig): GraphClient {
  const auth = config.username !== null ? neo4j.auth.basic(config.username, config.password ?? '') : undefined;
  const driver = neo4j.driver(config.uri, auth, {
    connectionTimeout: 5_000,
    connectionAcquisitionTimeout: 10_000,
    maxConnectionPoolSize: 50,
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
