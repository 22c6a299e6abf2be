/**
 * Parser claims (CONTRACT §5.1): the port, its adapters and the choice between them, from one import path. The
 * port is in `claim-store.ts`, the file adapter in `file-claim-store.ts`, the graph adapter (Cypher) in
 * `../graph/claim-store.ts`, the PostgreSQL adapter (cluster mode, §21) in `../db/postgres-claim-store.ts`.
 */
import path from 'node:path';
import { PostgresClaimStore } from '../db/postgres-claim-store.js';
import { PostgresUserDatabase } from '../db/postgres-user-database.js';
import type { UserDatabase } from '../db/user-database.js';
import { GraphClaimStore } from '../graph/claim-store.js';
import type { GraphClient } from '../graph/driver.js';
import type { ClaimStore } from './claim-store.js';
import { FileClaimStore } from './file-claim-store.js';

export * from './claim-store.js';
export { FileClaimStore, GraphClaimStore, PostgresClaimStore };

/**
 * Where the claims live (§21): in the graph when it is configured, else in PostgreSQL when the user database is
 * there (`SVC_DB_URL`, shared by every instance), else in files under `<SVC_DATA_DIR>/parser-claims/`.
 */
export function openClaimStore(
  dataDir: string,
  deps: { readonly graph: GraphClient | null; readonly db?: UserDatabase | undefined },
): ClaimStore {
  if (deps.graph) return new GraphClaimStore(deps.graph);
  if (deps.db instanceof PostgresUserDatabase) return new PostgresClaimStore(deps.db.pool);
  return new FileClaimStore(path.join(dataDir, 'parser-claims'));
}
