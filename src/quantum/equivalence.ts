/**
 * Equivalence up to global phase (CONTRACT §17.1): φ from the entry of largest |V_jk|, then
 * `max |U_jk − e^{iφ} V_jk| ≤ tol`. Works on any interleaved complex arrays of equal length (unitaries by columns
 * or statevectors).
 */
import { reduceAngle } from './angles.js';

export interface PhaseComparison {
  /** φ with U ≈ e^{iφ}·V, normalised to (−π, π]. */
  readonly phase: number;
  /** max |U_jk − e^{iφ} V_jk|. */
  readonly maxDifference: number;
  readonly equivalent: boolean;
}

/** Normalises an angle to (−π, π] (exactly, at any magnitude: see `reduceAngle`). */
export function normalizeAngle(phi: number): number {
  const x = reduceAngle(phi);
  return x <= -Math.PI ? Math.PI : x;
}

/** max |u_i − e^{iφ} v_i|. */
export function maxPhasedDifference(u: Float64Array, v: Float64Array, phase: number): number {
  const c = Math.cos(phase);
  const s = Math.sin(phase);
  let max = 0;
  for (let i = 0; i < u.length; i += 2) {
    const vr = v[i]! * c - v[i + 1]! * s;
    const vi = v[i]! * s + v[i + 1]! * c;
    const d = Math.hypot(u[i]! - vr, u[i + 1]! - vi);
    if (d > max) max = d;
  }
  return max;
}

export function compareUpToPhase(u: Float64Array, v: Float64Array, tol: number): PhaseComparison {
  if (u.length !== v.length) throw new RangeError('compareUpToPhase: arrays of different length');
  let best = 0;
  let bestAbs = -1;
  for (let i = 0; i < v.length; i += 2) {
    const a = v[i]! * v[i]! + v[i + 1]! * v[i + 1]!;
    if (a > bestAbs) {
      bestAbs = a;
      best = i;
    }
  }
  const phase =
    bestAbs > 0 ? normalizeAngle(Math.atan2(u[best + 1]!, u[best]!) - Math.atan2(v[best + 1]!, v[best]!)) : 0;
  const maxDifference = maxPhasedDifference(u, v, phase);
  return { phase, maxDifference, equivalent: maxDifference <= tol };
}

/** ⟨a|b⟩ as [re, im]. */
export function innerProduct(a: Float64Array, b: Float64Array): [number, number] {
  let re = 0;
  let im = 0;
  for (let i = 0; i < a.length; i += 2) {
    re += a[i]! * b[i]! + a[i + 1]! * b[i + 1]!;
    im += a[i]! * b[i + 1]! - a[i + 1]! * b[i]!;
  }
  return [re, im];
}
