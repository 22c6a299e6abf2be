/**
 * The equivalence methods of `pks validator` (CONTRACT §17.5): unitary, statevector (one common phase across six
 * inputs), sampling (TVD of seeded Born samples) and auto.
 */
import { InvalidInputError } from '../../shared/domain-errors.js';
import type { Circuit } from '../ir/types.js';
import { compareUpToPhase, innerProduct, maxPhasedDifference, normalizeAngle } from '../equivalence.js';
import { mulberry32, randomState } from '../sim/random.js';
import { sampleCircuit, totalVariationDistance, type Counts } from '../sim/sampling.js';
import {
  allocateState,
  checkKnownGates,
  compileGates,
  MAX_STATEVECTOR_QUBITS,
  runSteps,
  zeroState,
  type Step,
} from '../sim/statevector.js';
import { circuitUnitary } from '../sim/unitary.js';

export const METHODS = ['auto', 'unitary', 'statevector', 'sampling'] as const;
export type Method = (typeof METHODS)[number];

export interface MethodOptions {
  readonly method: Method;
  readonly tolerance: number;
  readonly matrixSizeLimit: number;
  readonly nShots: number;
  readonly seed: number;
  readonly tvdThreshold: number;
}

export interface SamplingResult {
  n_shots: number;
  seed: number;
  tvd: number;
  counts_a: Counts;
  counts_b: Counts;
}

export interface EquivalenceResult {
  /** The method that ran (`auto` resolved). */
  method: Exclude<Method, 'auto'>;
  is_equivalent: boolean;
  /** φ with circuit ≈ e^{iφ}·reference, in (−π, π]; `null` for sampling and qubit-count mismatches. */
  phase_difference: number | null;
  /** Largest entry difference after the phase (TVD for sampling); `null` when nothing was compared. */
  max_difference: number | null;
  error_message: string | null;
  warnings: string[];
  sampling?: SamplingResult;
}

export const MEASURE_IGNORED = 'MEASURE ignored for equivalence';

/** The number of random input states of the statevector method, and how each one's PRNG is seeded. */
const RANDOM_INPUTS = 4;
const randomInput = (n: number, seed: number, k: number): Float64Array =>
  randomState(n, mulberry32((seed + 0x9e3779b9 * (k + 1)) >>> 0));

function plusState(n: number): Float64Array {
  const sv = allocateState(n);
  const a = 1 / Math.sqrt(2 ** n);
  for (let i = 0; i < sv.length; i += 2) sv[i] = a;
  return sv;
}

/** Runs `steps` on `sv` in place (inputs are made fresh for each run, so no copy is needed). */
function run(steps: readonly Step[], sv: Float64Array, n: number): Float64Array {
  runSteps(sv, n, steps);
  return sv;
}

/** Compares `circuit` (U) with `reference` (V). Throws `InvalidInputError` when the method cannot run. */
export function checkEquivalence(circuit: Circuit, reference: Circuit, options: MethodOptions): EquivalenceResult {
  return equivalenceChecker(circuit, options)(reference);
}

/**
 * `checkEquivalence` of one circuit against any number of references: the circuit's unitary, sample counts and
 * compiled gates are worked out once, on first use. MEASURE and BARRIER change no amplitude in the simulator, so
 * the unitary methods run the circuits as they are.
 */
export function equivalenceChecker(
  circuit: Circuit,
  options: MethodOptions,
): (reference: Circuit) => EquivalenceResult {
  const n = circuit.num_qubits;
  let unitary: Float64Array | undefined;
  let steps: Step[] | undefined;
  let counts: Counts | undefined;
  return (reference) => {
    const method =
      options.method === 'auto' ? (n <= options.matrixSizeLimit ? 'unitary' : 'statevector') : options.method;
    const warnings: string[] = [];
    if (n !== reference.num_qubits)
      return {
        method,
        is_equivalent: false,
        phase_difference: null,
        max_difference: null,
        error_message: `Qubit count mismatch: ${n} vs ${reference.num_qubits}`,
        warnings,
      };
    checkKnownGates(circuit.gates);
    checkKnownGates(reference.gates);
    if (method === 'sampling') {
      counts ??= sampleCircuit(circuit, options.nShots, mulberry32(options.seed));
      return samplingCheck(counts, reference, options);
    }

    if ([...circuit.gates, ...reference.gates].some((g) => g.name === 'MEASURE')) warnings.push(MEASURE_IGNORED);
    const tol = options.tolerance;
    if (method === 'unitary') {
      if (n > options.matrixSizeLimit)
        throw new InvalidInputError(
          `unitary method needs at most ${options.matrixSizeLimit} qubits (--matrix-size-limit); the circuit has ${n}`,
        );
      unitary ??= circuitUnitary(circuit).data;
      const cmp = compareUpToPhase(unitary, circuitUnitary(reference).data, tol);
      return {
        method,
        is_equivalent: cmp.equivalent,
        phase_difference: cmp.phase,
        max_difference: cmp.maxDifference,
        error_message: cmp.equivalent
          ? null
          : `Unitaries differ: max difference ${cmp.maxDifference} exceeds tolerance ${tol}`,
        warnings,
      };
    }

    if (n > MAX_STATEVECTOR_QUBITS)
      throw new InvalidInputError(
        `statevector method needs at most ${MAX_STATEVECTOR_QUBITS} qubits; the circuit has ${n}`,
      );
    const stepsU = (steps ??= compileGates(circuit.gates, n));
    const stepsV = compileGates(reference.gates, n);
    const { phi, firstRandom } = commonPhase(stepsU, stepsV, n, options.seed);
    // max_i |(Uψ)_i e^{iφ} − (Vψ)_i| is max_i |(Vψ)_i − e^{iφ}(Uψ)_i|.
    const difference = (make: () => Float64Array) =>
      maxPhasedDifference(run(stepsV, make(), n), run(stepsU, make(), n), phi);
    const inputs: [string, () => number][] = [
      ['|0…0⟩', () => difference(() => zeroState(n))],
      ['|+…+⟩', () => difference(() => plusState(n))],
      ...Array.from({ length: RANDOM_INPUTS }, (_, k): [string, () => number] => [
        `random state ${k + 1}`,
        k === 0 ? () => firstRandom : () => difference(() => randomInput(n, options.seed, k)),
      ]),
    ];
    let worst = 0;
    let worstInput = '';
    for (const [label, measure] of inputs) {
      const d = measure();
      if (d > worst) {
        worst = d;
        worstInput = label;
      }
    }
    const equivalent = worst <= tol;
    return {
      method,
      is_equivalent: equivalent,
      phase_difference: normalizeAngle(-phi),
      max_difference: worst,
      error_message: equivalent
        ? null
        : `States differ on input ${worstInput}: max difference ${worst} exceeds tolerance ${tol}`,
      warnings,
    };
  };
}

/**
 * φ = arg⟨Uψ|Vψ⟩ from the first random input (one common phase for every input), and that input's difference, so
 * it is simulated once; its two states are dropped on return.
 */
function commonPhase(
  stepsU: readonly Step[],
  stepsV: readonly Step[],
  n: number,
  seed: number,
): { phi: number; firstRandom: number } {
  const u = run(stepsU, randomInput(n, seed, 0), n);
  const v = run(stepsV, randomInput(n, seed, 0), n);
  const [re, im] = innerProduct(u, v);
  const phi = Math.atan2(im, re);
  return { phi, firstRandom: maxPhasedDifference(v, u, phi) };
}

function samplingCheck(countsA: Counts, reference: Circuit, options: MethodOptions): EquivalenceResult {
  const countsB = sampleCircuit(reference, options.nShots, mulberry32(options.seed + 1));
  const tvd = totalVariationDistance(countsA, countsB);
  const ok = tvd <= options.tvdThreshold;
  return {
    method: 'sampling',
    is_equivalent: ok,
    phase_difference: null,
    max_difference: tvd,
    error_message: ok ? null : `Distributions differ: TVD ${tvd} exceeds threshold ${options.tvdThreshold}`,
    warnings: [],
    sampling: { n_shots: options.nShots, seed: options.seed, tvd, counts_a: countsA, counts_b: countsB },
  };
}
