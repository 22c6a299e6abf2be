import { access, constants, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { UserDatabase } from '../db/user-database.js';
import type { GraphClient } from '../graph/driver.js';
import type { S3Clients } from '../storage/s3-client.js';
import { directoryExists, inspectCheckout } from '../wiki/checkout.js';

export type CheckStatus = 'ok' | 'error' | 'not_configured';
export type Check = { status: CheckStatus; error?: string } & Record<string, unknown>;
/** A dependency check: `fields` describe the dependency and appear also when the check throws or times out. */
export interface Probe {
  readonly fields: Readonly<Record<string, unknown>>;
  run(): Promise<Check>;
}

const PROBE_REQUEST_TIMEOUT_MS = 5_000;
const elapsed = (start: bigint) => Math.round(Number(process.hrtime.bigint() - start) / 1e6);

export function s3Probe(clients: S3Clients, endpoint: string): Probe {
  const buckets = [clients.buckets.pdf, clients.buckets.markdown, clients.buckets.images];
  const fields = { backend: 's3-router', endpoint, buckets };
  return {
    fields,
    run: async () => {
      // Loaded on first use: a server on a local store never loads the AWS SDK (start-up time and memory).
      const { HeadBucketCommand } = await import('@aws-sdk/client-s3');
      const results = await Promise.all(
        buckets.map(async (bucket) => {
          const start = process.hrtime.bigint();
          try {
            // Abort on our own timeout so no request outlives the probe.
            await clients.internal.send(new HeadBucketCommand({ Bucket: bucket }), {
              abortSignal: AbortSignal.timeout(PROBE_REQUEST_TIMEOUT_MS),
            });
            return { bucket, ms: elapsed(start), error: null };
          } catch (err) {
            const e = err as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
            const reason = e.message || e.name || `HTTP ${e.$metadata?.httpStatusCode ?? '?'}`;
            return { bucket, ms: elapsed(start), error: `bucket ${bucket}: ${reason}` };
          }
        }),
      );
      const failed = results.find((r) => r.error !== null);
      return {
        status: failed ? 'error' : 'ok',
        ...fields,
        latency_ms: Math.max(...results.map((r) => r.ms)),
        ...(failed ? { error: failed.error } : {}),
      };
    },
  };
}

export function localDirProbe(dir: string): Probe {
  const fields = { backend: 'local', dir };
  return {
    fields,
    run: async () => {
      await mkdir(dir, { recursive: true });
      await access(dir, constants.W_OK);
      return { status: 'ok', ...fields };
    },
  };
}

export function graphProbe(graph: GraphClient | null, uri: string | null): Probe {
  if (graph === null) return { fields: {}, run: async () => ({ status: 'not_configured' }) };
  const fields = { uri, database: graph.database };
  return {
    fields,
    run: async () => {
      const start = process.hrtime.bigint();
      await graph.driver.verifyConnectivity(graph.database ? { database: graph.database } : {});
      return { status: 'ok', ...fields, latency_ms: elapsed(start) };
    },
  };
}

/**
 * The user database (CONTRACT §21): a round trip and the schema version. SQLite names its directory (`dir`),
 * PostgreSQL its URL without the password (`uri`); both are redacted for anonymous callers.
 */
export function databaseProbe(db: UserDatabase): Probe {
  const fields =
    db.backend === 'postgres'
      ? { backend: 'postgres', uri: db.location }
      : { backend: 'sqlite', dir: path.dirname(db.location) };
  return {
    fields,
    run: async () => {
      const start = process.hrtime.bigint();
      await db.ping();
      const latency = elapsed(start);
      return { status: 'ok', ...fields, schema_version: await db.schemaVersion(), latency_ms: latency };
    },
  };
}

export function wikiProbe(dir: string): Probe {
  return {
    fields: { dir },
    run: async () => {
      if (!(await directoryExists(dir))) return { status: 'not_configured', dir };
      const state = await inspectCheckout(dir);
      return {
        status: 'ok',
        dir,
        commit: state.commit,
        commit_time: state.commitTime,
        branch: state.branch,
        dirty: state.dirty,
      };
    },
  };
}
