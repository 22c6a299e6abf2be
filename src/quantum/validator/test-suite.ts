/**
 * Test-suite YAML of `pks validator -t` (CONTRACT §17.5): states normalised on load; the first criterion present
 * decides (`expected_output` up to global phase, `expected_distribution`, `expected_basis_state`), none → SKIPPED.
 */
import { parse as parseYaml } from 'yaml';
import { InvalidInputError } from '../../shared/domain-errors.js';
import type { Circuit } from '../ir/types.js';
import { compareUpToPhase } from '../equivalence.js';
import { bitstring, probabilities } from '../sim/sampling.js';
import { allocateState, checkSimulable, simulateStatevector } from '../sim/statevector.js';

export interface TestCase {
  name: string;
  description: string | null;
  /** Normalised interleaved amplitudes, or `null` (then `input_basis_state`, else |0…0⟩). */
  input_state: Float64Array | null;
  input_basis_state: string | null;
  expected_output: Float64Array | null;
  expected_distribution: Record<string, number> | null;
  expected_basis_state: string | null;
  tolerance: number | null;
}

export interface TestSuite {
  name: string;
  description: string | null;
  test_cases: TestCase[];
}

export type TestStatus = 'PASSED' | 'FAILED' | 'SKIPPED';

export interface TestCaseResult {
  name: string;
  status: TestStatus;
  message: string;
}

export interface TestSuiteResult {
  suite_name: string;
  total: number;
  passed: number;
  failed: number;
  skipped: number;
  pass_rate: number;
  cases: TestCaseResult[];
}

function bad(reason: string): never {
  throw new InvalidInputError(`invalid test suite: ${reason}`);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function loadState(value: unknown, where: string): Float64Array {
  if (!Array.isArray(value) || value.length === 0) bad(`${where} must be a non-empty list of amplitudes`);
  const sv = new Float64Array(2 * value.length);
  value.forEach((a, i) => {
    if (typeof a === 'number' && Number.isFinite(a)) sv[2 * i] = a;
    else if (Array.isArray(a) && a.length === 2 && a.every((x) => typeof x === 'number' && Number.isFinite(x))) {
      sv[2 * i] = a[0] as number;
      sv[2 * i + 1] = a[1] as number;
    } else bad(`${where}[${i}] must be a number or [re, im]`);
  });
  let norm = 0;
  for (const x of sv) norm += x * x;
  if (norm === 0) bad(`${where} is the zero vector`);
  const scale = 1 / Math.sqrt(norm);
  for (let i = 0; i < sv.length; i++) sv[i] = sv[i]! * scale;
  return sv;
}

function optionalString(obj: Record<string, unknown>, key: string, where: string): string | null {
  const v = obj[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') bad(`${where}.${key} must be a string`);
  return v;
}

function bits(obj: Record<string, unknown>, key: string, where: string): string | null {
  const v = obj[key];
  if (v === undefined || v === null) return null;
  // YAML reads an unquoted 010 as a number; a bitstring must be quoted.
  if (typeof v !== 'string' || !/^[01]+$/.test(v)) bad(`${where}.${key} must be a quoted bitstring such as "010"`);
  return v;
}

export function parseTestSuite(text: string): TestSuite {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    bad((err as Error).message);
  }
  if (!isObject(doc)) bad('expected a mapping');
  if (typeof doc.name !== 'string') bad('name must be a string');
  if (!Array.isArray(doc.test_cases)) bad('test_cases must be a list');
  const cases = doc.test_cases.map((raw, i): TestCase => {
    const where = `test_cases[${i}]`;
    if (!isObject(raw)) bad(`${where} must be a mapping`);
    if (typeof raw.name !== 'string') bad(`${where}.name must be a string`);
    let distribution: Record<string, number> | null = null;
    if (raw.expected_distribution !== undefined && raw.expected_distribution !== null) {
      if (!isObject(raw.expected_distribution)) bad(`${where}.expected_distribution must be a mapping`);
      distribution = {};
      for (const [k, p] of Object.entries(raw.expected_distribution)) {
        if (!/^[01]+$/.test(k)) bad(`${where}.expected_distribution key ${k} is not a bitstring`);
        if (typeof p !== 'number' || !Number.isFinite(p)) bad(`${where}.expected_distribution.${k} must be a number`);
        distribution[k] = p;
      }
    }
    const tol = raw.tolerance;
    if (tol !== undefined && tol !== null && (typeof tol !== 'number' || !(tol >= 0)))
      bad(`${where}.tolerance must be a non-negative number`);
    return {
      name: raw.name,
      description: optionalString(raw, 'description', where),
      input_state:
        raw.input_state === undefined || raw.input_state === null
          ? null
          : loadState(raw.input_state, `${where}.input_state`),
      input_basis_state: bits(raw, 'input_basis_state', where),
      expected_output:
        raw.expected_output === undefined || raw.expected_output === null
          ? null
          : loadState(raw.expected_output, `${where}.expected_output`),
      expected_distribution: distribution,
      expected_basis_state: bits(raw, 'expected_basis_state', where),
      tolerance: typeof tol === 'number' ? tol : null,
    };
  });
  return { name: doc.name, description: optionalString(doc, 'description', 'suite'), test_cases: cases };
}

function inputState(c: TestCase, n: number): Float64Array | string {
  const dim = 2 ** n;
  if (c.input_state !== null) {
    if (c.input_state.length !== 2 * dim)
      return `input_state has ${c.input_state.length / 2} amplitudes, expected ${dim}`;
    return c.input_state;
  }
  const sv = allocateState(n);
  if (c.input_basis_state !== null) {
    if (c.input_basis_state.length !== n) return `input_basis_state ${c.input_basis_state} is not ${n} bits long`;
    sv[2 * Number.parseInt(c.input_basis_state, 2)] = 1;
  } else sv[0] = 1;
  return sv;
}

function runCase(c: TestCase, circuit: Circuit, defaultTolerance: number): TestCaseResult {
  const tol = c.tolerance ?? defaultTolerance;
  const n = circuit.num_qubits;
  const fail = (message: string): TestCaseResult => ({ name: c.name, status: 'FAILED', message });
  if (c.expected_output === null && c.expected_distribution === null && c.expected_basis_state === null)
    return {
      name: c.name,
      status: 'SKIPPED',
      message: 'no expected_output, expected_distribution or expected_basis_state',
    };
  const input = inputState(c, n);
  if (typeof input === 'string') return fail(input);
  const out = simulateStatevector(circuit, input);
  if (c.expected_output !== null) {
    if (c.expected_output.length !== out.length)
      return fail(`expected_output has ${c.expected_output.length / 2} amplitudes, expected ${out.length / 2}`);
    const cmp = compareUpToPhase(out, c.expected_output, tol);
    return cmp.equivalent
      ? { name: c.name, status: 'PASSED', message: `output matches (max difference ${cmp.maxDifference})` }
      : fail(`output differs: max difference ${cmp.maxDifference} exceeds tolerance ${tol}`);
  }
  const probs = probabilities(out);
  if (c.expected_distribution !== null) {
    const keys = new Set(Object.keys(c.expected_distribution));
    for (const k of keys)
      if (k.length !== n)
        return fail(`expected_distribution key ${k} is not ${n} bits long (quote bitstrings in YAML)`);
    for (let i = 0; i < probs.length; i++) if (probs[i]! > 0) keys.add(bitstring(i, n));
    let worst = 0;
    let worstKey = '';
    for (const k of keys) {
      const p = probs[Number.parseInt(k, 2)]!;
      const d = Math.abs(p - (c.expected_distribution[k] ?? 0));
      if (d > worst) {
        worst = d;
        worstKey = k;
      }
    }
    return worst <= tol
      ? { name: c.name, status: 'PASSED', message: `distribution matches (max difference ${worst})` }
      : fail(`distribution differs at ${worstKey}: difference ${worst} exceeds tolerance ${tol}`);
  }
  const target = c.expected_basis_state!;
  if (target.length !== n) return fail(`expected_basis_state ${target} is not ${n} bits long`);
  const p = probs[Number.parseInt(target, 2)]!;
  return p >= 1 - tol
    ? { name: c.name, status: 'PASSED', message: `P(${target}) = ${p}` }
    : fail(`P(${target}) = ${p} < ${1 - tol}`);
}

/** Runs every case on the circuit's unitary part (MEASURE and BARRIER skipped by the simulator). */
export function runTestSuite(suite: TestSuite, circuit: Circuit, defaultTolerance: number): TestSuiteResult {
  // Before any case builds its input state (2^n amplitudes).
  checkSimulable(circuit.num_qubits);
  const cases = suite.test_cases.map((c) => runCase(c, circuit, defaultTolerance));
  const passed = cases.filter((c) => c.status === 'PASSED').length;
  const failed = cases.filter((c) => c.status === 'FAILED').length;
  const skipped = cases.filter((c) => c.status === 'SKIPPED').length;
  return {
    suite_name: suite.name,
    total: cases.length,
    passed,
    failed,
    skipped,
    pass_rate: cases.length === 0 ? 0 : passed / cases.length,
    cases,
  };
}
