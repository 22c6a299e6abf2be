/** Builds the ingest service (CONTRACT §10): the task store under `<SVC_DATA_DIR>/ingests/`, opened at start. */
import path from 'node:path';
import type { Logger } from 'pino';
import type { PaperAccess } from '../access/service.js';
import type { Config } from '../config/types.js';
import type { PaperAssets } from '../papers/assets.js';
import { IngestService } from './service.js';
import { TaskStore } from './task-store.js';

export async function openIngest(
  config: Config,
  logger: Logger,
  access: PaperAccess,
  papers: PaperAssets,
): Promise<IngestService> {
  const now = () => access.engine.clock.now();
  const store = new TaskStore(path.join(config.dataDir, 'ingests'), logger, now);
  await store.open();
  return new IngestService(store, access, papers, logger, now);
}
