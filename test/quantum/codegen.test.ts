import { describe, expect, it } from 'vitest';
import {
  formatAngle,
  gate,
  generateCode,
  loadQuantumIR,
  measure,
  parseProgram,
  type Backend,
  type Gate,
  type QuantumIR,
} from '../../src/quantum/index.js';

const NOW = new Date('2026-05-01T12:00:00Z');

function irOf(gates: Gate[], numQubits = 4, numClbits = 2): QuantumIR {
  return loadQuantumIR({ algorithm_id: 'algo-x', circuit: { num_qubits: numQubits, num_clbits: numClbits, gates } });
}

/** The gate lines of a generated program (everything between the register declarations and the end). */
function gateLine(g: Gate, backend: Backend): string {
  const text = generateCode(irOf([g]), backend, { now: NOW });
  const lines = text.split('\n');
  switch (backend) {
    case 'qiskit': {
      const i = lines.findIndex((l) => l.includes('circuit = QuantumCircuit('));
      return lines[i + 1]!.trim();
    }
    case 'qpanda': {
      const i = lines.findIndex((l) => l.includes('circuit = QCircuit()'));
      const next = lines[i + 1]!.trim();
      return next === 'prog = QProg()' ? lines[i + 3]!.trim() : next;
    }
    default: {
      const i = lines.findIndex((l) => /^(creg|bit\[)/.test(l));
      return lines[i + 1]!;
    }
  }
}

const T = 0.1;
type Row = [string, Gate, string, string, string, string];
/** CONTRACT §17.4 table, row by row: IR → Qiskit, QPanda, OpenQASM 2.0, OpenQASM 3. */
const ROWS: Row[] = [
  ['H', gate('H', [1]), 'circuit.h(1)', 'circuit << H(qubits[1])', 'h q[1];', 'h q[1];'],
  ['X', gate('X', [0]), 'circuit.x(0)', 'circuit << X(qubits[0])', 'x q[0];', 'x q[0];'],
  ['Y', gate('Y', [0]), 'circuit.y(0)', 'circuit << Y(qubits[0])', 'y q[0];', 'y q[0];'],
  ['Z', gate('Z', [0]), 'circuit.z(0)', 'circuit << Z(qubits[0])', 'z q[0];', 'z q[0];'],
  ['S', gate('S', [0]), 'circuit.s(0)', 'circuit << S(qubits[0])', 's q[0];', 's q[0];'],
  ['T', gate('T', [0]), 'circuit.t(0)', 'circuit << T(qubits[0])', 't q[0];', 't q[0];'],
  ['SX', gate('SX', [0]), 'circuit.sx(0)', 'circuit << SX(qubits[0])', 'sx q[0];', 'sx q[0];'],
  ['SDG', gate('SDG', [2]), 'circuit.sdg(2)', 'circuit << S(qubits[2]).dagger()', 'sdg q[2];', 'sdg q[2];'],
  ['TDG', gate('TDG', [2]), 'circuit.tdg(2)', 'circuit << T(qubits[2]).dagger()', 'tdg q[2];', 'tdg q[2];'],
  [
    'RX',
    gate('RX', [0], [], { theta: T }),
    'circuit.rx(0.1, 0)',
    'circuit << RX(qubits[0], 0.1)',
    'rx(0.1) q[0];',
    'rx(0.1) q[0];',
  ],
  [
    'RY',
    gate('RY', [0], [], { theta: T }),
    'circuit.ry(0.1, 0)',
    'circuit << RY(qubits[0], 0.1)',
    'ry(0.1) q[0];',
    'ry(0.1) q[0];',
  ],
  [
    'RZ',
    gate('RZ', [0], [], { theta: T }),
    'circuit.rz(0.1, 0)',
    'circuit << RZ(qubits[0], 0.1)',
    'rz(0.1) q[0];',
    'rz(0.1) q[0];',
  ],
  [
    'P',
    gate('P', [0], [], { theta: T }),
    'circuit.p(0.1, 0)',
    'circuit << U1(qubits[0], 0.1)',
    'u1(0.1) q[0];',
    'p(0.1) q[0];',
  ],
  [
    'U',
    gate('U', [0], [], { theta: 0.1, phi: 0.2, lambda: 0.3 }),
    'circuit.u(0.1, 0.2, 0.3, 0)',
    'circuit << U3(qubits[0], 0.1, 0.2, 0.3)',
    'u3(0.1,0.2,0.3) q[0];',
    'U(0.1,0.2,0.3) q[0];',
  ],
  [
    'CNOT',
    gate('CNOT', [1], [0]),
    'circuit.cx(0, 1)',
    'circuit << CNOT(qubits[0], qubits[1])',
    'cx q[0], q[1];',
    'cx q[0], q[1];',
  ],
  [
    'CZ',
    gate('CZ', [1], [0]),
    'circuit.cz(0, 1)',
    'circuit << CZ(qubits[0], qubits[1])',
    'cz q[0], q[1];',
    'cz q[0], q[1];',
  ],
  [
    'CCX',
    gate('CCX', [2], [0, 1]),
    'circuit.ccx(0, 1, 2)',
    'circuit << Toffoli(qubits[0], qubits[1], qubits[2])',
    'ccx q[0], q[1], q[2];',
    'ccx q[0], q[1], q[2];',
  ],
  [
    'SWAP',
    gate('SWAP', [0, 3]),
    'circuit.swap(0, 3)',
    'circuit << SWAP(qubits[0], qubits[3])',
    'swap q[0], q[3];',
    'swap q[0], q[3];',
  ],
  [
    'controlled H',
    gate('H', [1], [0]),
    'circuit.ch(0, 1)',
    'circuit << H(qubits[1]).control([qubits[0]])',
    'ch q[0], q[1];',
    'ctrl @ h q[0], q[1];',
  ],
  [
    'controlled Y',
    gate('Y', [1], [0]),
    'circuit.cy(0, 1)',
    'circuit << Y(qubits[1]).control([qubits[0]])',
    'cy q[0], q[1];',
    'ctrl @ y q[0], q[1];',
  ],
  [
    'controlled SX',
    gate('SX', [1], [0]),
    'circuit.csx(0, 1)',
    'circuit << SX(qubits[1]).control([qubits[0]])',
    'csx q[0], q[1];',
    'ctrl @ sx q[0], q[1];',
  ],
  [
    'controlled RX',
    gate('RX', [1], [0], { theta: T }),
    'circuit.crx(0.1, 0, 1)',
    'circuit << RX(qubits[1], 0.1).control([qubits[0]])',
    'crx(0.1) q[0], q[1];',
    'ctrl @ rx(0.1) q[0], q[1];',
  ],
  [
    'controlled RY',
    gate('RY', [1], [0], { theta: T }),
    'circuit.cry(0.1, 0, 1)',
    'circuit << RY(qubits[1], 0.1).control([qubits[0]])',
    'cry(0.1) q[0], q[1];',
    'ctrl @ ry(0.1) q[0], q[1];',
  ],
  [
    'controlled RZ',
    gate('RZ', [1], [0], { theta: T }),
    'circuit.crz(0.1, 0, 1)',
    'circuit << RZ(qubits[1], 0.1).control([qubits[0]])',
    'crz(0.1) q[0], q[1];',
    'ctrl @ rz(0.1) q[0], q[1];',
  ],
  [
    'controlled P',
    gate('P', [1], [0], { theta: T }),
    'circuit.cp(0.1, 0, 1)',
    'circuit << U1(qubits[1], 0.1).control([qubits[0]])',
    'cu1(0.1) q[0], q[1];',
    'ctrl @ p(0.1) q[0], q[1];',
  ],
  [
    'controlled U',
    gate('U', [1], [0], { theta: 0.1, phi: 0.2, lambda: 0.3 }),
    'circuit.cu(0.1, 0.2, 0.3, 0, 0, 1)',
    'circuit << U3(qubits[1], 0.1, 0.2, 0.3).control([qubits[0]])',
    'cu3(0.1,0.2,0.3) q[0], q[1];',
    'ctrl @ U(0.1,0.2,0.3) q[0], q[1];',
  ],
  [
    'controlled SWAP',
    gate('SWAP', [1, 2], [0]),
    'circuit.cswap(0, 1, 2)',
    'circuit << SWAP(qubits[1], qubits[2]).control([qubits[0]])',
    'cswap q[0], q[1], q[2];',
    'ctrl @ swap q[0], q[1], q[2];',
  ],
  [
    'X with one control',
    gate('X', [1], [0]),
    'circuit.cx(0, 1)',
    'circuit << CNOT(qubits[0], qubits[1])',
    'cx q[0], q[1];',
    'cx q[0], q[1];',
  ],
  [
    'MEASURE',
    measure([3], [1]),
    'circuit.measure(3, 1)',
    'prog << Measure(qubits[3], cbits[1])',
    'measure q[3] -> c[1];',
    'c[1] = measure q[3];',
  ],
  [
    'BARRIER',
    gate('BARRIER', [0, 2]),
    'circuit.barrier(0, 2)',
    '# barrier',
    'barrier q[0], q[2];',
    'barrier q[0], q[2];',
  ],
];

describe('codegen: one line per gate, exactly as the §17.4 table', () => {
  it.each(ROWS)('%s', (_label, g, qiskit, qpanda, qasm2, qasm3) => {
    expect(gateLine(g, 'qiskit')).toBe(qiskit);
    expect(gateLine(g, 'qpanda')).toBe(qpanda);
    expect(gateLine(g, 'qasm2')).toBe(qasm2);
    expect(gateLine(g, 'qasm3')).toBe(qasm3);
  });

  const K_CONTROLS: [string, Gate, string, string, string][] = [
    [
      'S with one control',
      gate('S', [1], [0]),
      'circuit.append(SGate().control(1), [0, 1])',
      'circuit << S(qubits[1]).control([qubits[0]])',
      'ctrl(1) @ s q[0], q[1];',
    ],
    [
      'H with two controls',
      gate('H', [2], [0, 1]),
      'circuit.append(HGate().control(2), [0, 1, 2])',
      'circuit << H(qubits[2]).control([qubits[0], qubits[1]])',
      'ctrl(2) @ h q[0], q[1], q[2];',
    ],
    [
      'RZ with two controls',
      gate('RZ', [3], [0, 1], { theta: -0.5 }),
      'circuit.append(RZGate(-0.5).control(2), [0, 1, 3])',
      'circuit << RZ(qubits[3], -0.5).control([qubits[0], qubits[1]])',
      'ctrl(2) @ rz(-0.5) q[0], q[1], q[3];',
    ],
    [
      'X with three controls',
      gate('X', [3], [0, 1, 2]),
      'circuit.append(XGate().control(3), [0, 1, 2, 3])',
      'circuit << X(qubits[3]).control([qubits[0], qubits[1], qubits[2]])',
      'ctrl(3) @ x q[0], q[1], q[2], q[3];',
    ],
    [
      'Z with two controls',
      gate('Z', [2], [0, 1]),
      'circuit.append(ZGate().control(2), [0, 1, 2])',
      'circuit << Z(qubits[2]).control([qubits[0], qubits[1]])',
      'ctrl(2) @ z q[0], q[1], q[2];',
    ],
    [
      'SDG with one control',
      gate('SDG', [1], [0]),
      'circuit.append(SdgGate().control(1), [0, 1])',
      'circuit << S(qubits[1]).dagger().control([qubits[0]])',
      'ctrl(1) @ sdg q[0], q[1];',
    ],
  ];
  it.each(K_CONTROLS)('%s (k controls, other cases)', (_label, g, qiskit, qpanda, qasm3) => {
    expect(gateLine(g, 'qiskit')).toBe(qiskit);
    expect(gateLine(g, 'qpanda')).toBe(qpanda);
    expect(gateLine(g, 'qasm3')).toBe(qasm3);
    const k = g.control_qubits.length;
    expect(() => generateCode(irOf([g]), 'qasm2')).toThrow(
      `gate not expressible in OpenQASM 2.0: ${g.name} with ${k} controls`,
    );
  });

  it('an unknown gate is a comment in Qiskit and QPanda and an error in QASM', () => {
    const g = gate('FOO', [0]);
    expect(gateLine(g, 'qiskit')).toBe('# Unsupported gate: FOO');
    expect(gateLine(g, 'qpanda')).toBe('# Unsupported gate: FOO');
    expect(() => generateCode(irOf([g]), 'qasm2')).toThrow('gate not expressible in OpenQASM 2.0: FOO');
    expect(() => generateCode(irOf([g]), 'qasm3')).toThrow('gate not expressible in OpenQASM 3: FOO');
  });

  it('angles are the shortest round-trip decimal, never rounded', () => {
    for (const x of [Math.PI / 2, 0.1 + 0.2, -1e-7, 1e21, 2 ** -40, 5, -0, 123456.789])
      expect(Number(formatAngle(x))).toBe(x === 0 ? 0 : x);
    expect(formatAngle(Math.PI / 2)).toBe('1.5707963267948966');
    expect(formatAngle(0.1 + 0.2)).toBe('0.30000000000000004');
    expect(gateLine(gate('RX', [0], [], { theta: 0.1 + 0.2 }), 'qasm2')).toBe('rx(0.30000000000000004) q[0];');
  });

  /** OpenQASM 2.0's grammar: a real has a decimal point (with an optional exponent), or is an integer. */
  const QASM2_REAL = /^-?(?:(?:\d+\.\d*|\d*\.\d+)(?:[eE][-+]?\d+)?|\d+)$/;
  const QASM2_LITERALS: [number, string][] = [
    [1e-7, '1.0e-7'],
    [-1e-7, '-1.0e-7'],
    [1e21, '1.0e+21'],
    [1e300, '1.0e+300'],
    [5e-324, '5.0e-324'],
    [2.5e-320, '2.5e-320'],
    [2 ** -40, '9.094947017729282e-13'],
    [1e9, '1000000000'],
    [0.1 + 0.2, '0.30000000000000004'],
    [-0, '0'],
    [3, '3'],
  ];
  it.each(QASM2_LITERALS)('OpenQASM 2.0 writes %s as %s: the strict grammar, the same double', (x, text) => {
    const line = gateLine(gate('RZ', [0], [], { theta: x }), 'qasm2');
    expect(line).toBe(`rz(${text}) q[0];`);
    expect(text.replace(/^-/, '')).toMatch(QASM2_REAL);
    const program = generateCode(irOf([gate('RZ', [0], [], { theta: x })]), 'qasm2', { now: NOW });
    expect(parseProgram(program).circuit.gates[0]!.params.theta).toBe(x === 0 ? 0 : x);
  });

  it('OpenQASM 2.0 declares the gates the paper qelib1.inc lacks, and reads its own declarations back', () => {
    const gates = [
      gate('SX', [0]),
      gate('SWAP', [0, 1]),
      gate('SWAP', [1, 2], [0]),
      gate('RX', [1], [0], { theta: 0.5 }),
      gate('RY', [1], [0], { theta: 0.25 }),
      gate('SX', [1], [0]),
      gate('H', [1], [0]),
    ];
    const program = generateCode(irOf(gates, 3), 'qasm2', { now: NOW });
    expect(program.split('\n').slice(0, 9)).toEqual([
      'OPENQASM 2.0;',
      'include "qelib1.inc";',
      'gate sx a { sdg a; h a; sdg a; }',
      'gate swap a,b { cx a,b; cx b,a; cx a,b; }',
      'gate cswap a,b,c { cx c,b; ccx a,b,c; cx c,b; }',
      'gate crx(lambda) a,b { u1(pi/2) b; cx a,b; u3(-lambda/2,0,0) b; cx a,b; u3(lambda/2,-pi/2,0) b; }',
      'gate cry(lambda) a,b { ry(lambda/2) b; cx a,b; ry(-lambda/2) b; cx a,b; }',
      'gate csx a,b { h b; cu1(pi/2) a,b; h b; }',
      '// Quantum circuit for algo-x',
    ]);
    expect(parseProgram(program).circuit.gates).toEqual(gates);
    expect(generateCode(irOf([gate('H', [0])]), 'qasm2', { now: NOW })).not.toContain('gate ');
    expect(() => parseProgram(program.replace('gate sx a { sdg a; h a; sdg a; }', 'gate sx a { h a; }'))).toThrow(
      /line 3/,
    );
  });

  it('OpenQASM 3 keeps the shortest form (its grammar takes 1e-7)', () => {
    expect(gateLine(gate('RZ', [0], [], { theta: 1e-7 }), 'qasm3')).toBe('rz(1e-7) q[0];');
  });
});

describe('program structure', () => {
  const ir = irOf([gate('H', [0]), gate('CNOT', [1], [0]), measure([0, 1], [0, 1])], 2, 2);

  it('Qiskit: docstring, imports, create_circuit, run_circuit, get_circuit_drawer, __main__', () => {
    const text = generateCode(ir, 'qiskit', { now: NOW, description: 'Bell test' });
    expect(text).toContain(
      '"""\nBell test\n\nGenerated by pks codegen\nBackend: qiskit\nAlgorithm: algo-x\nGenerated at: 2026-05-01T12:00:00Z\n"""',
    );
    expect(text).toContain(
      'from qiskit import QuantumCircuit, QuantumRegister, ClassicalRegister, transpile\nfrom qiskit_aer import AerSimulator\n',
    );
    expect(text).toContain(
      'def create_circuit():\n    """Build the circuit (qubit 0 of pks is qubit 0 here; Qiskit prints bitstrings in reverse order)."""\n    qr = QuantumRegister(2, "q")\n    cr = ClassicalRegister(2, "c")\n    circuit = QuantumCircuit(qr, cr, name="algo-x")\n    circuit.h(0)\n    circuit.cx(0, 1)\n    circuit.measure([0, 1], [0, 1])\n    return circuit\n',
    );
    expect(text).toContain('def run_circuit(shots=1024):');
    expect(text).toContain('def get_circuit_drawer():');
    expect(text).toContain('if __name__ == "__main__":\n    print(get_circuit_drawer())\n    print(run_circuit())\n');
  });

  it('the default description is "Quantum circuit for <algorithm_id>"', () => {
    expect(generateCode(ir, 'qiskit', { now: NOW })).toContain('"""\nQuantum circuit for algo-x\n');
  });

  it('QPanda: CPUQVM, init_qvm, qAlloc_many, cAlloc_many, QCircuit, gates, QProg, measures, run_circuit', () => {
    const text = generateCode(ir, 'qpanda', { now: NOW });
    expect(text).toContain('from pyqpanda import *\n');
    expect(text).toContain(
      '    qvm = CPUQVM()\n    qvm.init_qvm()\n    qubits = qvm.qAlloc_many(2)\n    cbits = qvm.cAlloc_many(2)\n    circuit = QCircuit()\n    circuit << H(qubits[0])\n    circuit << CNOT(qubits[0], qubits[1])\n    prog = QProg()\n    prog << circuit\n    prog << Measure(qubits[0], cbits[0])\n    prog << Measure(qubits[1], cbits[1])\n',
    );
    expect(text).toContain('def run_circuit(shots=1024):');
  });

  it('QPanda refuses a gate on a qubit after its measurement', () => {
    const bad = irOf([measure([0], [0]), gate('H', [0])], 1, 1);
    expect(() => generateCode(bad, 'qpanda')).toThrow(
      'QPanda output measures at the end; gate 1 (H) acts on a qubit after its measurement',
    );
  });

  it('QASM programs are complete', () => {
    expect(generateCode(ir, 'qasm2', { now: NOW })).toBe(
      'OPENQASM 2.0;\ninclude "qelib1.inc";\n// Quantum circuit for algo-x\n// Generated by pks codegen (backend: qasm2, algorithm: algo-x, 2026-05-01T12:00:00Z)\nqreg q[2];\ncreg c[2];\nh q[0];\ncx q[0], q[1];\nmeasure q[0] -> c[0]; measure q[1] -> c[1];\n',
    );
    expect(generateCode(ir, 'qasm3', { now: NOW })).toBe(
      'OPENQASM 3.0;\ninclude "stdgates.inc";\n// Quantum circuit for algo-x\n// Generated by pks codegen (backend: qasm3, algorithm: algo-x, 2026-05-01T12:00:00Z)\nqubit[2] q;\nbit[2] c;\nh q[0];\ncx q[0], q[1];\nc[0] = measure q[0]; c[1] = measure q[1];\n',
    );
  });
});

describe('parsing generated programs back (--check-codegen)', () => {
  const gates = [
    ...ROWS.map((r) => r[1]),
    gate('S', [1], [0]),
    gate('H', [2], [0, 1]),
    gate('RZ', [3], [0, 1], { theta: 0.25 }),
  ];
  for (const backend of ['qiskit', 'qpanda', 'qasm2', 'qasm3'] as Backend[]) {
    it(`${backend}: every line form reads back to the same gates`, () => {
      // Every gate the backend can express; QPanda measures at the end, so its measurement is left out here.
      const usable = gates.filter((g) => {
        if (backend === 'qpanda' && g.name === 'MEASURE') return false;
        try {
          generateCode(irOf([g]), backend);
          return true;
        } catch {
          return false;
        }
      });
      expect(usable.length).toBeGreaterThanOrEqual(backend === 'qasm2' ? 29 : 32);
      const ir = irOf(usable);
      const parsed = parseProgram(generateCode(ir, backend, { now: NOW }));
      expect(parsed.backend).toBe(backend);
      expect(parsed.circuit.num_qubits).toBe(4);
      expect(parsed.circuit.num_clbits).toBe(2);
      const canonical = (g: Gate) => ({ ...g, name: g.name, control_qubits: [...g.control_qubits].sort() });
      const expected = usable.map((g) =>
        backend === 'qpanda' && g.name === 'BARRIER' ? gate('BARRIER', []) : canonical(g),
      );
      expect(parsed.circuit.gates.map(canonical)).toEqual(
        expected.map((g) => (g.name === 'X' && g.control_qubits.length === 1 ? { ...g, name: 'CNOT' } : g)),
      );
    });
  }

  it('an unrecognised line is an error naming it', () => {
    const text = generateCode(irOf([gate('H', [0])]), 'qasm2', { now: NOW }).replace('h q[0];', 'hadamard q[0];');
    expect(() => parseProgram(text)).toThrow('unrecognised line 7: hadamard q[0];');
    const py = generateCode(irOf([gate('H', [0])]), 'qiskit', { now: NOW }).replace('circuit.h(0)', 'circuit.h(qr[0])');
    expect(() => parseProgram(py)).toThrow(/bad qubit index on line \d+: circuit\.h\(qr\[0\]\)/);
    expect(() => parseProgram('print("hello")')).toThrow('not a program written by pks codegen');
  });
});
