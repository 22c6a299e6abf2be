/**
 * Vitest global setup: a run directory through which the test files share one PostgreSQL cluster (started lazily
 * by the first file that uses `usePostgres()`, see postgres.ts), stopped and removed when the run ends.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { stopSharedCluster } from './postgres.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const runDir = await mkdtemp(path.join(os.tmpdir(), 'pks-postgres-run-'));
  project.provide('pksPostgresRunDir', runDir);
  return async () => {
    await stopSharedCluster(runDir);
    await rm(runDir, { recursive: true, force: true });
  };
}
