import path from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * Paper benchmarks: `npx vitest run --config bench/support/papers-vitest.config.ts [upload|index|sync]` (never part
 * of the normal test run). The worker gets a 12 GiB heap (the 2.6M-row index is loaded twice: service and HTTP)
 * and `gc()` for clean memory figures.
 */
export default defineConfig({
  root: path.resolve(import.meta.dirname, '../..'),
  test: {
    include: ['bench/papers-*.bench.ts'],
    testTimeout: 600_000,
    hookTimeout: 600_000,
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    execArgv: ['--max-old-space-size=12288', '--expose-gc'],
    reporters: ['default'],
  },
});
