/** The circuit corpus of the Qiskit oracle and codegen round-trip tests: every primitive plus random circuits. */
import { designCircuit, loadQuantumIR, type ParamMap, type QuantumIR } from '../../../src/quantum/index.js';
import { randomCircuit, type RandomCircuitOptions } from './random-circuits.js';

export interface CorpusItem {
  readonly id: string;
  readonly ir: QuantumIR;
}

function designed(primitive: string, params: ParamMap, level: 0 | 1 | 2 | 3 = 0): CorpusItem {
  const { ir } = designCircuit(
    { id: `${primitive}`, name: primitive, primitives: [primitive], inputParams: {}, qubitCount: null, notes: [] },
    { optimizationLevel: level, params },
  );
  return { id: `${primitive} ${JSON.stringify(params)} O${level}`, ir };
}

/** Every built-in primitive with several parameter sets, some through the optimiser. */
export function primitiveCorpus(maxQubits = 7): CorpusItem[] {
  const items: CorpusItem[] = [];
  for (let n = 1; n <= Math.min(6, maxQubits); n++) items.push(designed('primitive_qft', { n }));
  for (let n = 2; n <= 5; n++) items.push(designed('primitive_iqft', { n }));
  for (let t = 1; t <= 4; t++)
    for (const phase of [0.25, 0.3, 0.9]) items.push(designed('primitive_qpe', { t, phase }));
  for (let n = 2; n <= 5; n++)
    items.push(designed('primitive_amplitude_amplification', { n, marked: '10110'.slice(0, n) }));
  for (let n = 1; n <= 3; n++) items.push(designed('primitive_hadamard', { n }));
  items.push(designed('primitive_bell', {}));
  for (let n = 2; n <= 5; n++) items.push(designed('primitive_ghz', { n }));
  for (let n = 2; n <= 4; n++)
    for (let steps = 1; steps <= 3; steps++)
      items.push(designed('primitive_hamiltonian_simulation', { n, steps, time: 0.7, J: 0.9, h: -1.1 }));
  for (let n = 2; n <= 4; n++)
    for (const layers of [1, 2]) items.push(designed('primitive_variational_circuit', { n, layers, theta: 0.37 }));
  items.push(designed('primitive_block_encoding', {}), designed('primitive_quantum_walk', {}));
  for (const level of [1, 2, 3] as const) {
    items.push(designed('primitive_qft', { n: 4 }, level));
    items.push(designed('primitive_qpe', { t: 3, phase: 0.3 }, level));
    items.push(designed('primitive_amplitude_amplification', { n: 3 }, level));
    items.push(designed('primitive_hamiltonian_simulation', { n: 3, steps: 3 }, level));
  }
  return items.filter((i) => i.ir.circuit.num_qubits <= maxQubits);
}

export function randomCorpus(count: number, firstSeed: number, options: RandomCircuitOptions): CorpusItem[] {
  return Array.from({ length: count }, (_, i) => {
    const seed = firstSeed + i;
    const circuit = randomCircuit(seed, options);
    return { id: `random ${seed}`, ir: loadQuantumIR({ algorithm_id: `random_${seed}`, circuit }) };
  });
}
