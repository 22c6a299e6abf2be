/**
 * The equivalence methods of `pks validator` (CONTRACT §17.5): unitary, statevector (one common phase across six
 * inputs), sampling (TVD of seeded Born samples) and auto.
 */
import { InvalidInputError } from '../../shared/domain-errors.js';
import type { Circuit } from '../ir/types.js';
import { compareUpToPhase, innerProduct, maxPhasedDifference, normalizeAngle } from '../equivalence.js';
import { mulberry32, randomState } from '../sim/random.js';
import { sampleCircuit, totalVariationDistance, type Counts } from '../sim/sampling.js';
import { checkKnownGates, evolve as evolveInPlace, MAX_STATEVECTOR_QUBITS, zeroState } from '../sim/statevector.js';
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

function unitaryPart(c: Circuit): Circuit {
  return { ...c, gates: c.gates.filter((g) => g.name !== 'MEASURE' && g.name !== 'BARRIER') };
}

/** The number of random input states of the statevector method, and how each one's PRNG is seeded. */
const RANDOM_INPUTS = 4;
const randomInput = (n: number, seed: number, k: number): Float64Array =>
  randomState(n, mulberry32((seed + 0x9e3779b9 * (k + 1)) >>> 0));

function plusState(n: number): Float64Array {
  const sv = new Float64Array(2 * 2 ** n);
  const a = 1 / Math.sqrt(2 ** n);
  for (let i = 0; i < sv.length; i += 2) sv[i] = a;
  return sv;
}

/** Runs `c` on `sv` in place (inputs are made fresh for each run, so no copy is needed). */
function evolve(c: Circuit, sv: Float64Array): Float64Array {
  evolveInPlace(sv, c.num_qubits, c.num_qubits, c.gates);
  return sv;
}

/** Compares `circuit` (U) with `reference` (V). Throws `InvalidInputError` when the method cannot run. */
export function checkEquivalence(circuit: Circuit, reference: Circuit, options: MethodOptions): EquivalenceResult {
  const n = circuit.num_qubits;
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
  if (method === 'sampling') return samplingCheck(circuit, reference, options);

  if ([...circuit.gates, ...reference.gates].some((g) => g.name === 'MEASURE')) warnings.push(MEASURE_IGNORED);
  const u = unitaryPart(circuit);
  const v = unitaryPart(reference);
  const tol = options.tolerance;
  if (method === 'unitary') {
    if (n > options.matrixSizeLimit)
      throw new InvalidInputError(
        `unitary method needs at most ${options.matrixSizeLimit} qubits (--matrix-size-limit); the circuit has ${n}`,
      );
    const cmp = compareUpToPhase(circuitUnitary(u).data, circuitUnitary(v).data, tol);
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
  // φ = arg⟨Uψ|Vψ⟩ from the first random input, then one common phase for every input.
  const [re, im] = innerProduct(evolve(u, randomInput(n, options.seed, 0)), evolve(v, randomInput(n, options.seed, 0)));
  const phi = Math.atan2(im, re);
  const inputs: [string, () => Float64Array][] = [
    ['|0…0⟩', () => zeroState(n)],
    ['|+…+⟩', () => plusState(n)],
    ...Array.from({ length: RANDOM_INPUTS }, (_, k): [string, () => Float64Array] => [
      `random state ${k + 1}`,
      () => randomInput(n, options.seed, k),
    ]),
  ];
  let worst = 0;
  let worstInput = '';
  for (const [label, make] of inputs) {
    // max_i |(Uψ)_i e^{iφ} − (Vψ)_i| is max_i |(Vψ)_i − e^{iφ}(Uψ)_i|.
    const d = maxPhasedDifference(evolve(v, make()), evolve(u, make()), phi);
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
}

function samplingCheck(circuit: Circuit, reference: Circuit, options: MethodOptions): EquivalenceResult {
  const countsA = sampleCircuit(circuit, options.nShots, mulberry32(options.seed));
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
