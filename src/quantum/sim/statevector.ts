/**
 * Statevector simulation (CONTRACT §17.1: qubit 0 is the most significant bit). MEASURE and BARRIER are skipped
 * here; callers that care about measurement (sampling) handle it themselves.
 */
import { InvalidInputError } from '../../shared/domain-errors.js';
import type { Circuit, Gate } from '../ir/types.js';
import { applyMatrix, applySwap } from './kernels.js';
import { multiply, oneQubitMatrix, type Mat2 } from './matrices.js';

/** The widest circuit the statevector simulator takes (2^26 amplitudes = 1 GiB). */
export const MAX_STATEVECTOR_QUBITS = 26;

export function zeroState(numQubits: number): Float64Array {
  const sv = new Float64Array(2 * 2 ** numQubits);
  sv[0] = 1;
  return sv;
}

export function checkSimulable(numQubits: number, max = MAX_STATEVECTOR_QUBITS): void {
  if (numQubits > max) throw new InvalidInputError(`circuit too wide to simulate: ${numQubits} qubits (max ${max})`);
}

/**
 * Applies one gate in place. `width` is the circuit's qubit count (qubit q is bit `width − 1 − q`); `numBits` is
 * log2 of the amplitude count, larger than `width` when the columns of a unitary are evolved together.
 */
export function applyGate(sv: Float64Array, numBits: number, width: number, gate: Gate): void {
  const name = gate.name;
  if (name === 'BARRIER' || name === 'MEASURE') return;
  const controls = gate.control_qubits.map((q) => width - 1 - q);
  if (name === 'SWAP') {
    applySwap(sv, numBits, width - 1 - gate.target_qubits[0]!, width - 1 - gate.target_qubits[1]!, controls);
    return;
  }
  if (name === 'I') {
    oneQubitMatrix(name, gate.params);
    return;
  }
  applyMatrix(sv, numBits, width - 1 - gate.target_qubits[0]!, controls, oneQubitMatrix(name, gate.params));
}

const isIdentity = (m: Mat2): boolean =>
  m[0] === 1 && m[1] === 0 && m[2] === 0 && m[3] === 0 && m[4] === 0 && m[5] === 0 && m[6] === 1 && m[7] === 0;

/**
 * Runs `gates` on `sv` in place. Consecutive uncontrolled one-qubit gates on a qubit (nothing else touching it in
 * between) are multiplied into one 2×2 matrix first, so each such run costs one pass; the product is exact up to
 * rounding and its place in the qubit's timeline is unchanged.
 */
export function evolve(sv: Float64Array, numBits: number, width: number, gates: readonly Gate[]): void {
  const pending: (Mat2 | null)[] = new Array<Mat2 | null>(width).fill(null);
  const flush = (q: number) => {
    const m = pending[q];
    if (m === null || m === undefined) return;
    pending[q] = null;
    if (!isIdentity(m)) applyMatrix(sv, numBits, width - 1 - q, [], m);
  };
  for (const g of gates) {
    if (g.name === 'BARRIER' || g.name === 'MEASURE') continue;
    if (
      g.name !== 'SWAP' &&
      g.control_qubits.length === 0 &&
      g.name !== 'CNOT' &&
      g.name !== 'CZ' &&
      g.name !== 'CCX'
    ) {
      const q = g.target_qubits[0]!;
      const m = oneQubitMatrix(g.name, g.params);
      const prev = pending[q];
      pending[q] = prev === null || prev === undefined ? m : multiply(m, prev);
      continue;
    }
    for (const q of g.target_qubits) flush(q);
    for (const q of g.control_qubits) flush(q);
    applyGate(sv, numBits, width, g);
  }
  for (let q = 0; q < width; q++) flush(q);
}

/** Throws `Unknown gate: <NAME>` for the first gate the simulator cannot apply. */
export function checkKnownGates(gates: readonly Gate[]): void {
  for (const g of gates)
    if (g.name !== 'BARRIER' && g.name !== 'MEASURE' && g.name !== 'SWAP') oneQubitMatrix(g.name, g.params);
}

/** The final statevector of `circuit` from `initial` (default |0…0⟩; copied, never modified). */
export function simulateStatevector(circuit: Circuit, initial?: Float64Array): Float64Array {
  const n = circuit.num_qubits;
  checkSimulable(n);
  checkKnownGates(circuit.gates);
  let sv: Float64Array;
  if (initial === undefined) sv = zeroState(n);
  else {
    if (initial.length !== 2 * 2 ** n)
      throw new InvalidInputError(`input state has ${initial.length / 2} amplitudes, expected ${2 ** n}`);
    sv = Float64Array.from(initial);
  }
  evolve(sv, n, n, circuit.gates);
  return sv;
}
