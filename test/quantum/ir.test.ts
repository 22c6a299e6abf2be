import { describe, expect, it } from 'vitest';
import { circuitMetrics, loadQuantumIR, parseQuantumIR } from '../../src/quantum/index.js';

const NOW = new Date('2026-05-01T12:00:00.500Z');

describe('Quantum IR loading (§17.2)', () => {
  it('reads the contract example and keeps every field', () => {
    const ir = parseQuantumIR(
      JSON.stringify({
        version: '1.0.0',
        algorithm_id: 'algo-qft',
        optimization_level: 1,
        created_at: '2026-05-01T12:00:00Z',
        metadata: {
          primitives_used: ['primitive_qft'],
          qubit_mapping: { primitive_qft: { '0': 0, '1': 1, '2': 2 } },
          circuit_params: { n: 3 },
          validation_errors: [],
        },
        circuit: {
          name: 'circuit_algo-qft',
          num_qubits: 3,
          num_clbits: 0,
          qubit_labels: ['q0', 'q1', 'q2'],
          qubit_mapping: { '0': 0, '1': 1, '2': 2 },
          gates: [
            { name: 'H', target_qubits: [0], control_qubits: [], params: {}, classical_bits: [] },
            {
              name: 'P',
              target_qubits: [0],
              control_qubits: [1],
              params: { theta: 1.5707963267948966 },
              classical_bits: [],
            },
          ],
        },
      }),
    );
    expect(ir.algorithm_id).toBe('algo-qft');
    expect(ir.metadata.qubit_mapping).toEqual({ primitive_qft: { '0': 0, '1': 1, '2': 2 } });
    expect(ir.circuit.gates[1]).toEqual({
      name: 'P',
      target_qubits: [0],
      control_qubits: [1],
      params: { theta: 1.5707963267948966 },
      classical_bits: [],
    });
  });

  it('fills the defaults of every optional field', () => {
    const ir = loadQuantumIR({ circuit: { num_qubits: 2, gates: [{ name: 'h', target_qubits: [1] }] } }, { now: NOW });
    expect(ir).toEqual({
      version: '1.0.0',
      algorithm_id: '',
      optimization_level: 0,
      created_at: '2026-05-01T12:00:00Z',
      metadata: { primitives_used: [], qubit_mapping: {}, circuit_params: {}, validation_errors: [] },
      circuit: {
        name: '',
        num_qubits: 2,
        num_clbits: 0,
        qubit_labels: ['q0', 'q1'],
        qubit_mapping: { '0': 0, '1': 1 },
        gates: [{ name: 'H', target_qubits: [1], control_qubits: [], params: {}, classical_bits: [] }],
      },
    });
  });

  it('accepts a bare circuit only where allowed', () => {
    expect(loadQuantumIR({ num_qubits: 1, gates: [] }, { allowBareCircuit: true }).circuit.num_qubits).toBe(1);
    expect(() => loadQuantumIR({ num_qubits: 1, gates: [] })).toThrow('invalid IR: missing circuit');
  });

  it('upper-cases names and resolves the aliases U1, CX, TOFFOLI', () => {
    const ir = loadQuantumIR({
      circuit: {
        num_qubits: 3,
        gates: [
          { name: 'u1', target_qubits: [0], params: { theta: 1 } },
          { name: 'cx', target_qubits: [1], control_qubits: [0] },
          { name: 'Toffoli', target_qubits: [2], control_qubits: [0, 1] },
          { name: 'my_gate', target_qubits: [2] },
        ],
      },
    });
    expect(ir.circuit.gates.map((g) => g.name)).toEqual(['P', 'CNOT', 'CCX', 'MY_GATE']);
  });

  const gate = (g: Record<string, unknown>) => ({ circuit: { num_qubits: 3, num_clbits: 1, gates: [g] } });
  const CASES: [string, unknown, string][] = [
    ['not an object', [], 'invalid IR: expected a JSON object'],
    ['no num_qubits', { circuit: { gates: [] } }, 'invalid IR: missing circuit.num_qubits'],
    ['zero qubits', { circuit: { num_qubits: 0 } }, 'invalid IR: circuit.num_qubits must be a positive integer'],
    ['too many qubits', { circuit: { num_qubits: 4097 } }, 'invalid IR: circuit.num_qubits must be at most 4096'],
    [
      'too many clbits',
      { circuit: { num_qubits: 1, num_clbits: 1e9 } },
      'invalid IR: circuit.num_clbits must be at most 4096',
    ],
    [
      'negative clbits',
      { circuit: { num_qubits: 1, num_clbits: -1 } },
      'invalid IR: circuit.num_clbits must be a non-negative integer',
    ],
    [
      'target out of range',
      gate({ name: 'H', target_qubits: [3] }),
      'invalid IR: gate 0 (H): qubit 3 out of range [0, 3)',
    ],
    [
      'negative control',
      gate({ name: 'H', target_qubits: [0], control_qubits: [-1] }),
      'invalid IR: gate 0 (H): qubit -1 out of range [0, 3)',
    ],
    [
      'target is control',
      gate({ name: 'X', target_qubits: [0], control_qubits: [0] }),
      'invalid IR: gate 0 (X): qubit 0 is both a target and a control',
    ],
    [
      'duplicate control',
      gate({ name: 'X', target_qubits: [0], control_qubits: [1, 1] }),
      'invalid IR: gate 0 (X): duplicate qubit 1',
    ],
    ['duplicate target', gate({ name: 'SWAP', target_qubits: [1, 1] }), 'invalid IR: gate 0 (SWAP): duplicate qubit 1'],
    ['no targets', gate({ name: 'H' }), 'invalid IR: gate 0 (H): missing target_qubits'],
    ['two targets on H', gate({ name: 'H', target_qubits: [0, 1] }), 'invalid IR: gate 0 (H): expects 1 target, got 2'],
    [
      'one target on SWAP',
      gate({ name: 'SWAP', target_qubits: [0] }),
      'invalid IR: gate 0 (SWAP): expects 2 targets, got 1',
    ],
    [
      'CNOT without control',
      gate({ name: 'CNOT', target_qubits: [0] }),
      'invalid IR: gate 0 (CNOT): expects exactly 1 control, got 0',
    ],
    [
      'CCX with one control',
      gate({ name: 'CCX', target_qubits: [0], control_qubits: [1] }),
      'invalid IR: gate 0 (CCX): expects exactly 2 controls, got 1',
    ],
    ['RX without theta', gate({ name: 'RX', target_qubits: [0] }), 'invalid IR: gate 0 (RX): missing param theta'],
    [
      'U without lambda',
      gate({ name: 'U', target_qubits: [0], params: { theta: 1, phi: 2 } }),
      'invalid IR: gate 0 (U): missing param lambda',
    ],
    [
      'string angle',
      gate({ name: 'P', target_qubits: [0], params: { theta: 'pi' } }),
      'invalid IR: gate 0 (P): param theta must be a finite number',
    ],
    [
      'MEASURE without clbits',
      gate({ name: 'MEASURE', target_qubits: [0] }),
      'invalid IR: gate 0 (MEASURE): needs as many classical_bits as targets (0 vs 1)',
    ],
    [
      'MEASURE clbit out of range',
      gate({ name: 'MEASURE', target_qubits: [0], classical_bits: [1] }),
      'invalid IR: gate 0 (MEASURE): classical bit 1 out of range [0, 1)',
    ],
    [
      'controlled MEASURE',
      gate({ name: 'MEASURE', target_qubits: [0], control_qubits: [1], classical_bits: [0] }),
      'invalid IR: gate 0 (MEASURE): cannot have controls',
    ],
    [
      'controlled BARRIER',
      gate({ name: 'BARRIER', target_qubits: [0], control_qubits: [1] }),
      'invalid IR: gate 0 (BARRIER): cannot have controls',
    ],
    [
      'non-integer qubit',
      gate({ name: 'H', target_qubits: [0.5] }),
      'invalid IR: gate 0 (H): target_qubits must be a list of integers',
    ],
    [
      'unknown gate out of range',
      gate({ name: 'FOO', target_qubits: [7] }),
      'invalid IR: gate 0 (FOO): qubit 7 out of range [0, 3)',
    ],
  ];
  it.each(CASES)('rejects %s', (_label, doc, message) => {
    expect(() => loadQuantumIR(doc)).toThrow(message);
  });

  it('rejects text that is not JSON', () => {
    expect(() => parseQuantumIR('{nope')).toThrow(/^invalid IR: not valid JSON/);
  });
});

describe('derived values (§17.2)', () => {
  it('counts gates, depth, qubits used, two-qubit and non-local gates; barriers never count', () => {
    const ir = loadQuantumIR({
      circuit: {
        num_qubits: 4,
        num_clbits: 1,
        gates: [
          { name: 'H', target_qubits: [0] },
          { name: 'BARRIER', target_qubits: [0, 1, 2, 3] },
          { name: 'CNOT', target_qubits: [1], control_qubits: [0] },
          { name: 'H', target_qubits: [2] },
          { name: 'CCX', target_qubits: [2], control_qubits: [0, 1] },
          { name: 'MEASURE', target_qubits: [2], classical_bits: [0] },
        ],
      },
    });
    expect(circuitMetrics(ir.circuit)).toEqual({
      gate_count: 5,
      gate_counts_by_type: { CCX: 1, CNOT: 1, H: 2, MEASURE: 1 },
      depth: 4,
      qubits_used: [0, 1, 2],
      two_qubit_gates: 1,
      num_nonlocal_gates: 2,
    });
  });
});
