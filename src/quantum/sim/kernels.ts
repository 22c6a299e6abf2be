/**
 * In-place kernels on a statevector of interleaved complex amplitudes (`sv[2i]` real, `sv[2i+1]` imaginary).
 * Qubits are addressed by bit position (`n − 1 − qubit`, CONTRACT §17.1). Controlled gates visit only the
 * amplitudes whose control bits are 1: the outer loop steps through the free bits above the lowest fixed bit
 * (`x = ((x | fixed) + 1) & ~fixed` skips every fixed bit), the inner loop runs over the contiguous block below
 * it, so no work is spent on skipped amplitudes and no n-qubit matrix is ever built.
 */
import { entriesOf, type Mat2 } from './matrices.js';

/** The loop shape of a gate: control mask, block length below the lowest fixed bit, and the outer step mask. */
interface Sweep {
  readonly ctrlMask: number;
  readonly inner: number;
  readonly stepMask: number;
  readonly total: number;
}

function sweep(numBits: number, targetMask: number, controls: readonly number[]): Sweep {
  let ctrlMask = 0;
  for (const p of controls) ctrlMask |= 1 << p;
  const fixed = ctrlMask | targetMask;
  const inner = fixed & -fixed;
  return { ctrlMask, inner, stepMask: fixed | (inner - 1), total: 2 ** numBits };
}

/** Applies the 2×2 matrix `m` to the bit at position `t` where every bit of `controls` is 1. */
export function applyMatrix(sv: Float64Array, numBits: number, t: number, controls: readonly number[], m: Mat2): void {
  const s = sweep(numBits, 1 << t, controls);
  const [ar, ai, br, bi, cr, ci, dr, di] = entriesOf(m);
  if (br === 0 && bi === 0 && cr === 0 && ci === 0) applyDiagonal(sv, s, 1 << t, ar, ai, dr, di);
  else if (ar === 0 && ai === 0 && dr === 0 && di === 0) applyAntiDiagonal(sv, s, 1 << t, br, bi, cr, ci);
  else if (ai === 0 && bi === 0 && ci === 0 && di === 0) applyReal(sv, s, 1 << t, ar, br, cr, dr);
  else applyGeneral(sv, s, 1 << t, ar, ai, br, bi, cr, ci, dr, di);
}

function applyGeneral(
  sv: Float64Array,
  s: Sweep,
  stride: number,
  ar: number,
  ai: number,
  br: number,
  bi: number,
  cr: number,
  ci: number,
  dr: number,
  di: number,
): void {
  const { ctrlMask, inner, stepMask, total } = s;
  const offset = 2 * stride;
  for (let x = 0; x < total; x = ((x | stepMask) + 1) & ~stepMask) {
    const end = 2 * ((x | ctrlMask) + inner);
    for (let a = 2 * (x | ctrlMask); a < end; a += 2) {
      const b = a + offset;
      const xr = sv[a]!;
      const xi = sv[a + 1]!;
      const yr = sv[b]!;
      const yi = sv[b + 1]!;
      sv[a] = ar * xr - ai * xi + br * yr - bi * yi;
      sv[a + 1] = ar * xi + ai * xr + br * yi + bi * yr;
      sv[b] = cr * xr - ci * xi + dr * yr - di * yi;
      sv[b + 1] = cr * xi + ci * xr + dr * yi + di * yr;
    }
  }
}

/** A matrix with real entries (H, RY, …): half the multiplications. */
function applyReal(
  sv: Float64Array,
  s: Sweep,
  stride: number,
  a00: number,
  a01: number,
  a10: number,
  a11: number,
): void {
  const { ctrlMask, inner, stepMask, total } = s;
  const offset = 2 * stride;
  for (let x = 0; x < total; x = ((x | stepMask) + 1) & ~stepMask) {
    const end = 2 * ((x | ctrlMask) + inner);
    for (let a = 2 * (x | ctrlMask); a < end; a += 2) {
      const b = a + offset;
      const xr = sv[a]!;
      const xi = sv[a + 1]!;
      const yr = sv[b]!;
      const yi = sv[b + 1]!;
      sv[a] = a00 * xr + a01 * yr;
      sv[a + 1] = a00 * xi + a01 * yi;
      sv[b] = a10 * xr + a11 * yr;
      sv[b + 1] = a10 * xi + a11 * yi;
    }
  }
}

function applyDiagonal(
  sv: Float64Array,
  s: Sweep,
  stride: number,
  ar: number,
  ai: number,
  dr: number,
  di: number,
): void {
  const { ctrlMask, inner, stepMask, total } = s;
  const phaseOnly = ar === 1 && ai === 0;
  const offset = 2 * stride;
  for (let x = 0; x < total; x = ((x | stepMask) + 1) & ~stepMask) {
    const start = 2 * (x | ctrlMask);
    const end = start + 2 * inner;
    if (!phaseOnly) {
      for (let a = start; a < end; a += 2) {
        const xr = sv[a]!;
        const xi = sv[a + 1]!;
        sv[a] = ar * xr - ai * xi;
        sv[a + 1] = ar * xi + ai * xr;
      }
    }
    for (let b = start + offset; b < end + offset; b += 2) {
      const yr = sv[b]!;
      const yi = sv[b + 1]!;
      sv[b] = dr * yr - di * yi;
      sv[b + 1] = dr * yi + di * yr;
    }
  }
}

function applyAntiDiagonal(
  sv: Float64Array,
  s: Sweep,
  stride: number,
  br: number,
  bi: number,
  cr: number,
  ci: number,
): void {
  const { ctrlMask, inner, stepMask, total } = s;
  const offset = 2 * stride;
  if (br === 1 && bi === 0 && cr === 1 && ci === 0) {
    // X (CNOT, Toffoli): a pure exchange.
    for (let x = 0; x < total; x = ((x | stepMask) + 1) & ~stepMask) {
      const end = 2 * ((x | ctrlMask) + inner);
      for (let a = 2 * (x | ctrlMask); a < end; a += 2) {
        const b = a + offset;
        const xr = sv[a]!;
        const xi = sv[a + 1]!;
        sv[a] = sv[b]!;
        sv[a + 1] = sv[b + 1]!;
        sv[b] = xr;
        sv[b + 1] = xi;
      }
    }
    return;
  }
  for (let x = 0; x < total; x = ((x | stepMask) + 1) & ~stepMask) {
    const end = 2 * ((x | ctrlMask) + inner);
    for (let a = 2 * (x | ctrlMask); a < end; a += 2) {
      const b = a + offset;
      const xr = sv[a]!;
      const xi = sv[a + 1]!;
      const yr = sv[b]!;
      const yi = sv[b + 1]!;
      sv[a] = br * yr - bi * yi;
      sv[a + 1] = br * yi + bi * yr;
      sv[b] = cr * xr - ci * xi;
      sv[b + 1] = cr * xi + ci * xr;
    }
  }
}

/** Exchanges the bits at positions `p` and `q` where every bit of `controls` is 1 (SWAP, Fredkin). */
export function applySwap(sv: Float64Array, numBits: number, p: number, q: number, controls: readonly number[]): void {
  const s = sweep(numBits, (1 << p) | (1 << q), controls);
  const { ctrlMask, inner, stepMask, total } = s;
  const offP = 2 * (1 << p);
  const offQ = 2 * (1 << q);
  for (let x = 0; x < total; x = ((x | stepMask) + 1) & ~stepMask) {
    const start = 2 * (x | ctrlMask);
    const end = start + 2 * inner;
    for (let a = start; a < end; a += 2) {
      const u = a + offP;
      const v = a + offQ;
      const ur = sv[u]!;
      const ui = sv[u + 1]!;
      sv[u] = sv[v]!;
      sv[u + 1] = sv[v + 1]!;
      sv[v] = ur;
      sv[v + 1] = ui;
    }
  }
}
