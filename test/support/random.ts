/** The deterministic PRNG of tests and benchmarks is the project's one (`src/shared/random.ts`). */
export { mulberry32, type Rng } from '../../src/shared/random.js';
