/**
 * A pksd with paper access, ingest and chunk search wired in, for the end-to-end tests of this area: `pksd serve`'s
 * own start sequence (`startServer`), with the job engine's clock and delays under the test's control.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Clock } from '../../../../src/server/access/clock.js';
import type { PaperAccessOptions } from '../../../../src/server/access/open.js';
import type { PaperAccess } from '../../../../src/server/access/service.js';
import type { Config } from '../../../../src/server/config/types.js';
import type { IngestService } from '../../../../src/server/ingest/service.js';
import { createLogger } from '../../../../src/server/logger.js';
import type { PaperAssets } from '../../../../src/server/papers/assets.js';
import type { ObjectStore } from '../../../../src/server/storage/object-store.js';
import { startServer } from '../../../../src/server/runtime.js';
import { freePort } from '../../../support/free-port.js';
import type { MotoServer } from '../../../support/moto.js';
import { LogCapture, testConfig } from '../../../support/server.js';
import { motoBuckets, objectStoreEnv } from '../../storage/backends.js';
import { accessEnv, startDoubles, testStore, type Doubles } from './harness.js';

export const PAT = 'access-test-system-pat-0123456789';
export const AUTH = { Authorization: `Bearer ${PAT}` };

export interface ComposeOptions {
  readonly clock?: Clock;
  readonly access?: PaperAccessOptions;
}

export interface ComposedServer {
  readonly app: FastifyInstance;
  readonly url: string;
  readonly papers: PaperAssets;
  readonly access: PaperAccess;
  readonly ingest: IngestService;
  close(): Promise<void>;
}

/** Starts pksd on `config` as `pksd serve` does, listening on `config.listen`. */
export async function composeServer(
  config: Config,
  logger: Logger,
  options: ComposeOptions = {},
): Promise<ComposedServer> {
  const server = await startServer(config, {
    logger,
    webRoot: path.join(config.dataDir, 'no-web'),
    access: { ...options.access, ...(options.clock ? { clock: options.clock } : {}) },
  });
  return { ...server, app: server.app as unknown as FastifyInstance };
}

export interface AccessServer extends ComposedServer {
  readonly config: Config;
  readonly dir: string;
  readonly logs: LogCapture;
  /** The server's store, opened separately for setup and assertions. */
  readonly store: ObjectStore;
  fetch(pathname: string, init?: RequestInit): Promise<Response>;
  /** GET with the system PAT. */
  get(pathname: string): Promise<Response>;
  /** Stops the server and keeps its directories (a restart on them). */
  stop(): Promise<void>;
}

/** A pksd in this process with its directories in a fresh temp dir (local backend, or moto when given). */
export async function startAccessServer(
  env: Record<string, string>,
  options: ComposeOptions & { readonly moto?: MotoServer } = {},
): Promise<AccessServer> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pksd-access-'));
  const port = await freePort();
  const storeEnv = options.moto ? objectStoreEnv(await motoBuckets(options.moto)) : {};
  const config = testConfig(dir, {
    SVC_HTTP_ADDR: `127.0.0.1:${port}`,
    SVC_SYSTEM_PAT: PAT,
    ...storeEnv,
    ...env,
  });
  const logs = new LogCapture();
  const server = await composeServer(config, createLogger('warn', logs), options);
  const own = testStore(config);
  return {
    ...server,
    config,
    dir,
    logs,
    store: own.store,
    fetch: (pathname, init) => fetch(server.url + pathname, init),
    get: (pathname) => fetch(server.url + pathname, { headers: AUTH }),
    async stop() {
      await server.close();
      own.destroy();
    },
    async close() {
      // `close` ends every paper-access job and ingest task first: nothing writes into the directory any more.
      await server.close();
      own.destroy();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The upstream doubles and a pksd on them: most tests of this area start these two for the whole file. */
export interface AccessStack {
  readonly d: Doubles;
  readonly s: AccessServer;
}

/** Starts the doubles, then a pksd with `accessEnv` plus `env`; `env` wins. */
export async function startAccessStack(
  env: Record<string, string> = {},
  options: ComposeOptions & { readonly moto?: MotoServer } = {},
): Promise<AccessStack> {
  const d = await startDoubles();
  try {
    return { d, s: await startAccessServer({ ...accessEnv(d), ...env }, options) };
  } catch (err) {
    await d.close();
    throw err;
  }
}

/** Stops what `startAccessStack` started (either part is missing when a start failed). */
export async function stopAccessStack(stack: Partial<AccessStack>): Promise<void> {
  await stack.s?.close();
  await stack.d?.close();
}
