/** The project's seeded PRNG (`src/shared/random.ts`), plus Gaussian draws for random states. */
import type { Rng } from '../../shared/random.js';
import { allocateState } from './statevector.js';

export { mulberry32, type Rng } from '../../shared/random.js';

/** A standard normal draw (Box–Muller; `1 − u` keeps the logarithm finite). */
export function gaussian(rng: Rng): number {
  const u = 1 - rng();
  const v = rng();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** A normalised state of `numQubits` qubits with complex Gaussian amplitudes. */
export function randomState(numQubits: number, rng: Rng): Float64Array {
  const sv = allocateState(numQubits);
  let norm = 0;
  for (let i = 0; i < sv.length; i++) {
    const g = gaussian(rng);
    sv[i] = g;
    norm += g * g;
  }
  const scale = 1 / Math.sqrt(norm);
  for (let i = 0; i < sv.length; i++) sv[i]! *= scale;
  return sv;
}
