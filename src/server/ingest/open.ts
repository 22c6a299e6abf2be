/**
 * Builds the ingest service (CONTRACT §10): the task store — files under `<SVC_DATA_DIR>/ingests/` on the embedded
 * server, the user database's `ingest_tasks` in cluster mode (`SVC_DB_URL`, §21) — opened at start.
 */
import path from 'node:path';
import type { Logger } from 'pino';
import type { PaperAccess } from '../access/service.js';
import type { Config } from '../config/types.js';
import { PostgresTaskStore } from '../db/postgres-task-store.js';
import { PostgresUserDatabase } from '../db/postgres-user-database.js';
import type { UserDatabase } from '../db/user-database.js';
import type { PaperAssets } from '../papers/assets.js';
import { IngestService } from './service.js';
import type { IngestTaskStore } from './task-store-port.js';
import { TaskStore } from './task-store.js';

export async function openIngest(
  config: Config,
  logger: Logger,
  access: PaperAccess,
  papers: PaperAssets,
  db?: UserDatabase,
): Promise<IngestService> {
  const now = () => access.engine.clock.now();
  const store: IngestTaskStore =
    db instanceof PostgresUserDatabase
      ? new PostgresTaskStore(db.pool, config.instanceId, logger, now)
      : new TaskStore(path.join(config.dataDir, 'ingests'), logger, now);
  await store.open();
  return new IngestService(store, access, papers, logger, now);
}
