/** Built-in reference circuits of `pks validator --compare-with` (CONTRACT §17.5). */
import { gate } from '../ir/build.js';
import type { Circuit, Gate } from '../ir/types.js';
import { qftGates } from '../designer/primitives.js';

function circuit(name: string, numQubits: number, gates: Gate[]): Circuit {
  return {
    name,
    num_qubits: numQubits,
    num_clbits: 0,
    qubit_labels: Array.from({ length: numQubits }, (_, i) => `q${i}`),
    qubit_mapping: Object.fromEntries(Array.from({ length: numQubits }, (_, i) => [String(i), i])),
    gates,
  };
}

export function referenceCircuit(name: string): Circuit | null {
  switch (name) {
    case 'bell_state':
      return circuit('bell_state', 2, [gate('H', [0]), gate('CNOT', [1], [0])]);
    case 'ghz_state':
      return circuit('ghz_state', 3, [gate('H', [0]), gate('CNOT', [1], [0]), gate('CNOT', [2], [1])]);
    case 'qft':
      return circuit('qft', 3, qftGates(3));
    default:
      return null;
  }
}
