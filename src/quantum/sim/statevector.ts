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

export function checkSimulable(numQubits: number, max = MAX_STATEVECTOR_QUBITS): void {
  if (numQubits > max) throw new InvalidInputError(`circuit too wide to simulate: ${numQubits} qubits (max ${max})`);
}

/**
 * A zeroed state of `numQubits` qubits. Every state is allocated here, after the width check, so no path asks for
 * 2^31 amplitudes and answers "Array buffer allocation failed" instead of "circuit too wide".
 */
export function allocateState(numQubits: number): Float64Array {
  checkSimulable(numQubits);
  return new Float64Array(2 * 2 ** numQubits);
}

export function zeroState(numQubits: number): Float64Array {
  const sv = allocateState(numQubits);
  sv[0] = 1;
  return sv;
}

/**
 * A gate with its bit positions and matrix worked out once, so applying it again (every shot, every input state)
 * builds nothing. `null` from `compileGate` means the gate changes no amplitude (MEASURE, BARRIER, I).
 */
export type Step =
  | { readonly swap: false; readonly bit: number; readonly controls: number[]; readonly matrix: Mat2 }
  | { readonly swap: true; readonly p: number; readonly q: number; readonly controls: number[] };

/** `width` is the circuit's qubit count: qubit q is bit `width − 1 − q`. */
export function compileGate(gate: Gate, width: number): Step | null {
  const name = gate.name;
  if (name === 'BARRIER' || name === 'MEASURE' || name === 'I') return null;
  const controls = gate.control_qubits.map((q) => width - 1 - q);
  if (name === 'SWAP')
    return { swap: true, p: width - 1 - gate.target_qubits[0]!, q: width - 1 - gate.target_qubits[1]!, controls };
  return {
    swap: false,
    bit: width - 1 - gate.target_qubits[0]!,
    controls,
    matrix: oneQubitMatrix(name, gate.params),
  };
}

/** `numBits` is log2 of the amplitude count, larger than the circuit width when unitary columns evolve together. */
export function applyStep(sv: Float64Array, numBits: number, step: Step): void {
  if (step.swap) applySwap(sv, numBits, step.p, step.q, step.controls);
  else applyMatrix(sv, numBits, step.bit, step.controls, step.matrix);
}

/** Applies one gate in place (see `compileGate` and `applyStep`). */
export function applyGate(sv: Float64Array, numBits: number, width: number, gate: Gate): void {
  const step = compileGate(gate, width);
  if (step !== null) applyStep(sv, numBits, step);
}

const isIdentity = (m: Mat2): boolean =>
  m[0] === 1 && m[1] === 0 && m[2] === 0 && m[3] === 0 && m[4] === 0 && m[5] === 0 && m[6] === 1 && m[7] === 0;

/**
 * The steps of `gates` (throwing `Unknown gate: <NAME>` for the first gate the simulator cannot apply). Consecutive
 * uncontrolled one-qubit gates on a qubit (nothing else touching it in between) are multiplied into one 2×2 matrix,
 * so each such run costs one pass; the product is exact up to rounding and its place in the qubit's timeline is
 * unchanged.
 */
export function compileGates(gates: readonly Gate[], width: number): Step[] {
  const steps: Step[] = [];
  const pending: (Mat2 | null)[] = new Array<Mat2 | null>(width).fill(null);
  const flush = (q: number) => {
    const m = pending[q];
    if (m === null || m === undefined) return;
    pending[q] = null;
    if (!isIdentity(m)) steps.push({ swap: false, bit: width - 1 - q, controls: [], matrix: m });
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
    const step = compileGate(g, width);
    if (step !== null) steps.push(step);
  }
  for (let q = 0; q < width; q++) flush(q);
  return steps;
}

export function runSteps(sv: Float64Array, numBits: number, steps: readonly Step[]): void {
  for (const step of steps) applyStep(sv, numBits, step);
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
  const steps = compileGates(circuit.gates, n);
  let sv: Float64Array;
  if (initial === undefined) sv = zeroState(n);
  else {
    if (initial.length !== 2 * 2 ** n)
      throw new InvalidInputError(`input state has ${initial.length / 2} amplitudes, expected ${2 ** n}`);
    sv = Float64Array.from(initial);
  }
  runSteps(sv, n, steps);
  return sv;
}
