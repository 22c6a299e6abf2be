/**
 * Born sampling with a seeded PRNG: every qubit measured at the end, outcomes written with qubit 0 leftmost.
 * MEASUREs that no later gate touches change nothing (every qubit is measured at the end anyway) and are skipped;
 * a circuit that acts on a qubit after measuring it is sampled shot by shot, collapsing at each MEASURE.
 */
import type { Circuit, Gate } from '../ir/types.js';
import { gateQubits } from '../ir/metrics.js';
import type { Rng } from './random.js';
import { applyStep, checkSimulable, compileGate, compileGates, runSteps, zeroState } from './statevector.js';

export type Counts = Record<string, number>;

export function probabilities(sv: Float64Array): Float64Array {
  const p = new Float64Array(sv.length / 2);
  for (let i = 0; i < p.length; i++) p[i] = sv[2 * i]! * sv[2 * i]! + sv[2 * i + 1]! * sv[2 * i + 1]!;
  return p;
}

export function bitstring(index: number, numQubits: number): string {
  return index.toString(2).padStart(numQubits, '0');
}

/** Index of the outcome for a uniform draw `u` ∈ [0, 1), by binary search in the cumulative distribution. */
function pick(cdf: Float64Array, u: number): number {
  const target = u * cdf[cdf.length - 1]!;
  let lo = 0;
  let hi = cdf.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cdf[mid]! > target) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** The cumulative Born distribution of `sv`, in one array. */
function cumulative(sv: Float64Array): Float64Array {
  const cdf = new Float64Array(sv.length / 2);
  let acc = 0;
  for (let i = 0; i < cdf.length; i++) cdf[i] = acc += sv[2 * i]! * sv[2 * i]! + sv[2 * i + 1]! * sv[2 * i + 1]!;
  return cdf;
}

/** Outcome → count, inserted in index order (JSON puts integer-like keys such as `11` first regardless). */
function sortedCounts(tally: Map<number, number>, numQubits: number): Counts {
  const out: Counts = {};
  for (const i of [...tally.keys()].sort((a, b) => a - b)) out[bitstring(i, numQubits)] = tally.get(i)!;
  return out;
}

/** `shots` outcomes of measuring every qubit of `sv`. */
export function sampleState(sv: Float64Array, numQubits: number, shots: number, rng: Rng): Counts {
  const cdf = cumulative(sv);
  const tally = new Map<number, number>();
  for (let s = 0; s < shots; s++) {
    const i = pick(cdf, rng());
    tally.set(i, (tally.get(i) ?? 0) + 1);
  }
  return sortedCounts(tally, numQubits);
}

/** Whether some gate acts on a qubit after a MEASURE of it. */
function hasMidCircuitMeasurement(gates: readonly Gate[]): boolean {
  const measured = new Set<number>();
  for (const g of gates) {
    if (g.name === 'BARRIER') continue;
    if (g.name === 'MEASURE') {
      for (const q of g.target_qubits) measured.add(q);
      continue;
    }
    if (gateQubits(g).some((q) => measured.has(q))) return true;
  }
  return false;
}

/** Projects qubit `q` (bit `n−1−q`) onto a random outcome with its Born probability and renormalises. */
function collapse(sv: Float64Array, numQubits: number, q: number, rng: Rng): void {
  const bit = 1 << (numQubits - 1 - q);
  const dim = sv.length / 2;
  let p1 = 0;
  let total = 0;
  for (let i = 0; i < dim; i++) {
    const w = sv[2 * i]! * sv[2 * i]! + sv[2 * i + 1]! * sv[2 * i + 1]!;
    total += w;
    if (i & bit) p1 += w;
  }
  const one = rng() * total < p1;
  const scale = 1 / Math.sqrt(one ? p1 : total - p1);
  for (let i = 0; i < dim; i++) {
    const keep = ((i & bit) !== 0) === one;
    sv[2 * i] = keep ? sv[2 * i]! * scale : 0;
    sv[2 * i + 1] = keep ? sv[2 * i + 1]! * scale : 0;
  }
}

/** Runs `circuit` from |0…0⟩ `shots` times and measures every qubit at the end. */
export function sampleCircuit(circuit: Circuit, shots: number, rng: Rng): Counts {
  const n = circuit.num_qubits;
  checkSimulable(n);
  if (!hasMidCircuitMeasurement(circuit.gates)) {
    const steps = compileGates(circuit.gates, n);
    const sv = zeroState(n);
    runSteps(sv, n, steps);
    return sampleState(sv, n, shots, rng);
  }
  // Each gate compiled once for all shots: the qubits a MEASURE collapses, or the step a unitary gate applies.
  const ops = circuit.gates.map((g) => (g.name === 'MEASURE' ? g.target_qubits : compileGate(g, n)));
  const tally = new Map<number, number>();
  const sv = zeroState(n);
  for (let s = 0; s < shots; s++) {
    if (s > 0) {
      sv.fill(0);
      sv[0] = 1;
    }
    for (const op of ops) {
      if (op === null) continue;
      if (Array.isArray(op)) for (const q of op) collapse(sv, n, q, rng);
      else applyStep(sv, n, op);
    }
    const i = pick(cumulative(sv), rng());
    tally.set(i, (tally.get(i) ?? 0) + 1);
  }
  return sortedCounts(tally, n);
}

/** Total-variation distance of two empirical distributions: ½ Σ |p − q|. */
export function totalVariationDistance(a: Counts, b: Counts): number {
  const na = Object.values(a).reduce((s, x) => s + x, 0);
  const nb = Object.values(b).reduce((s, x) => s + x, 0);
  let sum = 0;
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)]))
    sum += Math.abs((a[k] ?? 0) / (na || 1) - (b[k] ?? 0) / (nb || 1));
  return sum / 2;
}
