import type { Circuit, Gate } from '../../../src/quantum/index.js';

/** A circuit of `gates` on `n` qubits labelled `q0`, `q1`, … (each mapped to its own index). */
export function circuitOf(n: number, gates: Gate[], clbits = 0): Circuit {
  return {
    name: 't',
    num_qubits: n,
    num_clbits: clbits,
    qubit_labels: Array.from({ length: n }, (_, i) => `q${i}`),
    qubit_mapping: Object.fromEntries(Array.from({ length: n }, (_, i) => [String(i), i])),
    gates,
  };
}
