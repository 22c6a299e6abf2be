import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseEstimatorOptions, runEstimator, withExtension } from '../../src/cli/quantum/estimator.js';
import { parseValidatorOptions, runValidator } from '../../src/cli/quantum/validator.js';
import { generateCode, loadQuantumIR } from '../../src/quantum/index.js';

const NOW = () => new Date('2026-05-01T12:00:00Z');

function capture() {
  const out = { stdout: '', stderr: '' };
  return { out, io: { stdout: (t: string) => (out.stdout += t), stderr: (t: string) => (out.stderr += t) } };
}

let dir: string;
const f = (name: string) => path.join(dir, name);
const BELL = {
  algorithm_id: 'bell',
  circuit: {
    name: 'bell_circuit',
    num_qubits: 2,
    gates: [
      { name: 'H', target_qubits: [0] },
      { name: 'CNOT', target_qubits: [1], control_qubits: [0] },
    ],
  },
};

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'pks-quantum-cli-'));
  await writeFile(f('bell.json'), JSON.stringify(BELL));
  await writeFile(f('bare.json'), JSON.stringify({ num_qubits: 2, gates: [{ name: 'H', target_qubits: [0] }] }));
  await writeFile(f('broken.json'), '{"circuit": {}}');
  await writeFile(
    f('suite.yaml'),
    'name: s\ntest_cases:\n  - name: bell\n    expected_distribution: {"00": 0.5, "11": 0.5}\n  - name: bad\n    expected_basis_state: "00"\n',
  );
  await writeFile(f('bell.qasm'), generateCode(loadQuantumIR(BELL), 'qasm3'));
});

describe('pks validator', () => {
  it('validates flag values (exit 2 material)', () => {
    const CASES: [Record<string, unknown>, string][] = [
      [{ method: 'magic' }, "--method must be one of auto, unitary, statevector, sampling, got 'magic'"],
      [{ nShots: '0' }, "--n-shots must be in 1..100000000, got '0'"],
      [{ nShots: 'many' }, "--n-shots must be an integer, got 'many'"],
      [{ seed: '-1' }, "--seed must be in 0..4294967295, got '-1'"],
      [{ tolerance: 'x' }, "--tolerance must be a number, got 'x'"],
      [{ tvdThreshold: '-0.1' }, "--tvd-threshold must be at least 0, got '-0.1'"],
      [{ matrixSizeLimit: '14' }, "--matrix-size-limit must be in 1..13, got '14'"],
      [{ format: 'html' }, "-f/--format must be one of text, json, markdown, md, got 'html'"],
    ];
    for (const [o, message] of CASES) expect(() => parseValidatorOptions('c.json', o)).toThrow(message);
    expect(parseValidatorOptions('c.json', { format: 'md', compareWith: 'bell_state, qft' })).toMatchObject({
      format: 'markdown',
      compareWith: ['bell_state', 'qft'],
      method: 'auto',
      nShots: 1024,
      seed: 1234,
      tvdThreshold: 0.1,
      tolerance: 1e-9,
      matrixSizeLimit: 10,
    });
  });

  it('passes with exit 0 and prints the text report', async () => {
    const { out, io } = capture();
    const options = parseValidatorOptions(f('bell.json'), { compareWith: 'bell_state', checkCodegen: f('bell.qasm') });
    expect(await runValidator(options, io, { now: NOW })).toBe(0);
    expect(out.stdout).toContain('Circuit: bell_circuit\n');
    expect(out.stdout).toContain('OVERALL RESULT: ✓ PASSED');
    expect(out.stdout).toContain('bell_state: MATCH');
    expect(out.stdout).toContain(`codegen:${f('bell.qasm')}: MATCH`);
    expect(out.stderr).toBe('');
  });

  it('fails with exit 1 on a failing suite; json to a file; -q silences the saved line', async () => {
    const { out, io } = capture();
    const options = parseValidatorOptions(f('bell.json'), {
      testSuite: f('suite.yaml'),
      format: 'json',
      output: f('r/report.json'),
    });
    expect(await runValidator(options, io, { now: NOW })).toBe(1);
    expect(out.stdout).toBe(`Report saved to: ${f('r/report.json')}\n`);
    const report = JSON.parse(await readFile(f('r/report.json'), 'utf8')) as Record<string, unknown>;
    expect(report).toMatchObject({
      passed: false,
      has_test_results: true,
      errors: ['Test suite failed: 1/2 tests failed'],
      tests: { suite_name: 's', total: 2, passed: 1, failed: 1, skipped: 0, pass_rate: 0.5 },
    });
    const quiet = capture();
    expect(await runValidator({ ...options, quiet: true }, quiet.io, { now: NOW })).toBe(1);
    expect(quiet.out.stdout).toBe('');
  });

  it('--reference with a bare circuit, markdown report, -v logs on stderr', async () => {
    const { out, io } = capture();
    const options = parseValidatorOptions(f('bell.json'), { reference: f('bare.json'), format: 'md', verbose: true });
    expect(await runValidator(options, io, { now: NOW })).toBe(1);
    expect(out.stdout).toMatch(/^# Validation Report: bell_circuit\n\n❌ \*\*FAILED\*\*\n/);
    expect(out.stderr).toContain(`Loading circuit ${f('bell.json')}\n`);
    expect(out.stderr).toContain('Validation failed');
  });

  const LOAD_FAILURES: [string, () => Record<string, unknown>, string, string][] = [
    ['missing circuit', () => ({}), 'nope.json', `ERROR: Circuit file not found: `],
    ['broken circuit', () => ({}), 'broken.json', `ERROR: `],
    ['missing reference', () => ({ reference: f('nope.json') }), 'bell.json', 'ERROR: Reference file not found: '],
    ['missing suite', () => ({ testSuite: f('nope.yaml') }), 'bell.json', 'ERROR: Test suite file not found: '],
    ['bad suite', () => ({ testSuite: f('bell.json') }), 'bell.json', 'ERROR: '],
    ['missing program', () => ({ checkCodegen: f('nope.py') }), 'bell.json', 'ERROR: Program file not found: '],
  ];
  it.each(LOAD_FAILURES)('%s: ERROR line, exit 1', async (_label, o, input, prefix) => {
    const { out, io } = capture();
    expect(await runValidator(parseValidatorOptions(f(input), o()), io)).toBe(1);
    expect(out.stderr.startsWith(prefix)).toBe(true);
    expect(out.stdout).toBe('');
  });

  /** Every path checks the width before it allocates 2^n amplitudes (was "Array buffer allocation failed"). */
  const WIDE: [string, number, Record<string, unknown>, string][] = [
    [
      'test suite',
      31,
      { testSuite: 'suite.yaml' },
      'Test suite could not run: circuit too wide to simulate: 31 qubits (max 26)',
    ],
    [
      'test suite',
      40,
      { testSuite: 'suite.yaml' },
      'Test suite could not run: circuit too wide to simulate: 40 qubits (max 26)',
    ],
    [
      'test suite',
      27,
      { testSuite: 'suite.yaml' },
      'Test suite could not run: circuit too wide to simulate: 27 qubits (max 26)',
    ],
    [
      'sampling',
      31,
      { reference: 'WIDE', method: 'sampling' },
      'Equivalence check failed: circuit too wide to simulate: 31 qubits (max 26)',
    ],
    [
      'statevector',
      31,
      { reference: 'WIDE', method: 'statevector' },
      'Equivalence check failed: statevector method needs at most 26 qubits; the circuit has 31',
    ],
    [
      'unitary',
      31,
      { reference: 'WIDE', method: 'unitary' },
      'Equivalence check failed: unitary method needs at most 10 qubits (--matrix-size-limit); the circuit has 31',
    ],
  ];
  it.each(WIDE)('%s at %i qubits: a clear "too wide" error, exit 1', async (_path, n, flags, error) => {
    const wide = f(`wide-${n}.json`);
    await writeFile(wide, JSON.stringify({ num_qubits: n, gates: [{ name: 'H', target_qubits: [0] }] }));
    const o = Object.fromEntries(
      Object.entries(flags).map(([k, v]) => [k, v === 'WIDE' ? wide : k === 'testSuite' ? f(v as string) : v]),
    );
    const { out, io } = capture();
    expect(await runValidator(parseValidatorOptions(wide, { ...o, format: 'json' }), io, { now: NOW })).toBe(1);
    expect((JSON.parse(out.stdout) as { errors: string[] }).errors).toEqual([error]);
  });

  it('a broken circuit names the reason', async () => {
    const { out, io } = capture();
    await runValidator(parseValidatorOptions(f('broken.json'), {}), io);
    expect(out.stderr).toBe(`ERROR: ${f('broken.json')}: invalid IR: missing circuit.num_qubits\n`);
  });
});

describe('pks estimator', () => {
  it('needs a file or --demo; format must be known', () => {
    expect(() => parseEstimatorOptions(undefined, {})).toThrow('a circuit file or --demo is required');
    expect(() => parseEstimatorOptions('x', { format: 'pdf' })).toThrow(
      "--format must be one of markdown, json, both, got 'pdf'",
    );
  });

  it('--demo: markdown on stdout, summary on stderr', async () => {
    const { out, io } = capture();
    expect(await runEstimator(parseEstimatorOptions(undefined, { demo: true }), io, { now: NOW })).toBe(0);
    expect(out.stdout).toMatch(/^# Resource Estimation Report: Bell State Demo\n/);
    for (const section of [
      '## Circuit Overview',
      '## Qubit Statistics',
      '## Gate Statistics',
      '### Gate Breakdown',
      '## Circuit Depth Analysis',
      '## Optimization Suggestions',
      '## Summary',
    ])
      expect(out.stdout).toContain(section);
    expect(out.stdout).not.toContain('## Execution Time Estimate');
    expect(out.stderr).toBe('Summary: 4 gates, 3 depth, 2 qubits\n');
  });

  it('json with hardware params: the H, CNOT, MEASURE chain takes 450 ns', async () => {
    const chain = f('chain.json');
    await writeFile(
      chain,
      JSON.stringify({
        circuit: {
          name: 'chain',
          num_qubits: 2,
          num_clbits: 1,
          gates: [
            { name: 'H', target_qubits: [0] },
            { name: 'CNOT', target_qubits: [1], control_qubits: [0] },
            { name: 'MEASURE', target_qubits: [1], classical_bits: [0] },
          ],
        },
      }),
    );
    const { out, io } = capture();
    const options = parseEstimatorOptions(chain, { format: 'json', hardwareParams: '{}' });
    expect(await runEstimator(options, io, { now: NOW })).toBe(0);
    const report = JSON.parse(out.stdout) as Record<string, unknown>;
    expect(report).toMatchObject({
      report_metadata: { algorithm_name: 'chain', generated_at: '2026-05-01T12:00:00Z', version: '1.0' },
      circuit_statistics: {
        total_gates: 3,
        single_qubit_gates: 1,
        two_qubit_gates: 1,
        multi_qubit_gates: 0,
        measurement_gates: 1,
        num_qubits: 2,
        num_clbits: 1,
        qubits_used: 2,
        depth: 3,
        t_gates: 0,
        parallelism: 1,
        gate_counts: { CNOT: 1, H: 1, MEASURE: 1 },
      },
      hardware_parameters: { gate_time: 50, two_qubit_gate_time: 100, measurement_time: 300, coherence_time: 100 },
      execution_time_estimate: {
        sequential_ns: 450,
        critical_path_ns: 450,
        estimated_time_ms: 0.00045,
        coherence_limited: false,
      },
    });
  });

  it('the critical path takes the longest gate of each layer; coherence exceeded is a high-priority suggestion', async () => {
    const file = f('parallel.json');
    await writeFile(
      file,
      JSON.stringify({
        circuit: {
          num_qubits: 3,
          gates: [
            { name: 'H', target_qubits: [0] },
            { name: 'CNOT', target_qubits: [2], control_qubits: [1] },
            { name: 'T', target_qubits: [0] },
          ],
        },
      }),
    );
    const { out, io } = capture();
    const options = parseEstimatorOptions(file, {
      format: 'json',
      algorithmName: 'par',
      hardwareParams: '{"gate_time": 10, "two_qubit_gate_time": 70, "coherence_time": 0.05}',
    });
    expect(await runEstimator(options, io)).toBe(0);
    const report = JSON.parse(out.stdout) as {
      execution_time_estimate: unknown;
      optimization_suggestions: { category: string; priority: string }[];
      report_metadata: { algorithm_name: string };
    };
    expect(report.report_metadata.algorithm_name).toBe('par');
    expect(report.execution_time_estimate).toEqual({
      sequential_ns: 90,
      critical_path_ns: 80,
      estimated_time_ms: 0.00008,
      coherence_limited: true,
    });
    expect(report.optimization_suggestions).toContainEqual(
      expect.objectContaining({ category: 'Coherence Time', priority: 'high' }),
    );
  });

  const SUGGESTIONS: [
    string,
    { name: string; target_qubits: number[]; control_qubits?: number[] }[],
    number,
    string,
    string,
  ][] = [
    [
      'T > 100 → high T-Gate Reduction',
      Array.from({ length: 101 }, () => ({ name: 'T', target_qubits: [0] })),
      1,
      'T-Gate Reduction',
      'high',
    ],
    [
      '10 < T ≤ 100 → medium',
      Array.from({ length: 11 }, () => ({ name: 'TDG', target_qubits: [0] })),
      1,
      'T-Gate Reduction',
      'medium',
    ],
    [
      'depth > 0.8·total → Circuit Depth',
      [
        { name: 'H', target_qubits: [0] },
        { name: 'X', target_qubits: [0] },
      ],
      1,
      'Circuit Depth',
      'medium',
    ],
    [
      'parallelism < 1.2 with > 5 gates',
      Array.from({ length: 6 }, () => ({ name: 'H', target_qubits: [0] })),
      1,
      'Parallelization',
      'low',
    ],
    ['unused qubits', [{ name: 'H', target_qubits: [0] }], 3, 'Resource Utilization', 'low'],
    [
      'two-qubit ratio > 0.5',
      [
        { name: 'CZ', target_qubits: [1], control_qubits: [0] },
        { name: 'CZ', target_qubits: [0], control_qubits: [1] },
        { name: 'H', target_qubits: [0] },
        { name: 'H', target_qubits: [1] },
        { name: 'CZ', target_qubits: [1], control_qubits: [0] },
      ],
      2,
      'Two-Qubit Gates',
      'medium',
    ],
  ];
  it.each(SUGGESTIONS)('suggestion: %s', async (_label, gates, n, category, priority) => {
    const file = f(`s-${category.replace(/\W/g, '')}-${priority}.json`);
    await writeFile(file, JSON.stringify({ circuit: { num_qubits: n, gates } }));
    const { out, io } = capture();
    expect(await runEstimator(parseEstimatorOptions(file, { format: 'json' }), io)).toBe(0);
    const report = JSON.parse(out.stdout) as { optimization_suggestions?: { category: string; priority: string }[] };
    expect(report.optimization_suggestions).toContainEqual(expect.objectContaining({ category, priority }));
  });

  it('--format both -o PATH writes PATH.md and PATH.json with the extension replaced', async () => {
    const { out, io } = capture();
    const options = parseEstimatorOptions(f('bell.json'), { format: 'both', output: f('est/report.txt') });
    expect(await runEstimator(options, io)).toBe(0);
    expect(out.stdout).toBe(`Report saved to: ${f('est/report.md')}\nReport saved to: ${f('est/report.json')}\n`);
    expect(out.stderr).toBe('');
    expect(await readFile(f('est/report.md'), 'utf8')).toContain('# Resource Estimation Report: bell_circuit');
    expect(JSON.parse(await readFile(f('est/report.json'), 'utf8'))).toHaveProperty('circuit_statistics');
    expect(withExtension('a.b/c', '.md')).toBe('a.b/c.md');
  });

  const ERRORS: [string, Record<string, unknown>, string, string][] = [
    ['invalid JSON', { hardwareParams: '{nope' }, 'bell.json', 'Error: Invalid JSON in hardware parameters: '],
    [
      'a non-number',
      { hardwareParams: '{"gate_time": "fast"}' },
      'bell.json',
      'Error: Parameter gate_time must be a number\n',
    ],
    ['missing file', {}, 'nope.json', 'Error: Circuit file not found: '],
  ];
  it.each(ERRORS)('%s exits 1', async (_label, o, input, prefix) => {
    const { out, io } = capture();
    expect(await runEstimator(parseEstimatorOptions(f(input), o), io)).toBe(1);
    expect(out.stderr.startsWith(prefix)).toBe(true);
  });
});
