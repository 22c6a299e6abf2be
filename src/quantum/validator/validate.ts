/**
 * `pks validator` (CONTRACT §17.5): runs the requested checks on a loaded circuit and assembles the report. The
 * report passes iff it holds no error.
 */
import { rfc3339 } from '../../shared/time.js';
import { circuitMetrics, type CircuitMetrics } from '../ir/metrics.js';
import type { Circuit } from '../ir/types.js';
import { parseProgram } from '../codegen/parse.js';
import {
  equivalenceChecker,
  type EquivalenceResult,
  type Method,
  type MethodOptions,
  type SamplingResult,
} from './methods.js';
import { referenceCircuit } from './references.js';
import { runTestSuite, type TestSuite, type TestSuiteResult } from './test-suite.js';
import { checkKnownGates } from '../sim/statevector.js';

export type ComparisonStatus = 'MATCH' | 'EQUIVALENT' | 'DIFFERENT' | 'ERROR';

export interface ComparisonMetrics {
  qubits: { circuit: number; reference: number };
  clbits: { circuit: number; reference: number };
  gate_count: { circuit: number; reference: number; difference: number; ratio: number | null };
  depth: { circuit: number; reference: number; difference: number; ratio: number | null };
  two_qubit_gates: { circuit: number; reference: number };
  gate_counts_by_type: { circuit: Record<string, number>; reference: Record<string, number> };
}

export interface Comparison {
  name: string;
  status: ComparisonStatus;
  phase_difference: number | null;
  message: string | null;
  metrics: ComparisonMetrics | null;
}

export interface ValidationReport {
  circuit_name: string;
  validation_time: string;
  passed: boolean;
  method: Method;
  has_equivalence_check: boolean;
  has_test_results: boolean;
  num_reference_comparisons: number;
  error_count: number;
  warning_count: number;
  execution_time_ms: number;
  equivalence?: {
    is_equivalent: boolean;
    phase_difference: number | null;
    max_difference: number | null;
    error_message: string | null;
  };
  tests?: TestSuiteResult;
  comparisons: Comparison[];
  sampling?: SamplingResult;
  errors: string[];
  warnings: string[];
}

export interface ValidateOptions extends MethodOptions {
  readonly circuitName: string;
  readonly reference?: { readonly name: string; readonly circuit: Circuit };
  readonly testSuite?: TestSuite;
  readonly compareWith?: readonly string[];
  /** A program written by `pks codegen`, checked against the circuit. */
  readonly codegen?: { readonly name: string; readonly text: string };
  readonly skipEquivalence?: boolean;
  readonly skipTests?: boolean;
  /** Progress lines (stderr with `-v`). */
  readonly log?: (line: string) => void;
  readonly now?: () => Date;
}

function ratio(a: number, b: number): number | null {
  return b === 0 ? null : a / b;
}

export function comparisonMetrics(circuit: Circuit, reference: Circuit): ComparisonMetrics {
  const a: CircuitMetrics = circuitMetrics(circuit);
  const b: CircuitMetrics = circuitMetrics(reference);
  return {
    qubits: { circuit: circuit.num_qubits, reference: reference.num_qubits },
    clbits: { circuit: circuit.num_clbits, reference: reference.num_clbits },
    gate_count: {
      circuit: a.gate_count,
      reference: b.gate_count,
      difference: a.gate_count - b.gate_count,
      ratio: ratio(a.gate_count, b.gate_count),
    },
    depth: { circuit: a.depth, reference: b.depth, difference: a.depth - b.depth, ratio: ratio(a.depth, b.depth) },
    two_qubit_gates: { circuit: a.two_qubit_gates, reference: b.two_qubit_gates },
    gate_counts_by_type: { circuit: a.gate_counts_by_type, reference: b.gate_counts_by_type },
  };
}

/** `Gate count is 3.0x higher than reference (6 vs 2)` when a ratio leaves [0.5, 2]. */
function ratioWarnings(m: ComparisonMetrics): string[] {
  const out: string[] = [];
  const check = (label: string, x: { circuit: number; reference: number; ratio: number | null }) => {
    if (x.ratio === null) return;
    if (x.ratio > 2)
      out.push(`${label} is ${x.ratio.toFixed(1)}x higher than reference (${x.circuit} vs ${x.reference})`);
    else if (x.ratio < 0.5)
      out.push(
        `${label} is ${x.circuit === 0 ? '∞' : (x.reference / x.circuit).toFixed(1)}x lower than reference (${x.circuit} vs ${x.reference})`,
      );
  };
  check('Gate count', m.gate_count);
  check('Depth', m.depth);
  return out;
}

const phaseWarning = (phi: number): string => `Circuits differ by global phase: ${phi.toFixed(6)}`;

/** MATCH / EQUIVALENT / DIFFERENT from an equivalence result. */
function statusOf(r: EquivalenceResult, tol: number): ComparisonStatus {
  if (!r.is_equivalent) return 'DIFFERENT';
  return r.phase_difference === null || Math.abs(r.phase_difference) <= tol ? 'MATCH' : 'EQUIVALENT';
}

/** MEASURE gates as (qubit → clbit) pairs in order, to check that a program measures like the IR. */
function measurements(c: Circuit): string {
  return c.gates
    .filter((g) => g.name === 'MEASURE')
    .flatMap((g) => g.target_qubits.map((q, j) => `${q}->${g.classical_bits[j]}`))
    .join(' ');
}

export function validateCircuit(circuit: Circuit, options: ValidateOptions): ValidationReport {
  const started = performance.now();
  const log = options.log ?? (() => {});
  const errors: string[] = [];
  const warnings: string[] = [];
  const comparisons: Comparison[] = [];
  const tol = options.tolerance;
  let equivalence: ValidationReport['equivalence'];
  let sampling: SamplingResult | undefined;
  let tests: TestSuiteResult | undefined;
  let methodUsed: Method = options.method;
  const addWarnings = (ws: string[]) => {
    for (const w of ws) if (!warnings.includes(w)) warnings.push(w);
  };

  const checkEquivalence = equivalenceChecker(circuit, options);

  try {
    checkKnownGates(circuit.gates);
  } catch (err) {
    errors.push((err as Error).message);
  }

  if (options.reference !== undefined && options.skipEquivalence !== true) {
    log(`Checking equivalence with ${options.reference.name} (method ${options.method})`);
    try {
      const r = checkEquivalence(options.reference.circuit);
      methodUsed = r.method;
      equivalence = {
        is_equivalent: r.is_equivalent,
        phase_difference: r.phase_difference,
        max_difference: r.max_difference,
        error_message: r.error_message,
      };
      sampling = r.sampling;
      addWarnings(r.warnings);
      if (!r.is_equivalent) errors.push(`Equivalence check failed: ${r.error_message}`);
      else if (statusOf(r, tol) === 'EQUIVALENT') addWarnings([phaseWarning(r.phase_difference!)]);
    } catch (err) {
      const message = (err as Error).message;
      equivalence = { is_equivalent: false, phase_difference: null, max_difference: null, error_message: message };
      errors.push(`Equivalence check failed: ${message}`);
    }
  }

  if (options.testSuite !== undefined && options.skipTests !== true) {
    log(`Running test suite ${options.testSuite.name} (${options.testSuite.test_cases.length} cases)`);
    try {
      tests = runTestSuite(options.testSuite, circuit, tol);
      if (tests.failed > 0) errors.push(`Test suite failed: ${tests.failed}/${tests.total} tests failed`);
      if (circuit.gates.some((g) => g.name === 'MEASURE')) addWarnings(['MEASURE ignored for test cases']);
    } catch (err) {
      errors.push(`Test suite could not run: ${(err as Error).message}`);
    }
  }

  for (const name of options.compareWith ?? []) {
    const ref = referenceCircuit(name);
    if (ref === null) {
      const message = `Unknown reference implementation: ${name}`;
      comparisons.push({ name, status: 'ERROR', phase_difference: null, message, metrics: null });
      errors.push(message);
      continue;
    }
    log(`Comparing with built-in reference ${name}`);
    const metrics = comparisonMetrics(circuit, ref);
    try {
      const r = checkEquivalence(ref);
      const status = statusOf(r, tol);
      comparisons.push({ name, status, phase_difference: r.phase_difference, message: r.error_message, metrics });
      addWarnings(r.warnings);
      if (status === 'DIFFERENT') errors.push(`Reference comparison '${name}' failed: ${r.error_message}`);
      if (status === 'EQUIVALENT') addWarnings([phaseWarning(r.phase_difference!)]);
    } catch (err) {
      const message = (err as Error).message;
      comparisons.push({ name, status: 'ERROR', phase_difference: null, message, metrics });
      errors.push(`Reference comparison '${name}' failed: ${message}`);
    }
    addWarnings(ratioWarnings(metrics));
  }

  if (options.codegen !== undefined) {
    const name = `codegen:${options.codegen.name}`;
    log(`Checking generated program ${options.codegen.name}`);
    try {
      const parsed = parseProgram(options.codegen.text);
      const r = checkEquivalence(parsed.circuit);
      let status = statusOf(r, tol);
      let message = r.error_message;
      if (status !== 'DIFFERENT' && parsed.circuit.num_clbits !== circuit.num_clbits) {
        status = 'DIFFERENT';
        message = `Classical bit count mismatch: ${circuit.num_clbits} vs ${parsed.circuit.num_clbits}`;
      } else if (status !== 'DIFFERENT' && measurements(parsed.circuit) !== measurements(circuit)) {
        status = 'DIFFERENT';
        message = 'Measurements differ from the IR';
      }
      comparisons.push({
        name,
        status,
        phase_difference: r.phase_difference,
        message,
        metrics: comparisonMetrics(circuit, parsed.circuit),
      });
      if (status === 'DIFFERENT') errors.push(`Codegen check failed: ${message}`);
      if (status === 'EQUIVALENT') addWarnings([phaseWarning(r.phase_difference!)]);
    } catch (err) {
      const message = (err as Error).message;
      comparisons.push({ name, status: 'ERROR', phase_difference: null, message, metrics: null });
      errors.push(`Codegen check failed: ${message}`);
    }
  }

  const report: ValidationReport = {
    circuit_name: options.circuitName,
    validation_time: rfc3339(options.now?.() ?? new Date()),
    passed: errors.length === 0,
    method: methodUsed,
    has_equivalence_check: equivalence !== undefined,
    has_test_results: tests !== undefined,
    num_reference_comparisons: comparisons.length,
    error_count: errors.length,
    warning_count: warnings.length,
    execution_time_ms: Math.round((performance.now() - started) * 1000) / 1000,
    ...(equivalence === undefined ? {} : { equivalence }),
    ...(tests === undefined ? {} : { tests }),
    comparisons,
    ...(sampling === undefined ? {} : { sampling }),
    errors,
    warnings,
  };
  return report;
}
