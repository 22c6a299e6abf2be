/** Primitive inference from `"<id> <name>"` when the input lists none (CONTRACT §17.3): first matching rule wins. */
import { InvalidInputError } from '../../shared/domain-errors.js';

const RULES: readonly (readonly [readonly string[], readonly string[]])[] = [
  [
    ['shor', 'factor'],
    ['primitive_qpe', 'primitive_qft'],
  ],
  [['grover', 'search'], ['primitive_amplitude_amplification']],
  [['qpe', 'estimation'], ['primitive_qpe']],
  [['hamiltonian', 'simulation'], ['primitive_hamiltonian_simulation']],
  [['variational', 'vqe', 'qaoa'], ['primitive_variational_circuit']],
  [['walk'], ['primitive_quantum_walk']],
  [['encode', 'block'], ['primitive_block_encoding']],
  [['bell'], ['primitive_bell']],
  [['ghz'], ['primitive_ghz']],
  [['fourier', 'qft'], ['primitive_qft']],
];

export function inferPrimitives(id: string, name: string): string[] {
  const text = `${id} ${name}`.toLowerCase();
  for (const [words, primitives] of RULES) if (words.some((w) => text.includes(w))) return [...primitives];
  throw new InvalidInputError(`cannot infer primitives for '${id}'; list them under primitives`);
}
