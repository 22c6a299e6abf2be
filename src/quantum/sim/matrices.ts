/**
 * 2×2 matrices of the one-target gates (CONTRACT §17.2 table) as interleaved complex numbers
 * `[a.re, a.im, b.re, b.im, c.re, c.im, d.re, d.im]` for `[[a, b], [c, d]]`.
 */
import { InvalidInputError } from '../../shared/domain-errors.js';
import { reduceAngle } from '../angles.js';
import type { GateParams } from '../ir/types.js';

export type Mat2 = Float64Array;

/** A matrix's eight numbers, in the order above. */
export type Mat2Entries = readonly [number, number, number, number, number, number, number, number];

/** The matrix's numbers as a fixed-length tuple, for destructuring without index checks. */
export const entriesOf = (m: Mat2): Mat2Entries => m as unknown as Mat2Entries;

const SQRT1_2 = Math.SQRT1_2;

function mat(ar: number, ai: number, br: number, bi: number, cr: number, ci: number, dr: number, di: number): Mat2 {
  return Float64Array.of(ar, ai, br, bi, cr, ci, dr, di);
}

const diag = (theta: number): Mat2 => mat(1, 0, 0, 0, 0, 0, Math.cos(theta), Math.sin(theta));

function param(params: GateParams, key: string): number {
  const v = params[key];
  if (v === undefined) throw new InvalidInputError(`missing param ${key}`);
  return v;
}

/** The matrix of a one-target gate by canonical name (CNOT/CCX → X, CZ → Z). */
export function oneQubitMatrix(name: string, params: GateParams): Mat2 {
  switch (name) {
    case 'I':
      return mat(1, 0, 0, 0, 0, 0, 1, 0);
    case 'H':
      return mat(SQRT1_2, 0, SQRT1_2, 0, SQRT1_2, 0, -SQRT1_2, 0);
    case 'X':
    case 'CNOT':
    case 'CCX':
      return mat(0, 0, 1, 0, 1, 0, 0, 0);
    case 'Y':
      return mat(0, 0, 0, -1, 0, 1, 0, 0);
    case 'Z':
    case 'CZ':
      return mat(1, 0, 0, 0, 0, 0, -1, 0);
    case 'S':
      return mat(1, 0, 0, 0, 0, 0, 0, 1);
    case 'SDG':
      return mat(1, 0, 0, 0, 0, 0, 0, -1);
    case 'T':
      return mat(1, 0, 0, 0, 0, 0, SQRT1_2, SQRT1_2);
    case 'TDG':
      return mat(1, 0, 0, 0, 0, 0, SQRT1_2, -SQRT1_2);
    case 'SX':
      return mat(0.5, 0.5, 0.5, -0.5, 0.5, -0.5, 0.5, 0.5);
    case 'RX': {
      const t = param(params, 'theta') / 2;
      const c = Math.cos(t);
      const s = Math.sin(t);
      return mat(c, 0, 0, -s, 0, -s, c, 0);
    }
    case 'RY': {
      const t = param(params, 'theta') / 2;
      const c = Math.cos(t);
      const s = Math.sin(t);
      return mat(c, 0, -s, 0, s, 0, c, 0);
    }
    case 'RZ': {
      const t = param(params, 'theta') / 2;
      const c = Math.cos(t);
      const s = Math.sin(t);
      return mat(c, -s, 0, 0, 0, 0, c, s);
    }
    case 'P':
      return diag(param(params, 'theta'));
    case 'U': {
      const t = param(params, 'theta') / 2;
      // φ and λ are reduced before φ + λ is formed: the rounding of a large sum would otherwise leak into the phase.
      const phi = reduceAngle(param(params, 'phi'));
      const lam = reduceAngle(param(params, 'lambda'));
      const c = Math.cos(t);
      const s = Math.sin(t);
      return mat(
        c,
        0,
        -Math.cos(lam) * s,
        -Math.sin(lam) * s,
        Math.cos(phi) * s,
        Math.sin(phi) * s,
        Math.cos(phi + lam) * c,
        Math.sin(phi + lam) * c,
      );
    }
    default:
      throw new InvalidInputError(`Unknown gate: ${name}`);
  }
}

/** `a · b` (apply `b` first). */
export function multiply(a: Mat2, b: Mat2): Mat2 {
  const out = new Float64Array(8);
  for (let r = 0; r < 2; r++)
    for (let c = 0; c < 2; c++) {
      let re = 0;
      let im = 0;
      for (let k = 0; k < 2; k++) {
        const x = 4 * r + 2 * k;
        const y = 4 * k + 2 * c;
        re += a[x]! * b[y]! - a[x + 1]! * b[y + 1]!;
        im += a[x]! * b[y + 1]! + a[x + 1]! * b[y]!;
      }
      out[4 * r + 2 * c] = re;
      out[4 * r + 2 * c + 1] = im;
    }
  return out;
}
