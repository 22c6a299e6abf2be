/**
 * The seeded PRNG of the tools: mulberry32 (the generator `test/support/random.ts` uses, repeated here because
 * library code cannot import test support), plus Gaussian draws for random states.
 */
export type Rng = () => number;

/** Numbers in [0, 1); the same seed gives the same sequence. */
export function mulberry32(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A standard normal draw (Box–Muller; `1 − u` keeps the logarithm finite). */
export function gaussian(rng: Rng): number {
  const u = 1 - rng();
  const v = rng();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** A normalised state of `numQubits` qubits with complex Gaussian amplitudes. */
export function randomState(numQubits: number, rng: Rng): Float64Array {
  const sv = new Float64Array(2 * 2 ** numQubits);
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
