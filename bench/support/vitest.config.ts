import path from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * Benchmarks: `npm run build && npx vitest run --config bench/support/vitest.config.ts [name]` (never part of the
 * normal test run). One file at a time; the worker gets a 12 GiB heap (the 2.6M-row index bench) and `gc()` for
 * clean memory figures. The global setup prints issue 25's target table at the end of a run (bench/support/targets.ts).
 */
export default defineConfig({
  root: path.resolve(import.meta.dirname, '../..'),
  test: {
    include: ['bench/**/*.bench.ts'],
    globalSetup: ['bench/support/targets.ts'],
    testTimeout: 900_000,
    hookTimeout: 900_000,
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    execArgv: ['--max-old-space-size=12288', '--expose-gc'],
    reporters: ['default'],
  },
});
