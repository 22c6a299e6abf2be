/**
 * ZYZ angles of a 2×2 unitary in the `U(θ, φ, λ)` convention of CONTRACT §17.2, exact up to a global phase.
 * With γ = arg M00, φ = arg M10 − γ and λ = arg det M − 2γ − φ, U reproduces M00 and M10 directly and M01, M11
 * through unitarity (M11 = det·conj(M00), M01 = −det·conj(M10)), so no entry depends on the argument of a
 * rounding-noise-sized number.
 */
import { normalizeAngle } from '../equivalence.js';
import type { Mat2 } from '../sim/matrices.js';

export interface ZyzAngles {
  theta: number;
  phi: number;
  lambda: number;
}

export function zyzAngles(m: Mat2): ZyzAngles {
  const [ar, ai, br, bi, cr, ci, dr, di] = m as unknown as number[];
  const detRe = ar! * dr! - ai! * di! - (br! * cr! - bi! * ci!);
  const detIm = ar! * di! + ai! * dr! - (br! * ci! + bi! * cr!);
  const theta = 2 * Math.atan2(Math.hypot(cr!, ci!), Math.hypot(ar!, ai!));
  const gamma = Math.atan2(ai!, ar!);
  const phi = Math.atan2(ci!, cr!) - gamma;
  const lambda = Math.atan2(detIm, detRe) - 2 * gamma - phi;
  return { theta, phi: normalizeAngle(phi), lambda: normalizeAngle(lambda) };
}

/** Whether `m` is the identity up to a global phase, within `tol`. */
export function isIdentityUpToPhase(m: Mat2, tol = 1e-12): boolean {
  return (
    Math.hypot(m[2]!, m[3]!) <= tol &&
    Math.hypot(m[4]!, m[5]!) <= tol &&
    Math.hypot(m[0]! - m[6]!, m[1]! - m[7]!) <= tol
  );
}
