/** `pks codegen` (CONTRACT §17.4): one program per backend from a Quantum IR. */
import { rfc3339 } from '../../shared/time.js';
import type { QuantumIR } from '../ir/types.js';
import type { CodegenInput } from './forms.js';
import { generateQasm } from './qasm.js';
import { generateQiskit } from './qiskit.js';
import { generateQpanda } from './qpanda.js';

export const BACKENDS = ['qiskit', 'qpanda', 'qasm2', 'qasm3'] as const;
export type Backend = (typeof BACKENDS)[number];

export interface CodegenOptions {
  readonly description?: string;
  readonly now?: Date;
}

export function defaultDescription(algorithmId: string): string {
  return `Quantum circuit for ${algorithmId}`;
}

/** The program text; throws `InvalidInputError` when the backend cannot express a gate. */
export function generateCode(ir: QuantumIR, backend: Backend, options: CodegenOptions = {}): string {
  const input: CodegenInput = {
    algorithmId: ir.algorithm_id,
    numQubits: ir.circuit.num_qubits,
    numClbits: ir.circuit.num_clbits,
    gates: ir.circuit.gates,
    description: options.description ?? defaultDescription(ir.algorithm_id),
    generatedAt: rfc3339(options.now ?? new Date()),
  };
  switch (backend) {
    case 'qiskit':
      return generateQiskit(input);
    case 'qpanda':
      return generateQpanda(input);
    case 'qasm2':
      return generateQasm(input, 2);
    case 'qasm3':
      return generateQasm(input, 3);
  }
}
