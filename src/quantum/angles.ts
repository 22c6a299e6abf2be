/**
 * Exact reduction of angles modulo the period of what they parametrise (CONTRACT §17: amplitudes within 1e-10 at
 * every angle). A double such as 1e9 is exact, but 1e9 + (−1.5775) is not: its rounding (up to ½ ulp(1e9) ≈ 6e-8)
 * would leak straight into a phase. So angles are reduced first and only the reduced values are ever added.
 *
 * The reduction uses the engine's sine and cosine, which reduce their argument exactly for every finite double
 * (V8's fdlibm port: Payne–Hanek with 1 200+ bits of 2/π), then `atan2` recovers the angle in (−π, π]: one rounding
 * of the reduced value, ≤ 4.5e-16 absolute, whatever the magnitude of the input.
 */

/** `x` modulo 2π in [−π, π] (±π only for inputs at an odd multiple of π), rounded once; non-finite → NaN. */
export function reduceAngle(x: number): number {
  if (x >= -Math.PI && x <= Math.PI) return x;
  if (!Number.isFinite(x)) return Number.NaN;
  return Math.atan2(Math.sin(x), Math.cos(x));
}

/** `x` modulo 4π in [−2π, 2π] (halving is exact, so this is as exact as `reduceAngle`). */
export function reduceAngle4Pi(x: number): number {
  if (x >= -2 * Math.PI && x <= 2 * Math.PI) return x;
  return 2 * reduceAngle(x / 2);
}

/**
 * The sum of two angles modulo `period` (2π or 4π): each is reduced before they are added, so the result (at most
 * one period in magnitude) is within 1e-15 of the exact sum's residue. Angles already within half a period are
 * added as they are.
 */
export function addAngles(a: number, b: number, period: 2 | 4): number {
  const reduce = period === 2 ? reduceAngle : reduceAngle4Pi;
  return reduce(a) + reduce(b);
}
