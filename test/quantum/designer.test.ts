import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  designCircuit,
  drawCircuit,
  gate,
  inferPrimitives,
  InvalidParameterError,
  listPrimitivesText,
  loadAlgorithmInput,
  markedBitstring,
  parseAssignment,
  parseParamValue,
  probabilities,
  simulateStatevector,
  visualizationText,
  type AlgorithmInput,
  type Gate,
  type ParamMap,
  type ParamValue,
} from '../../src/quantum/index.js';

const SAMPLE_WIKI = path.resolve(import.meta.dirname, '../../sample-wiki');

function input(primitives: string[] | null, extra: Partial<AlgorithmInput> = {}): AlgorithmInput {
  return { id: 'algo', name: 'algo', primitives, inputParams: {}, qubitCount: null, notes: [], ...extra };
}

const design = (primitives: string[], params: ParamMap = {}, level: 0 | 1 | 2 | 3 = 0) =>
  designCircuit(input(primitives), { optimizationLevel: level, params });

const PI = Math.PI;

describe('built-in primitives emit exactly the gates of their §17.3 row', () => {
  const ROWS: [string, ParamMap, number, Gate[]][] = [
    [
      'primitive_qft',
      {},
      3,
      [
        gate('H', [0]),
        gate('P', [0], [1], { theta: PI / 2 }),
        gate('P', [0], [2], { theta: PI / 4 }),
        gate('H', [1]),
        gate('P', [1], [2], { theta: PI / 2 }),
        gate('H', [2]),
        gate('SWAP', [0, 2]),
      ],
    ],
    [
      'primitive_iqft',
      { n: 2 },
      2,
      [gate('SWAP', [0, 1]), gate('H', [1]), gate('P', [0], [1], { theta: -PI / 2 }), gate('H', [0])],
    ],
    [
      'primitive_qpe',
      { t: 2, phase: 0.25 },
      3,
      [
        gate('X', [2]),
        gate('H', [0]),
        gate('H', [1]),
        gate('P', [2], [0], { theta: PI }),
        gate('P', [2], [1], { theta: PI / 2 }),
        gate('SWAP', [0, 1]),
        gate('H', [1]),
        gate('P', [0], [1], { theta: -PI / 2 }),
        gate('H', [0]),
      ],
    ],
    [
      'primitive_amplitude_amplification',
      { marked: '01' },
      2,
      [
        gate('H', [0]),
        gate('H', [1]),
        gate('X', [0]),
        gate('Z', [1], [0]),
        gate('X', [0]),
        gate('H', [0]),
        gate('H', [1]),
        gate('X', [0]),
        gate('X', [1]),
        gate('Z', [1], [0]),
        gate('X', [0]),
        gate('X', [1]),
        gate('H', [0]),
        gate('H', [1]),
      ],
    ],
    ['primitive_hadamard', { n: 2 }, 2, [gate('H', [0]), gate('H', [1])]],
    ['primitive_hadamard', {}, 1, [gate('H', [0])]],
    ['primitive_bell', { n: 7 }, 2, [gate('H', [0]), gate('CNOT', [1], [0])]],
    ['primitive_ghz', {}, 3, [gate('H', [0]), gate('CNOT', [1], [0]), gate('CNOT', [2], [1])]],
    [
      'primitive_hamiltonian_simulation',
      { time: 0.5, steps: 2, J: 3, h: 5 },
      2,
      [
        gate('CNOT', [1], [0]),
        gate('RZ', [1], [], { theta: 1.5 }),
        gate('CNOT', [1], [0]),
        gate('RX', [0], [], { theta: 2.5 }),
        gate('RX', [1], [], { theta: 2.5 }),
        gate('CNOT', [1], [0]),
        gate('RZ', [1], [], { theta: 1.5 }),
        gate('CNOT', [1], [0]),
        gate('RX', [0], [], { theta: 2.5 }),
        gate('RX', [1], [], { theta: 2.5 }),
      ],
    ],
    [
      'primitive_variational_circuit',
      { n: 3, layers: 2, theta: 0.3 },
      3,
      [
        gate('RY', [0], [], { theta: 0.3 }),
        gate('RY', [1], [], { theta: 0.3 }),
        gate('RY', [2], [], { theta: 0.3 }),
        gate('CNOT', [1], [0]),
        gate('CNOT', [2], [1]),
        gate('RY', [0], [], { theta: 0.3 }),
        gate('RY', [1], [], { theta: 0.3 }),
        gate('RY', [2], [], { theta: 0.3 }),
        gate('CNOT', [1], [0]),
        gate('CNOT', [2], [1]),
      ],
    ],
    ['primitive_block_encoding', {}, 2, []],
    ['primitive_quantum_walk', { n: 4 }, 4, []],
  ];
  it.each(ROWS)('%s %j', (id, params, width, gates) => {
    const { ir } = design([id], params);
    expect(ir.circuit.num_qubits).toBe(width);
    expect(ir.circuit.gates).toEqual(gates);
  });

  it('default iterations are ⌊π/4·√(2^n)⌋: n = 4 → 3 iterations', () => {
    const { ir } = design(['primitive_amplitude_amplification'], { n: 4 });
    expect(ir.circuit.gates.filter((g) => g.name === 'Z')).toHaveLength(2 * 3);
    expect(ir.metadata.circuit_params).toMatchObject({ n: 4, iterations: 3, marked: '1111' });
  });

  it('a reserved primitive adds its note', () => {
    expect(design(['primitive_block_encoding']).ir.metadata.validation_errors).toEqual([
      'primitive primitive_block_encoding has no gate generator; width reserved only',
    ]);
  });
});

describe('designer assembly', () => {
  it('places primitives side by side in list order and records the mapping', () => {
    const { ir } = design(['primitive_bell', 'primitive_ghz'], {});
    expect(ir.circuit.num_qubits).toBe(5);
    expect(ir.circuit.gates).toEqual([
      gate('H', [0]),
      gate('CNOT', [1], [0]),
      gate('H', [2]),
      gate('CNOT', [3], [2]),
      gate('CNOT', [4], [3]),
    ]);
    expect(ir.metadata.primitives_used).toEqual(['primitive_bell', 'primitive_ghz']);
    expect(ir.metadata.qubit_mapping).toEqual({
      primitive_bell: { '0': 0, '1': 1 },
      primitive_ghz: { '0': 2, '1': 3, '2': 4 },
    });
    expect(ir.circuit.name).toBe('circuit_algo');
    expect(ir.algorithm_id).toBe('algo');
    expect(ir.version).toBe('1.0.0');
  });

  it('parameters: -p overrides input params, which override complexity.qubit_count, which overrides defaults', () => {
    const base = input(['primitive_hadamard'], { inputParams: { n: 4 }, qubitCount: 6 });
    expect(designCircuit(base, { optimizationLevel: 0 }).ir.circuit.num_qubits).toBe(4);
    expect(designCircuit(base, { optimizationLevel: 0, params: { n: 2 } }).ir.circuit.num_qubits).toBe(2);
    const noParams = input(['primitive_hadamard'], { qubitCount: 6 });
    expect(designCircuit(noParams, { optimizationLevel: 0 }).ir.circuit.num_qubits).toBe(6);
  });

  const CLAMPS: [ParamMap, string][] = [
    [{ n: 50 }, 'parameter n=50 out of range 1..30; clamped to 30'],
    [{ t: 0 }, 'parameter t=0 out of range 1..30; clamped to 1'],
    [{ num_qubits: 31 }, 'parameter num_qubits=31 out of range 1..30; clamped to 30'],
    [{ iterations: 20000 }, 'parameter iterations=20000 out of range 1..10000; clamped to 10000'],
    [{ steps: -3 }, 'parameter steps=-3 out of range 1..10000; clamped to 1'],
    [{ layers: 0 }, 'parameter layers=0 out of range 1..10000; clamped to 1'],
    [{ phase: 1.5 }, 'parameter phase=1.5 out of range 0..1; clamped to 1'],
    [{ phase: -0.1 }, 'parameter phase=-0.1 out of range 0..1; clamped to 0'],
    [{ n: 2.6 }, 'parameter n=2.6 is not an integer; rounded to 3'],
    [{ time: 'soon' }, 'parameter time=soon is not a finite number; ignored'],
  ];
  it.each(CLAMPS)('validates %j', (params, note) => {
    const { ir } = design(['primitive_hadamard'], params);
    expect(ir.metadata.validation_errors).toContain(note);
  });

  it('a clamped value is the one used', () => {
    expect(design(['primitive_hadamard'], { n: 50 }).ir.circuit.num_qubits).toBe(30);
    expect(design(['primitive_qpe'], { phase: 1.5 }).ir.circuit.gates[4]!.params.theta).toBe(2 * PI * 4);
  });

  it('marked given as -p marked=011 keeps its leading zero (kept as written, not typed as 11)', () => {
    expect(parseAssignment('marked=011')).toEqual(['marked', '011']);
    const { ir } = design(['primitive_amplitude_amplification'], { n: 3, marked: '011' });
    expect(ir.metadata.circuit_params.marked).toBe('011');
    expect(ir.metadata.validation_errors).toEqual([]);
  });

  /** A bitstring of exactly n bits, or an integer below 2^n whose digits are not all 0s and 1s. */
  const MARKED_OK: [ParamValue, number, string][] = [
    ['010', 3, '010'],
    ['00', 2, '00'],
    [' 110 ', 3, '110'],
    ['5', 3, '101'],
    ['7', 3, '111'],
    ['2', 2, '10'],
    [5, 3, '101'],
    [101, 3, '101'],
    ['1023', 10, '1111111111'],
  ];
  it.each(MARKED_OK)('marked=%j with n = %i marks |%s⟩', (value, n, bits) => {
    expect(markedBitstring(value, n)).toBe(bits);
    const { ir } = design(['primitive_amplitude_amplification'], { n, marked: value });
    expect(ir.metadata.circuit_params.marked).toBe(bits);
    // The designed search finds that state: after ⌊π/4·√2^n⌋ iterations it is the most likely outcome.
    const probs = probabilities(simulateStatevector(ir.circuit));
    expect(probs.indexOf(Math.max(...probs))).toBe(Number.parseInt(bits, 2));
  });

  const MARKED_BAD: [ParamValue, number][] = [
    ['10', 3],
    ['0111', 3],
    ['1', 3],
    ['8', 3],
    ['12', 3],
    ['0a', 2],
    ['', 2],
    ['-1', 2],
    ['1e1', 4],
    ['0b11', 2],
    [11, 3],
    [1011, 3],
    [-1, 2],
    [2.5, 2],
    [true, 1],
  ];
  it.each(MARKED_BAD)('marked=%j with n = %i is refused, naming the parameter', (value, n) => {
    const message = `parameter marked=${String(value).trim()}: a marked state of ${n} qubits is a bitstring of exactly ${n} bits or an integer below ${2 ** n}`;
    expect(() => markedBitstring(value, n)).toThrow(new InvalidParameterError(message));
    expect(() => design(['primitive_amplitude_amplification'], { n, marked: value })).toThrow(InvalidParameterError);
  });

  it('an unknown primitive is skipped with a note; none known is an error', () => {
    const { ir } = design(['primitive_teleport', 'primitive_bell']);
    expect(ir.metadata.validation_errors).toEqual(['unknown primitive primitive_teleport; skipped']);
    expect(() => design(['primitive_teleport'])).toThrow(
      'no built-in primitive among: primitive_teleport (see --list-primitives)',
    );
  });

  it('applies the optimiser level and records it', () => {
    // One qubit, two Trotter steps: two RX on qubit 0 that O2 merges and O1 keeps.
    const o1 = design(['primitive_hamiltonian_simulation'], { n: 1, steps: 2 }, 1);
    expect(o1.ir.optimization_level).toBe(1);
    expect(o1.ir.circuit.gates).toHaveLength(2);
    const o2 = design(['primitive_hamiltonian_simulation'], { n: 1, steps: 2 }, 2);
    expect(o2.ir.optimization_level).toBe(2);
    expect(o2.ir.circuit.gates).toEqual([gate('RX', [0], [], { theta: 2 })]);
    expect(o2.stats).toEqual({ gates_removed: 1, depth_reduction: 1, gates_fused: 0 });
  });

  it('parses -p values as int, else float, else boolean, else string', () => {
    expect([parseParamValue('3'), parseParamValue('-2'), parseParamValue('2.5'), parseParamValue('1e3')]).toEqual([
      3, -2, 2.5, 1000,
    ]);
    expect([
      parseParamValue('true'),
      parseParamValue('false'),
      parseParamValue('abc'),
      parseParamValue('1.2.3'),
    ]).toEqual([true, false, 'abc', '1.2.3']);
  });
});

describe('primitive inference from "<id> <name>" (first match wins)', () => {
  const RULES: [string, string[]][] = [
    ['shor factoring', ['primitive_qpe', 'primitive_qft']],
    ['integer factor', ['primitive_qpe', 'primitive_qft']],
    ['grover', ['primitive_amplitude_amplification']],
    ['database search', ['primitive_amplitude_amplification']],
    ['qpe', ['primitive_qpe']],
    ['phase estimation', ['primitive_qpe']],
    ['hamiltonian', ['primitive_hamiltonian_simulation']],
    ['ising simulation', ['primitive_hamiltonian_simulation']],
    ['variational', ['primitive_variational_circuit']],
    ['vqe', ['primitive_variational_circuit']],
    ['qaoa', ['primitive_variational_circuit']],
    ['random walk', ['primitive_quantum_walk']],
    ['amplitude encode', ['primitive_block_encoding']],
    ['block', ['primitive_block_encoding']],
    ['bell pair', ['primitive_bell']],
    ['ghz', ['primitive_ghz']],
    ['fourier', ['primitive_qft']],
    ['qft', ['primitive_qft']],
  ];
  it.each(RULES)('%s', (text, primitives) => {
    expect(inferPrimitives(text, '')).toEqual(primitives);
  });
  it('the first rule wins (search before simulation)', () => {
    expect(inferPrimitives('algo-search', 'Simulation')).toEqual(['primitive_amplitude_amplification']);
  });
  it('no match is an error', () => {
    expect(() => inferPrimitives('algo-x', 'Mystery')).toThrow("cannot infer primitives for 'algo-x'");
  });
});

describe('designer input', () => {
  it('reads a YAML file with both input_params forms and complexity.qubit_count', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'pks-designer-'));
    const file = path.join(dir, 'algo.yaml');
    await writeFile(
      file,
      'id: my-grover\nname: Grover search\ninput_params:\n  - name: n\n    value: 3\n  - "marked=101"\n  - an integer\ncomplexity:\n  qubit_count: 9\n',
    );
    const parsed = await loadAlgorithmInput(file, path.join(dir, 'no-wiki'));
    expect(parsed).toEqual({
      id: 'my-grover',
      name: 'Grover search',
      primitives: null,
      inputParams: { n: 3, marked: '101' },
      qubitCount: 9,
      notes: ["input parameter 'an integer' is not k=v; ignored"],
    });
    const { ir } = designCircuit(parsed, { optimizationLevel: 0 });
    expect(ir.metadata.primitives_used).toEqual(['primitive_amplitude_amplification']);
    expect(ir.metadata.circuit_params).toMatchObject({ n: 3, marked: '101' });
  });

  it('reads a JSON file with primitives', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'pks-designer-'));
    const file = path.join(dir, 'algo.json');
    await writeFile(file, JSON.stringify({ id: 'x', name: 'X', primitives: ['primitive_bell'], input_params: [] }));
    const parsed = await loadAlgorithmInput(file, dir);
    expect(parsed.primitives).toEqual(['primitive_bell']);
  });

  it('reads a wiki page: its [[prim-…]] links give the primitives', async () => {
    const parsed = await loadAlgorithmInput('algo-shors-algorithm', SAMPLE_WIKI);
    expect(parsed).toMatchObject({
      id: 'algo-shors-algorithm',
      name: "Shor's algorithm",
      primitives: ['primitive_phase_estimation', 'primitive_quantum_fourier_transform'],
    });
    const { ir } = designCircuit(parsed, { optimizationLevel: 1 });
    expect(ir.metadata.primitives_used).toEqual(['primitive_qpe', 'primitive_qft']);
    expect(ir.circuit.num_qubits).toBe(7);
  });

  it('neither a file nor a page id is an error', async () => {
    await expect(loadAlgorithmInput('algo-nothing', SAMPLE_WIKI)).rejects.toThrow(
      'algo-nothing is neither a file nor a wiki page id',
    );
  });
});

describe('designer text output', () => {
  it('--list-primitives prints every primitive with name, category and default width', () => {
    const text = listPrimitivesText();
    expect(text.startsWith(`Available Primitives:\n${'-'.repeat(40)}\n  primitive_qft\n    Name: `)).toBe(true);
    expect(text).toContain(
      '  primitive_qpe\n    Name: Quantum Phase Estimation\n    Category: estimation\n    Qubits: 4\n\n',
    );
    for (const id of [
      'primitive_qft',
      'primitive_iqft',
      'primitive_qpe',
      'primitive_amplitude_amplification',
      'primitive_hadamard',
      'primitive_bell',
      'primitive_ghz',
      'primitive_hamiltonian_simulation',
      'primitive_variational_circuit',
      'primitive_block_encoding',
      'primitive_quantum_walk',
    ])
      expect(text).toContain(`  ${id}\n`);
  });

  it('draws a Bell circuit', () => {
    const { ir } = design(['primitive_bell']);
    expect(drawCircuit(ir.circuit)).toBe(['q0: --H--*--', '         |', 'q1: -----X--'].join('\n'));
  });

  it('-v block has the header fields, the drawing and the counts', () => {
    const { ir } = design(['primitive_bell']);
    const text = visualizationText(ir);
    const rule = '='.repeat(60);
    expect(text).toContain(
      `${rule}\nAlgorithm: algo\nQubits: 2\nClassical bits: 0\nGate count: 2\nDepth: 2\nOptimization: O0\n${rule}\n`,
    );
    expect(text).toContain('Gate counts by type:\n  CNOT: 1\n  H: 1\n');
  });
});
