import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Real servers (moto, Neo4j, pksd) start inside tests: give hooks room, keep the 2-core machine unsaturated.
    testTimeout: 60_000,
    hookTimeout: 180_000,
    // expect.poll awaits a condition; its default 1 s deadline is a timing assumption a loaded machine breaks (a
    // search-as-you-type answer took longer under load). A condition that never holds still fails, at 30 s.
    expect: { poll: { timeout: 30_000 } },
    // One PostgreSQL cluster per run, shared by the files that use it (test/support/postgres.ts).
    globalSetup: ['test/support/postgres-global-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    fileParallelism: true,
    // The JSON report feeds the `N passed, N failed` line of .ci/run.
    reporters: ['default', 'json'],
    outputFile: { json: '.cache/test-results/vitest.json' },
  },
});
