/**
 * The full unitary of a circuit, by columns: column k is the circuit applied to |k⟩. All columns are evolved at
 * once as one 2n-bit vector (index `k·2^n + j` holds `U[j][k]`), so each gate is one kernel pass and the qubit
 * bit positions are the same as in the statevector.
 */
import { InvalidInputError } from '../../shared/domain-errors.js';
import type { Circuit } from '../ir/types.js';
import { compileGates, runSteps } from './statevector.js';

/** 2^13 × 2^13 complex entries = 1 GiB. */
export const MAX_UNITARY_QUBITS = 13;

export interface Unitary {
  readonly numQubits: number;
  /** Dimension 2^n. */
  readonly dim: number;
  /** Column-major, interleaved: entry (j, k) at `2·(k·dim + j)`. */
  readonly data: Float64Array;
}

export function circuitUnitary(circuit: Circuit): Unitary {
  const n = circuit.num_qubits;
  if (n > MAX_UNITARY_QUBITS)
    throw new InvalidInputError(`circuit too wide for a full unitary: ${n} qubits (max ${MAX_UNITARY_QUBITS})`);
  const steps = compileGates(circuit.gates, n);
  const dim = 2 ** n;
  const data = new Float64Array(2 * dim * dim);
  for (let k = 0; k < dim; k++) data[2 * (k * dim + k)] = 1;
  runSteps(data, 2 * n, steps);
  return { numQubits: n, dim, data };
}
