import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config/types.js';
import type { UserDatabase } from '../db/user-database.js';
import type { GraphClient } from '../graph/driver.js';
import { LocalObjectStore } from '../storage/local-store.js';
import type { ObjectStore } from '../storage/object-store.js';
import type { S3Clients } from '../storage/s3-client.js';
import { Catalog, PaperIndex } from './catalog.js';
import { StoreIndexPersistence } from './index-parquet.js';
import { openClaimStore } from './claims.js';
import { PaperService } from './service.js';
import { Stager } from './staging.js';

/** The paper-asset module: object store, uploads, claims and the metadata index. */
export type PaperAssets = PaperService;

const JANITOR_INTERVAL_MS = 60_000;

export async function openPaperAssets(
  config: Config,
  logger: Logger,
  deps: { s3: S3Clients | null; graph: GraphClient | null; db?: UserDatabase },
): Promise<PaperAssets> {
  // The S3 adapter (and with it the AWS SDK) is loaded only when the store is S3 (start-up time and memory).
  const store: ObjectStore = deps.s3
    ? new (await import('../storage/s3-store.js')).S3ObjectStore(deps.s3, logger, {
        tempDir: path.join(config.dataDir, 'index-tmp'),
      })
    : new LocalObjectStore(config.rawDir);
  await store.start();
  const stager = new Stager(path.join(config.dataDir, 'tmp'));
  await stager.start();
  const index = new PaperIndex(logger, new StoreIndexPersistence(store, logger));
  await index.load();
  index.startTimers();
  const catalog = new Catalog(index, deps.graph, logger);
  const claims = openClaimStore(config.dataDir, deps);
  const service = new PaperService({ config, logger, store, stager, catalog, claims });

  // The janitor deletes expired claims every 60 s (§5.1); failures are logged and retried next tick.
  const janitor = setInterval(() => {
    claims
      .purgeExpired(new Date())
      .catch((err: unknown) => logger.warn({ err: (err as Error).message }, 'claim janitor failed'));
  }, JANITOR_INTERVAL_MS);
  janitor.unref();
  service.onClose(async () => {
    clearInterval(janitor);
    await index
      .close()
      .catch((err: unknown) => logger.error({ err: (err as Error).message }, 'index flush at shutdown failed'));
  });
  return service;
}
