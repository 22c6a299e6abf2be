/**
 * `bin/pksd` run from the TypeScript sources, for tests that need the real program (its signal handling, its exit
 * code) without a build: `node --import test/support/upstreams/ts-register.mjs test/support/pksd-source.ts serve …`.
 */
import { main } from '../../src/server/main.js';

await main();
