/**
 * Qiskit as the oracle (project venv): generated Qiskit programs reproduce pks statevectors, qiskit.qasm2 (legacy and
 * strict: the OpenQASM 2.0 grammar as written) and qiskit-qasm3-import read every generated QASM program into the same
 * operator, and the validator's verdicts agree with Operator.equiv. Part of the corpus has angles of 1e6–1e9. One
 * Python process per backend batch.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  checkEquivalence,
  circuitUnitary,
  compareUpToPhase,
  gate,
  generateCode,
  loadQuantumIR,
  optimizeCircuit,
  simulateStatevector,
  type Circuit,
  type QuantumIR,
} from '../../src/quantum/index.js';
import { primitiveCorpus, randomCorpus, type CorpusItem } from './support/corpus.js';
import { reverseBits, runOracle, type OracleJob, type OracleResult } from './support/oracle.js';
import { randomCircuit } from './support/random-circuits.js';

const NOW = new Date('2026-05-01T12:00:00Z');

/** ≥ 200 circuits of up to 8 qubits for the statevector comparison. */
const STATE_CORPUS: CorpusItem[] = [
  ...primitiveCorpus(8),
  ...randomCorpus(170, 5000, { maxQubits: 8, maxGates: 60, maxControls: 3 }),
  ...randomCorpus(40, 6000, { maxQubits: 8, maxGates: 60, maxControls: 3, largeAngles: 0.5 }),
];
/** Operator comparisons: up to 6 qubits keep the matrices small. */
const OPERATOR_CORPUS: CorpusItem[] = [
  ...primitiveCorpus(6),
  ...randomCorpus(160, 9000, { maxQubits: 6, maxGates: 50, maxControls: 3 }),
  ...randomCorpus(40, 9500, { maxQubits: 6, maxGates: 50, maxControls: 3, largeAngles: 0.5 }),
  {
    // Real literals OpenQASM 2.0 writes with an added decimal point: exponents, subnormals, huge values.
    id: 'awkward literals',
    ir: loadQuantumIR({
      algorithm_id: 'literals',
      circuit: {
        num_qubits: 2,
        gates: [
          gate('H', [0]),
          gate('H', [1]),
          ...[1e-7, -1e-7, 1e21, 1e300, 5e-324, 2.5e-320, 2 ** -40].map((theta, i) =>
            gate(i % 2 === 0 ? 'RZ' : 'P', [i % 2], i % 3 === 0 ? [] : [1 - (i % 2)], { theta }),
          ),
        ],
      },
    }),
  },
];

/** Whether a corpus item has an angle of magnitude ≥ 1e6. */
const hasLargeAngle = (item: CorpusItem): boolean =>
  item.ir.circuit.gates.some((g) => Object.values(g.params).some((a) => Math.abs(a) >= 1e6));

function expressible(ir: QuantumIR, backend: 'qasm2' | 'qasm3'): boolean {
  try {
    generateCode(ir, backend, { now: NOW });
    return true;
  } catch {
    return false;
  }
}

/** The circuit without the gates a backend cannot express (QASM 2.0 lacks most multi-controlled gates). */
function qasm2Subset(item: CorpusItem): CorpusItem {
  const gates = item.ir.circuit.gates.filter((g) =>
    expressible({ ...item.ir, circuit: { ...item.ir.circuit, gates: [g] } }, 'qasm2'),
  );
  return { id: item.id, ir: { ...item.ir, circuit: { ...item.ir.circuit, gates } } };
}

/** pks unitary (column-major) in Qiskit's row-major, bit-reversed layout. */
function toQiskitOperator(c: Circuit): Float64Array {
  const u = circuitUnitary(c);
  const n = c.num_qubits;
  const out = new Float64Array(u.data.length);
  for (let j = 0; j < u.dim; j++)
    for (let k = 0; k < u.dim; k++) {
      const src = 2 * (k * u.dim + j);
      const dst = 2 * (reverseBits(j, n) * u.dim + reverseBits(k, n));
      out[dst] = u.data[src]!;
      out[dst + 1] = u.data[src + 1]!;
    }
  return out;
}

let stateResults: Map<string, OracleResult>;
let qasm2Results: Map<string, OracleResult>;
let qasm2StrictResults: Map<string, OracleResult>;
let qasm3Results: Map<string, OracleResult>;
let equivResults: Map<string, OracleResult>;

interface Pair {
  id: string;
  a: Circuit;
  b: Circuit;
  expected: boolean;
}

/** Base circuits with a known rotation (RX 0.7 on qubit 0) and a known CNOT(0→1), and their variants. */
function equivalencePairs(): Pair[] {
  const pairs: Pair[] = [];
  for (let seed = 1; seed <= 40; seed++) {
    const base = randomCircuit(70_000 + seed, { maxQubits: 5, maxGates: 30, maxControls: 2 });
    const n = Math.max(2, base.num_qubits);
    const a: Circuit = {
      ...base,
      num_qubits: n,
      gates: [...base.gates, gate('RX', [0], [], { theta: 0.7 }), gate('CNOT', [1], [0])],
    };
    const at = (gates: Circuit['gates']): Circuit => ({ ...a, gates });
    const last = a.gates.length - 1;
    pairs.push(
      { id: `${seed} optimised O3`, a, b: optimizeCircuit(a, 3).circuit, expected: true },
      {
        id: `${seed} global phase`,
        a,
        b: at([...a.gates, gate('RZ', [0], [], { theta: 2 * Math.PI })]),
        expected: true,
      },
      {
        id: `${seed} angle off by 1e-6`,
        a,
        b: at(a.gates.map((g, i) => (i === last - 1 ? gate('RX', [0], [], { theta: 0.7 + 1e-6 }) : g))),
        expected: false,
      },
      {
        id: `${seed} swapped control`,
        a,
        b: at(a.gates.map((g, i) => (i === last ? gate('CNOT', [0], [1]) : g))),
        expected: false,
      },
      { id: `${seed} relative phase`, a, b: at([...a.gates, gate('S', [n - 1])]), expected: false },
    );
  }
  return pairs;
}
const PAIRS = equivalencePairs();

const qiskitProgram = (ir: QuantumIR) => generateCode(ir, 'qiskit', { now: NOW });
const irOf = (c: Circuit): QuantumIR => ({
  version: '1.0.0',
  algorithm_id: c.name,
  optimization_level: 0,
  created_at: '',
  metadata: { primitives_used: [], qubit_mapping: {}, circuit_params: {}, validation_errors: [] },
  circuit: c,
});

beforeAll(async () => {
  const stateJobs: OracleJob[] = STATE_CORPUS.map((item) => ({
    id: item.id,
    kind: 'statevector',
    program: qiskitProgram(item.ir),
  }));
  const qasm2Jobs: OracleJob[] = OPERATOR_CORPUS.map(qasm2Subset).map((item) => ({
    id: item.id,
    kind: 'qasm2',
    program: generateCode(item.ir, 'qasm2', { now: NOW }),
  }));
  const qasm2StrictJobs: OracleJob[] = OPERATOR_CORPUS.map(qasm2Subset).map((item) => ({
    id: item.id,
    kind: 'qasm2-strict',
    program: generateCode(item.ir, 'qasm2', { now: NOW }),
  }));
  const qasm3Jobs: OracleJob[] = OPERATOR_CORPUS.map((item) => ({
    id: item.id,
    kind: 'qasm3',
    program: generateCode(item.ir, 'qasm3', { now: NOW }),
  }));
  const equivJobs: OracleJob[] = PAIRS.map((p) => ({
    id: p.id,
    kind: 'equiv',
    a: qiskitProgram(irOf(p.a)),
    b: qiskitProgram(irOf(p.b)),
    atol: 1e-9,
  }));
  [stateResults, qasm2Results, qasm2StrictResults, qasm3Results, equivResults] = await Promise.all([
    runOracle(stateJobs),
    runOracle(qasm2Jobs),
    runOracle(qasm2StrictJobs),
    runOracle(qasm3Jobs),
    runOracle(equivJobs),
  ]);
}, 600_000);

describe('Qiskit oracle', () => {
  it('the corpus has ≥ 200 circuits, every primitive and every gate kind', () => {
    expect(STATE_CORPUS.length).toBeGreaterThanOrEqual(200);
    const names = new Set(STATE_CORPUS.flatMap((i) => i.ir.circuit.gates.map((g) => g.name)));
    for (const name of [
      'I',
      'H',
      'X',
      'Y',
      'Z',
      'S',
      'SDG',
      'T',
      'TDG',
      'SX',
      'RX',
      'RY',
      'RZ',
      'P',
      'U',
      'CNOT',
      'CZ',
      'CCX',
      'SWAP',
      'BARRIER',
    ])
      expect(names).toContain(name);
    const primitives = new Set(STATE_CORPUS.flatMap((i) => i.ir.metadata.primitives_used));
    expect(primitives.size).toBe(11);
    expect(STATE_CORPUS.filter(hasLargeAngle).length).toBeGreaterThanOrEqual(30);
    expect(OPERATOR_CORPUS.filter(hasLargeAngle).length).toBeGreaterThanOrEqual(30);
  });

  it('every generated Qiskit program reproduces the pks statevector (bit order reversed), fidelity ≥ 1 − 1e-9', () => {
    for (const item of STATE_CORPUS) {
      const r = stateResults.get(item.id)!;
      expect(r.error, item.id).toBeUndefined();
      const mine = simulateStatevector(item.ir.circuit);
      const n = item.ir.circuit.num_qubits;
      const theirs = r.data!;
      let re = 0;
      let im = 0;
      for (let i = 0; i < mine.length / 2; i++) {
        const j = reverseBits(i, n);
        const [ar, ai, br, bi] = [mine[2 * i]!, mine[2 * i + 1]!, theirs[2 * j]!, theirs[2 * j + 1]!];
        re += ar * br + ai * bi;
        im += ar * bi - ai * br;
      }
      expect(re * re + im * im, item.id).toBeGreaterThanOrEqual(1 - 1e-9);
    }
  });

  for (const [label, results, subset] of [
    ['qiskit.qasm2.loads (Qiskit qelib1.inc names)', () => qasm2Results, qasm2Subset],
    ['qiskit.qasm2.loads(strict=True), no legacy mode (100% parsed)', () => qasm2StrictResults, qasm2Subset],
    ['qiskit-qasm3-import', () => qasm3Results, (i: CorpusItem) => i],
  ] as const) {
    it(`${label} reads every generated program into the same operator`, () => {
      let checked = 0;
      for (const original of OPERATOR_CORPUS) {
        const item = subset(original);
        const r = results().get(item.id)!;
        expect(r.error, item.id).toBeUndefined();
        expect(r.num_qubits, item.id).toBe(item.ir.circuit.num_qubits);
        const cmp = compareUpToPhase(r.data!, toQiskitOperator(item.ir.circuit), 1e-9);
        expect(cmp.maxDifference, item.id).toBeLessThanOrEqual(1e-9);
        checked++;
      }
      expect(checked).toBeGreaterThanOrEqual(200);
    });
  }

  it('the QASM 3 corpus needs no subsetting: every circuit is expressible', () => {
    for (const item of OPERATOR_CORPUS) expect(expressible(item.ir, 'qasm3'), item.id).toBe(true);
  });

  it("the validator's verdicts agree with Operator.equiv on equivalent and subtly different pairs", () => {
    for (const p of PAIRS) {
      const r = equivResults.get(p.id)!;
      expect(r.error, p.id).toBeUndefined();
      expect(r.equiv, p.id).toBe(p.expected);
      for (const method of ['unitary', 'statevector'] as const) {
        const verdict = checkEquivalence(p.a, p.b, {
          method,
          tolerance: 1e-9,
          matrixSizeLimit: 10,
          nShots: 1024,
          seed: 1234,
          tvdThreshold: 0.1,
        });
        expect(verdict.is_equivalent, `${p.id} (${method})`).toBe(r.equiv);
      }
    }
  });
});
