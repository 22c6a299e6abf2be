import type { Logger } from 'pino';
import type { Config } from '../config/types.js';
import type { GraphClient } from '../graph/driver.js';
import type { S3Clients } from '../storage/s3-client.js';

/** The paper-asset module: object store, uploads, claims and the metadata index. */
export interface PaperAssets {
  close(): Promise<void>;
}

export async function openPaperAssets(
  _config: Config,
  _logger: Logger,
  _deps: { s3: S3Clients | null; graph: GraphClient | null },
): Promise<PaperAssets> {
  return { close: async () => undefined };
}
