import { HeadBucketCommand } from '@aws-sdk/client-s3';
import { access, constants, mkdir } from 'node:fs/promises';
import type { GraphClient } from '../graph/driver.js';
import type { S3Clients } from '../storage/s3-client.js';
import { directoryExists, inspectCheckout } from '../wiki/checkout.js';

export type CheckStatus = 'ok' | 'error' | 'not_configured';
export type Check = { status: CheckStatus; error?: string } & Record<string, unknown>;
export type Probe = () => Promise<Check>;

const elapsed = (start: bigint) => Math.round(Number(process.hrtime.bigint() - start) / 1e6);

export function s3Probe(clients: S3Clients, endpoint: string): Probe {
  return async () => {
    const buckets = [clients.buckets.pdf, clients.buckets.markdown, clients.buckets.images];
    const results = await Promise.all(
      buckets.map(async (bucket) => {
        const start = process.hrtime.bigint();
        try {
          await clients.internal.send(new HeadBucketCommand({ Bucket: bucket }));
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
      backend: 's3-router',
      endpoint,
      buckets,
      latency_ms: Math.max(...results.map((r) => r.ms)),
      ...(failed ? { error: failed.error } : {}),
    };
  };
}

export function localDirProbe(dir: string): Probe {
  return async () => {
    await mkdir(dir, { recursive: true });
    await access(dir, constants.W_OK);
    return { status: 'ok', backend: 'local', dir };
  };
}

export function graphProbe(graph: GraphClient | null, uri: string | null): Probe {
  return async () => {
    if (graph === null) return { status: 'not_configured' };
    const start = process.hrtime.bigint();
    await graph.driver.verifyConnectivity(graph.database ? { database: graph.database } : {});
    return { status: 'ok', uri, database: graph.database, latency_ms: elapsed(start) };
  };
}

export function wikiProbe(dir: string): Probe {
  return async () => {
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
  };
}
