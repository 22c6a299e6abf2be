import { describe, expect, it } from 'vitest';
import {
  BACKENDS,
  checkEquivalence,
  gate,
  generateCode,
  loadQuantumIR,
  measure,
  parseTestSuite,
  renderReport,
  sampleCircuit,
  mulberry32,
  validateCircuit,
  type Circuit,
  type Gate,
  type MethodOptions,
  type ValidateOptions,
} from '../../src/quantum/index.js';
import { primitiveCorpus, randomCorpus } from './support/corpus.js';

const NOW = new Date('2026-05-01T12:00:00Z');
const BASE: MethodOptions = {
  method: 'auto',
  tolerance: 1e-9,
  matrixSizeLimit: 10,
  nShots: 1024,
  seed: 1234,
  tvdThreshold: 0.1,
};
const opts = (extra: Partial<ValidateOptions> = {}): ValidateOptions => ({
  ...BASE,
  circuitName: 'c',
  now: () => NOW,
  ...extra,
});

function circuitOf(n: number, gates: Gate[], clbits = 0): Circuit {
  return loadQuantumIR({ circuit: { num_qubits: n, num_clbits: clbits, gates } }).circuit;
}
const bell = circuitOf(2, [gate('H', [0]), gate('CNOT', [1], [0])]);

describe('equivalence methods (§17.5)', () => {
  it('auto uses unitary up to the matrix size limit, statevector above', () => {
    expect(checkEquivalence(bell, bell, BASE).method).toBe('unitary');
    expect(checkEquivalence(bell, bell, { ...BASE, matrixSizeLimit: 1 }).method).toBe('statevector');
  });

  it('unitary above the limit is an error', () => {
    expect(() => checkEquivalence(bell, bell, { ...BASE, method: 'unitary', matrixSizeLimit: 1 })).toThrow(
      'unitary method needs at most 1 qubits (--matrix-size-limit); the circuit has 2',
    );
  });

  it('detects a relative phase with the statevector method (one common phase for all inputs)', () => {
    // Z on qubit 0 only changes the relative phase of |1…⟩: |0…0⟩ alone would not notice.
    const withZ = circuitOf(2, [...bell.gates, gate('Z', [0])]);
    const r = checkEquivalence(bell, withZ, { ...BASE, method: 'statevector' });
    expect(r.is_equivalent).toBe(false);
    expect(r.error_message).toMatch(/^States differ on input /);
  });

  it('reports a global phase: U ≈ e^{iφ}·V, φ in (−π, π]', () => {
    const withPhase = circuitOf(2, [...bell.gates, gate('RZ', [0], [], { theta: 2 * Math.PI })]);
    for (const method of ['unitary', 'statevector'] as const) {
      const r = checkEquivalence(withPhase, bell, { ...BASE, method });
      expect(r.is_equivalent).toBe(true);
      expect(Math.abs(r.phase_difference!)).toBeCloseTo(Math.PI, 12);
    }
    const quarter = circuitOf(1, [
      gate('H', [0]),
      gate('RZ', [0], [], { theta: Math.PI / 2 }),
      gate('P', [0], [], { theta: -Math.PI / 2 }),
    ]);
    // RZ(π/2)·P(−π/2) = e^{−iπ/4}·I, so circuit = e^{−iπ/4}·H.
    for (const method of ['unitary', 'statevector'] as const)
      expect(
        checkEquivalence(quarter, circuitOf(1, [gate('H', [0])]), { ...BASE, method }).phase_difference,
      ).toBeCloseTo(-Math.PI / 4, 12);
  });

  it('different qubit counts are not equivalent', () => {
    const r = checkEquivalence(bell, circuitOf(3, bell.gates), BASE);
    expect(r).toMatchObject({ is_equivalent: false, error_message: 'Qubit count mismatch: 2 vs 3' });
  });

  it('MEASURE is ignored for unitary and statevector, with a warning', () => {
    const measured = circuitOf(2, [...bell.gates, measure([0, 1], [0, 1])], 2);
    const r = checkEquivalence(measured, bell, BASE);
    expect(r.is_equivalent).toBe(true);
    expect(r.warnings).toEqual(['MEASURE ignored for equivalence']);
  });

  it('sampling is deterministic per seed and counts are written with qubit 0 leftmost', () => {
    const x0 = circuitOf(2, [gate('X', [0])]);
    const r = checkEquivalence(x0, x0, { ...BASE, method: 'sampling' });
    expect(r.sampling).toEqual({
      n_shots: 1024,
      seed: 1234,
      tvd: 0,
      counts_a: { '10': 1024 },
      counts_b: { '10': 1024 },
    });
    const a = checkEquivalence(bell, bell, { ...BASE, method: 'sampling' });
    const b = checkEquivalence(bell, bell, { ...BASE, method: 'sampling' });
    expect(a).toEqual(b);
    expect(Object.keys(a.sampling!.counts_a).sort()).toEqual(['00', '11']);
    expect(a.is_equivalent).toBe(true);
    const notBell = circuitOf(2, [gate('H', [0])]);
    expect(checkEquivalence(bell, notBell, { ...BASE, method: 'sampling' }).is_equivalent).toBe(false);
  });

  it('Born sampling matches the exact distribution (χ² sanity on 20,000 shots)', () => {
    const c = circuitOf(2, [gate('RY', [0], [], { theta: 1 }), gate('RY', [1], [], { theta: 2 })]);
    const counts = sampleCircuit(c, 20000, mulberry32(7));
    const p0 = Math.cos(0.5) ** 2;
    const p1 = Math.cos(1) ** 2;
    const exact: Record<string, number> = {
      '00': p0 * p1,
      '01': p0 * (1 - p1),
      '10': (1 - p0) * p1,
      '11': (1 - p0) * (1 - p1),
    };
    let chi2 = 0;
    for (const k of Object.keys(exact)) chi2 += ((counts[k] ?? 0) - 20000 * exact[k]!) ** 2 / (20000 * exact[k]!);
    expect(chi2).toBeLessThan(16.3); // p = 0.001 for 3 degrees of freedom
  });

  it('mid-circuit measurement is sampled by collapsing', () => {
    // H, measure, H: each outcome of qubit 0 is equally likely at the end (no interference).
    const c = circuitOf(1, [gate('H', [0]), measure([0], [0]), gate('H', [0])], 1);
    const counts = sampleCircuit(c, 4000, mulberry32(3));
    expect(Math.abs((counts['0'] ?? 0) - 2000)).toBeLessThan(200);
  });
});

describe('validateCircuit (§17.5)', () => {
  it('--reference: equivalent passes; global phase warns', () => {
    const phase = circuitOf(2, [...bell.gates, gate('RZ', [1], [], { theta: 2 * Math.PI })]);
    const r = validateCircuit(phase, opts({ reference: { name: 'bell.json', circuit: bell } }));
    expect(r.passed).toBe(true);
    expect(r.warnings).toEqual(['Circuits differ by global phase: 3.141593']);
    expect(r.equivalence).toMatchObject({ is_equivalent: true, error_message: null });
    expect(r.method).toBe('unitary');
  });

  it('--reference: different fails with an error', () => {
    const r = validateCircuit(
      circuitOf(2, [gate('H', [0])]),
      opts({ reference: { name: 'bell.json', circuit: bell } }),
    );
    expect(r.passed).toBe(false);
    expect(r.errors[0]).toMatch(/^Equivalence check failed: Unitaries differ: max difference /);
  });

  it('--skip-equivalence skips the reference check', () => {
    const r = validateCircuit(
      circuitOf(2, [gate('H', [0])]),
      opts({ reference: { name: 'b', circuit: bell }, skipEquivalence: true }),
    );
    expect(r).toMatchObject({ passed: true, has_equivalence_check: false });
  });

  const COMPARE: [string, Circuit, string, string[], string[]][] = [
    ['bell_state MATCH', bell, 'MATCH', [], []],
    [
      'ghz_state MATCH',
      circuitOf(3, [gate('H', [0]), gate('CNOT', [1], [0]), gate('CNOT', [2], [1])]),
      'MATCH',
      [],
      [],
    ],
    [
      'bell_state EQUIVALENT',
      circuitOf(2, [...bell.gates, gate('RX', [0], [], { theta: 2 * Math.PI })]),
      'EQUIVALENT',
      [],
      ['Circuits differ by global phase: 3.141593'],
    ],
    [
      'bell_state DIFFERENT',
      circuitOf(2, [gate('H', [0])]),
      'DIFFERENT',
      [
        "Reference comparison 'bell_state' failed: Unitaries differ: max difference 0.7071067811865476 exceeds tolerance 1e-9",
      ],
      [],
    ],
    ['nope ERROR', bell, 'ERROR', ['Unknown reference implementation: nope'], []],
  ];
  it.each(COMPARE)('--compare-with %s', (label, circuit, status, errors, warnings) => {
    const name = label.split(' ')[0]!;
    const r = validateCircuit(circuit, opts({ compareWith: [name] }));
    expect(r.comparisons[0]!.status).toBe(status);
    expect(r.errors).toEqual(errors);
    expect(r.warnings).toEqual(warnings);
    expect(r.passed).toBe(errors.length === 0);
  });

  it('--compare-with qft uses the true QFT and reports metrics and ratio warnings', () => {
    const noisy = circuitOf(3, [...Array.from({ length: 20 }, () => gate('X', [0]))]);
    const r = validateCircuit(noisy, opts({ compareWith: ['qft'] }));
    expect(r.comparisons[0]!.status).toBe('DIFFERENT');
    expect(r.comparisons[0]!.metrics!.gate_count).toEqual({ circuit: 20, reference: 7, difference: 13, ratio: 20 / 7 });
    expect(r.warnings).toContain('Gate count is 2.9x higher than reference (20 vs 7)');
    expect(r.warnings).toContain('Depth is 3.3x higher than reference (20 vs 6)');
  });

  it('warns when the circuit is much smaller than the reference', () => {
    const r = validateCircuit(circuitOf(3, [gate('H', [0])]), opts({ compareWith: ['qft'] }));
    expect(r.warnings).toContain('Gate count is 7.0x lower than reference (1 vs 7)');
  });

  it('test suites: every criterion, skipped cases and the failure error', () => {
    const suite = parseTestSuite(`
name: bell suite
test_cases:
  - name: output
    expected_output: [0.7071067811865476, 0, 0, 0.7071067811865476]
  - name: output with global phase and unnormalised
    expected_output: [[0, 1], 0, 0, [0, 1]]
  - name: distribution
    expected_distribution: {"00": 0.5, "11": 0.5}
  - name: from 01
    input_basis_state: "01"
    expected_distribution: {"01": 0.5, "10": 0.5}
  - name: basis state
    input_state: [[0, 0], 0, 1, 0]
    expected_basis_state: "11"
    tolerance: 0.6
  - name: wrong
    expected_basis_state: "01"
  - name: nothing to check
`);
    const r = validateCircuit(bell, opts({ testSuite: suite }));
    expect(r.tests!.cases.map((c) => c.status)).toEqual([
      'PASSED',
      'PASSED',
      'PASSED',
      'PASSED',
      'PASSED',
      'FAILED',
      'SKIPPED',
    ]);
    expect(r.tests).toMatchObject({ suite_name: 'bell suite', total: 7, passed: 5, failed: 1, skipped: 1 });
    expect(r.errors).toEqual(['Test suite failed: 1/7 tests failed']);
    expect(validateCircuit(bell, opts({ testSuite: suite, skipTests: true })).has_test_results).toBe(false);
  });

  it('an invalid suite is refused with its reason', () => {
    expect(() => parseTestSuite('name: x\ntest_cases: 3')).toThrow('invalid test suite: test_cases must be a list');
    expect(() => parseTestSuite('name: x\ntest_cases:\n  - name: a\n    input_basis_state: 10')).toThrow(
      'invalid test suite: test_cases[0].input_basis_state must be a quoted bitstring such as "010"',
    );
  });

  it('an unknown gate is an error', () => {
    const r = validateCircuit(circuitOf(1, [gate('FOO', [0])]), opts());
    expect(r.errors).toEqual(['Unknown gate: FOO']);
  });
});

describe('--check-codegen round-trips every backend on the corpus', () => {
  const corpus = [
    ...primitiveCorpus(8),
    ...randomCorpus(200, 31_000, { maxQubits: 8, maxGates: 60, maxControls: 3, measurements: true }),
  ];
  for (const backend of BACKENDS) {
    it(`${backend}`, () => {
      let checked = 0;
      for (const item of corpus) {
        let text: string;
        try {
          text = generateCode(item.ir, backend, { now: NOW });
        } catch {
          continue; // a gate this backend cannot express (QASM 2.0 multi-controls, QPanda gates after measurement)
        }
        const r = validateCircuit(item.ir.circuit, opts({ codegen: { name: 'program', text } }));
        expect(r.errors, `${item.id} (${backend})`).toEqual([]);
        expect(r.comparisons[0]!.status, item.id).toBe('MATCH');
        checked++;
      }
      expect(checked).toBeGreaterThanOrEqual(backend === 'qasm3' || backend === 'qiskit' ? 240 : 60);
    });
  }

  it('detects a tampered program', () => {
    const ir = loadQuantumIR({ circuit: { num_qubits: 2, gates: [gate('H', [0]), gate('CNOT', [1], [0])] } });
    const text = generateCode(ir, 'qasm3', { now: NOW }).replace('cx q[0], q[1];', 'cx q[1], q[0];');
    const r = validateCircuit(ir.circuit, opts({ codegen: { name: 'p.qasm', text } }));
    expect(r.comparisons[0]!.status).toBe('DIFFERENT');
    expect(r.errors[0]).toMatch(/^Codegen check failed: Unitaries differ/);
  });
});

describe('report rendering', () => {
  const report = validateCircuit(bell, opts({ compareWith: ['bell_state', 'nope'] }));
  it('json has the contract fields', () => {
    const json = JSON.parse(renderReport(report, 'json')) as Record<string, unknown>;
    expect(Object.keys(json)).toEqual([
      'circuit_name',
      'validation_time',
      'passed',
      'method',
      'has_equivalence_check',
      'has_test_results',
      'num_reference_comparisons',
      'error_count',
      'warning_count',
      'execution_time_ms',
      'comparisons',
      'errors',
      'warnings',
    ]);
    expect(json).toMatchObject({
      circuit_name: 'c',
      validation_time: '2026-05-01T12:00:00Z',
      passed: false,
      error_count: 1,
    });
  });
  it('text has the banner, the overall result and numbered errors', () => {
    const text = renderReport(report, 'text');
    expect(text).toContain('QUANTUM CIRCUIT VALIDATION REPORT');
    expect(text).toContain('OVERALL RESULT: ✗ FAILED');
    expect(text).toContain('REFERENCE COMPARISONS');
    expect(text).toContain('ERRORS\n' + '-'.repeat(70) + '\n1. Unknown reference implementation: nope');
    expect(renderReport(validateCircuit(bell, opts()), 'text')).toContain('OVERALL RESULT: ✓ PASSED');
  });
  it('markdown has the title and the ✅/❌ line', () => {
    expect(renderReport(report, 'markdown')).toMatch(/^# Validation Report: c\n\n❌ \*\*FAILED\*\*\n/);
    expect(renderReport(validateCircuit(bell, opts()), 'markdown')).toContain('✅ **PASSED**');
  });
});
