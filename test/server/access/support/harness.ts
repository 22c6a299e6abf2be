/**
 * The paper-access domain against the upstream doubles and a real object store (local directory or moto),
 * without HTTP: what the domain tests drive.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Clock } from '../../../../src/server/access/clock.js';
import { openPaperAccess, type PaperAccessOptions } from '../../../../src/server/access/open.js';
import type { PaperAccess } from '../../../../src/server/access/service.js';
import type { Config } from '../../../../src/server/config/types.js';
import { createLogger } from '../../../../src/server/logger.js';
import { openPaperAssets, type PaperAssets } from '../../../../src/server/papers/assets.js';
import { LocalObjectStore } from '../../../../src/server/storage/local-store.js';
import type { ObjectStore } from '../../../../src/server/storage/object-store.js';
import { createS3Clients, type S3Clients } from '../../../../src/server/storage/s3-client.js';
import { S3ObjectStore } from '../../../../src/server/storage/s3-store.js';
import type { MotoServer } from '../../../support/moto.js';
import { LogCapture, testConfig } from '../../../support/server.js';
import { startArxivDouble, type ArxivDouble } from '../../../support/upstreams/arxiv.js';
import { startMineruDouble, type MineruDouble } from '../../../support/upstreams/mineru.js';
import { startOpenAlexDouble, type OpenAlexDouble } from '../../../support/upstreams/openalex.js';
import { motoBuckets, objectStoreEnv, quietLogger } from '../../storage/backends.js';

export const MAILTO = 'team@example.org';
export const TOKENS = ['tok-a', 'tok-b'];

export interface Doubles {
  readonly arxiv: ArxivDouble;
  readonly openalex: OpenAlexDouble;
  readonly mineru: MineruDouble;
  close(): Promise<void>;
}

export async function startDoubles(now?: () => number): Promise<Doubles> {
  const options = now ? { now } : {};
  const [arxiv, openalex, mineru] = await Promise.all([
    startArxivDouble(options),
    startOpenAlexDouble(options),
    startMineruDouble(options),
  ]);
  return {
    arxiv,
    openalex,
    mineru,
    close: async () => {
      await Promise.all([arxiv.close(), openalex.close(), mineru.close()]);
    },
  };
}

/** Settings that turn paper access on against the doubles (fast polling, a generous preprint rate). */
export function accessEnv(d: Doubles, tokens: readonly string[] = TOKENS): Record<string, string> {
  for (const t of tokens) d.mineru.tokens.add(t);
  return {
    SVC_PAPER_ACCESS_ENABLED: 'true',
    SVC_PREPRINT_BASE_URL: d.arxiv.baseUrl,
    SVC_PREPRINT_API_URL: `${d.arxiv.baseUrl}/api/query`,
    SVC_SCHOLARLY_BASE_URL: d.openalex.baseUrl,
    SVC_SCHOLARLY_MAILTO: MAILTO,
    SVC_PREPRINT_FETCH_RPS: '1000',
    PARSER_API_BASE_URL: d.mineru.baseUrl,
    PARSER_API_TOKENS: tokens.join(','),
    PARSER_POLL_INTERVAL: '0.01',
  };
}

/** A store on the backend `config` names, for a test's setup and assertions (the service keeps its own). */
export function testStore(config: Config): { readonly store: ObjectStore; destroy(): void } {
  if (!config.objectStore) return { store: new LocalObjectStore(config.rawDir), destroy: () => undefined };
  const clients = createS3Clients(config.objectStore, null);
  return { store: new S3ObjectStore(clients, quietLogger()), destroy: () => clients.destroy() };
}

export interface AccessHarness {
  readonly dir: string;
  readonly config: Config;
  readonly papers: PaperAssets;
  /** The papers' store, opened separately for setup and assertions. */
  readonly store: ObjectStore;
  readonly access: PaperAccess;
  readonly logs: LogCapture;
  close(): Promise<void>;
}

export async function startAccessHarness(
  env: Record<string, string>,
  options: { readonly clock?: Clock; readonly moto?: MotoServer; readonly access?: PaperAccessOptions } = {},
): Promise<AccessHarness> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pksd-access-'));
  const storeEnv = options.moto ? objectStoreEnv(await motoBuckets(options.moto)) : {};
  const config = testConfig(dir, { ...storeEnv, ...env });
  const logs = new LogCapture();
  const logger = createLogger('warn', logs);
  const s3: S3Clients | null = config.objectStore ? createS3Clients(config.objectStore, null) : null;
  const papers = await openPaperAssets(config, logger, { s3, graph: null });
  const access = openPaperAccess(config, logger, papers, {
    ...options.access,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const own = testStore(config);
  return {
    dir,
    config,
    papers,
    store: own.store,
    access,
    logs,
    async close() {
      await access.close();
      await papers.close();
      own.destroy();
      s3?.destroy();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
