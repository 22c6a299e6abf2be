import path from 'node:path';
import { defineConfig } from 'vitest/config';

/** Benchmarks: `npx vitest run --config bench/support/vitest.config.ts` (never part of the normal test run). */
export default defineConfig({
  root: path.resolve(import.meta.dirname, '../..'),
  test: {
    include: ['bench/**/*.bench.ts'],
    testTimeout: 600_000,
    hookTimeout: 600_000,
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    reporters: ['default'],
  },
});
