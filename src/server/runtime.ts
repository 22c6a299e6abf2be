import type { Logger } from 'pino';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { fileURLToPath } from 'node:url';
import { settleWithin } from '../shared/deadline.js';
import { buildApp } from './app.js';
import type { App } from './http/context.js';
import { systemClock } from './access/clock.js';
import { openPaperAccess, PREPRINT_BURST, type PaperAccessOptions } from './access/open.js';
import { TokenBucket } from './access/token-bucket.js';
import type { PaperAccess } from './access/service.js';
import { openIngest } from './ingest/open.js';
import type { IngestService } from './ingest/service.js';
import { openChunkSearch } from './rag/open.js';
import { openIdentity, type Identity } from './auth/identity.js';
import { CredentialChain } from './auth/system-pat.js';
import type { ShownSetting } from './config/show.js';
import type { Config } from './config/types.js';
import { jobLeaseStoreOf } from './db/job-lease-store.js';
import { acquireServerLock } from './db/lock.js';
import type { ClusterNotifications } from './db/notifications.js';
import { followIndexFlushes, openClusterNotifications } from './db/notifications-open.js';
import { announcedWikiHeadOf } from './db/wiki-announced.js';
import type { GraphClient } from './graph/driver.js';
import { GraphService } from './graph/service.js';
import { databaseProbe, graphProbe, localDirProbe, s3Probe, wikiProbe } from './health/probes.js';
import { HealthService } from './health/service.js';
import { openPaperAssets, type PaperAssets } from './papers/assets.js';
import { openPaperMetadata } from './papers/metadata/open.js';
import { openWiki, type WikiService } from './wiki/service.js';
import type { S3Clients } from './storage/s3-client.js';

export interface RunningServer {
  readonly app: App;
  /** `http://host:port` the server listens on. */
  readonly url: string;
  readonly papers: PaperAssets;
  readonly access: PaperAccess;
  readonly ingest: IngestService;
  /**
   * Stops accepting, stops background work at once (paper-access jobs and ingest tasks: downloads and parser polls
   * aborted, slots released, staged files removed, unfinished tasks `cancelled`), lets in-flight requests finish
   * (bounded), flushes the index and releases everything.
   */
  close(): Promise<void>;
}

export interface StartOptions {
  readonly logger: Logger;
  /** Skip taking `pksd.lock` (in-process tests that share a database directory on purpose). */
  readonly skipLock?: boolean;
  readonly webRoot?: string;
  /** Effective settings with their sources, secrets masked, for the admin UI (flags included). */
  readonly settings?: () => readonly ShownSetting[];
  /** The paper-access job engine's clock and delays (tests drive them). */
  readonly access?: PaperAccessOptions;
}

const DEFAULT_WEB_ROOT = fileURLToPath(new URL('../../web/dist', import.meta.url));
const SHUTDOWN_GRACE_MS = 30_000;
/**
 * How long shutdown waits for aborted background work to unwind. Aborted work ends within moments; the bound only
 * keeps a stuck dependency (a store call that never answers) from holding the process.
 */
const BACKGROUND_STOP_MS = 5_000;

const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

/** `SVC_FORCE_TCP4`: bind an IPv4 socket, resolving a host name to its IPv4 address. */
async function ipv4Host(host: string): Promise<string> {
  if (host === '' || host === '::') return '0.0.0.0';
  if (isIP(host) === 4) return host;
  if (isIP(host) === 6) throw new Error(`SVC_FORCE_TCP4 is set but the listen host ${host} is an IPv6 address`);
  return (await lookup(host, { family: 4 })).address;
}

/**
 * Aborts the paper-access jobs and ingest tasks in progress and waits (bounded) until they unwound: downloads and
 * parser calls cancelled, slots released, staged files removed, unfinished tasks written `cancelled`.
 */
async function stopBackgroundWork(access: PaperAccess, ingest: IngestService, logger: Logger): Promise<void> {
  const jobs = access.engine.jobCounts().inflight;
  const tasks = ingest.runningTasks;
  const stopped = Promise.all([
    access.close().catch((err: unknown) => logger.error({ err }, 'stopping paper-access jobs failed')),
    ingest.close().catch((err: unknown) => logger.error({ err }, 'stopping ingest tasks failed')),
  ]);
  const settled = await settleWithin(
    stopped.then(() => true),
    BACKGROUND_STOP_MS,
    () => false,
  );
  if (!settled) {
    logger.warn(`background work still running ${BACKGROUND_STOP_MS / 1000} s after shutdown began; not waiting`);
  } else if (jobs + tasks > 0) {
    logger.info(`stopped ${plural(jobs, 'paper-access job')} and ${plural(tasks, 'ingest task')} in progress`);
  }
}

/** The `pksd serve` start sequence (CONTRACT §1.4), as far as the features built so far need. */
export async function startServer(config: Config, options: StartOptions): Promise<RunningServer> {
  const { logger } = options;
  if (config.systemPat) {
    logger.info(
      `system PAT enabled (length ${config.systemPat.token.length}, scopes ${config.systemPat.scopes.join(',')})`,
    );
  }
  const releaseLock = options.skipLock ? () => undefined : acquireServerLock(config.dbDataDir);

  let s3: S3Clients | null = null;
  let graph: GraphClient | null = null;
  let userQueryGraph: GraphClient | null = null;
  const background = new AbortController();
  let notifications: ClusterNotifications | null = null;
  let identity: Identity | null = null;
  let papers: PaperAssets | null = null;
  let wiki: WikiService | null = null;
  let access: PaperAccess | null = null;
  let ingest: IngestService | null = null;
  try {
    // The AWS SDK and the graph driver are loaded only when configured (start-up time and memory, docs/decisions.md).
    if (config.objectStore) {
      const { createS3Clients } = await import('./storage/s3-client.js');
      s3 = createS3Clients(config.objectStore, config.edgeName);
    }
    if (config.graph) {
      const { createGraphClient, createUserQueryClient } = await import('./graph/driver.js');
      const { ensureGraphSchemaInBackground } = await import('./graph/constraints.js');
      graph = createGraphClient(config.graph);
      userQueryGraph = createUserQueryClient(config.graph);
      // Constraints and indexes are created in the background: an unreachable graph must not delay the start.
      void ensureGraphSchemaInBackground(graph, logger, { signal: background.signal });
    }
    // Cross-instance notifications (§21): revocations, wiki pulls and index flushes reach the other instances.
    notifications = openClusterNotifications(config, logger);
    identity = await openIdentity(config, logger, {
      ...(options.settings ? { settings: options.settings } : {}),
      notifications,
    });
    papers = await openPaperAssets(config, logger, { s3, graph, db: identity.db });
    followIndexFlushes(papers.index, notifications, config.instanceId, logger);
    wiki = await openWiki(config, logger, { notifications, announced: announcedWikiHeadOf(identity.db) });
    // The job machinery is built even with paper access off: ingest's fetch stage shares its limiter and slots
    // (CONTRACT §10); only the paper-access routes and the parse stage depend on the switch.
    // One preprint token bucket (§11.5) for PDF downloads, abstract-page lookups and metadata fetches (§18.1),
    // kept in the user database: on PostgreSQL one bucket for every instance (§21).
    const limiter = new TokenBucket(
      config.preprint.fetchRps,
      PREPRINT_BURST,
      options.access?.clock ?? systemClock,
      identity.db.buckets,
    );
    // On PostgreSQL a paper-access job runs on one instance at a time, under a lease in the user database (§21).
    const leases = jobLeaseStoreOf(identity.db);
    const paperAccess = openPaperAccess(config, logger, papers, { ...options.access, limiter, leases });
    access = paperAccess;
    const metadata = openPaperMetadata(config, logger, {
      cache: identity.db.metadata,
      graph,
      limiter,
      index: papers.index,
      signal: background.signal,
    });
    papers.useMetadataFill((versionless) => metadata.service.fill(versionless));
    ingest = await openIngest(config, logger, paperAccess, papers, identity.db);
    const rag = await openChunkSearch(config);
    const health = new HealthService(
      {
        rawstore: s3 && config.objectStore ? s3Probe(s3, config.objectStore.endpoint) : localDirProbe(config.rawDir),
        graphdb: graphProbe(graph, config.graph?.uri ?? null),
        wiki: wikiProbe(config.wikiDir),
        database: databaseProbe(identity.db),
      },
      undefined,
      config.paperAccessEnabled ? () => paperAccess.counters() : null,
    );
    const credentials = new CredentialChain(config.systemPat, identity.verifiers);
    // While shutting down, responses close their keep-alive connection so in-flight requests end the server (the
    // application's `onSend` hook reads it: one hook, not one more per request).
    const shutdown = { started: false };
    const app = await buildApp({
      config,
      logger,
      credentials,
      health,
      identity,
      papers,
      wiki,
      graph: new GraphService(userQueryGraph, {
        queryTimeoutSeconds: config.graph?.queryTimeoutSeconds ?? null,
        queryConcurrency: config.graph?.queryConcurrency,
        queryMaxBytes: config.graph?.queryMaxBytes,
      }),
      access: paperAccess,
      metadata,
      ingest,
      rag,
      webRoot: options.webRoot ?? DEFAULT_WEB_ROOT,
      shutdown,
    });
    const { port, forceTcp4 } = config.listen;
    const host = forceTcp4 ? await ipv4Host(config.listen.host) : config.listen.host;
    await app.listen({ host, port });
    const address = app.server.address();
    const bound = typeof address === 'object' && address ? address : { address: host, port, family: 'IPv4' };
    const shownHost = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
    const url = `http://${shownHost}:${bound.port}`;
    // The instance's name and its user database (password masked) name this process in a cluster (§21).
    logger.info({ url, instance: config.instanceId, user_database: identity.db.location }, `pksd listening on ${url}`);

    const s3Clients = s3;
    const graphClient = graph;
    const userQueryClient = userQueryGraph;
    const openIdentityModule = identity;
    const paperAssets = papers;
    const wikiService = wiki;
    const clusterNotifications = notifications;
    const ingestService = ingest;
    let closing: Promise<void> | null = null;
    return {
      app,
      url,
      papers: paperAssets,
      access: paperAccess,
      ingest: ingestService,
      close() {
        closing ??= (async () => {
          shutdown.started = true;
          background.abort();
          // Background work stops now, not after the requests drained: no response waits for it.
          const work = stopBackgroundWork(paperAccess, ingestService, logger);
          const timer = setTimeout(() => app.server.closeAllConnections(), SHUTDOWN_GRACE_MS);
          try {
            await app.close();
          } finally {
            clearTimeout(timer);
            await work;
            await paperAssets.close().catch(() => undefined);
            await wikiService.close().catch(() => undefined);
            await clusterNotifications.close().catch(() => undefined);
            await openIdentityModule.close().catch(() => undefined);
            await graphClient?.close().catch(() => undefined);
            await userQueryClient?.close().catch(() => undefined);
            s3Clients?.destroy();
            releaseLock();
          }
        })();
        return closing;
      },
    };
  } catch (err) {
    background.abort();
    if (access && ingest) await stopBackgroundWork(access, ingest, logger);
    await papers?.close().catch(() => undefined);
    await wiki?.close().catch(() => undefined);
    await notifications?.close().catch(() => undefined);
    await identity?.close().catch(() => undefined);
    await graph?.close().catch(() => undefined);
    await userQueryGraph?.close().catch(() => undefined);
    s3?.destroy();
    releaseLock();
    throw err;
  }
}
