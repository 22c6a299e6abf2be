/**
 * Seeded random circuits for property tests and the Qiskit oracle: every gate kind, 0–2 extra controls on gates
 * that take them, barriers, and (optionally) measurements. A share of gates repeats or inverts the previous one so
 * the optimiser has pairs to cancel and rotations to merge.
 */
import type { Circuit, Gate } from '../../../src/quantum/index.js';
import { mulberry32 } from '../../support/random.js';

const FREE_CONTROL = ['I', 'H', 'X', 'Y', 'Z', 'S', 'SDG', 'T', 'TDG', 'SX', 'RX', 'RY', 'RZ', 'P', 'U', 'SWAP'];
const ALL = [...FREE_CONTROL, 'CNOT', 'CZ', 'CCX'];
const INVERSE: Record<string, string> = { S: 'SDG', SDG: 'S', T: 'TDG', TDG: 'T' };

export interface RandomCircuitOptions {
  readonly maxQubits: number;
  readonly maxGates: number;
  readonly measurements?: boolean;
  readonly barriers?: boolean;
  /** Maximum number of extra controls on gates that accept any. */
  readonly maxControls?: number;
  /** Share of angles drawn at magnitudes 1e6–1e9 (default 0). */
  readonly largeAngles?: number;
}

function pick<T>(xs: readonly T[], rng: () => number): T {
  return xs[Math.floor(rng() * xs.length)]!;
}

function sample(n: number, k: number, rng: () => number): number[] {
  const qs = Array.from({ length: n }, (_, q) => q);
  for (let i = qs.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [qs[i], qs[j]] = [qs[j]!, qs[i]!];
  }
  return qs.slice(0, k);
}

/** Rounds to a multiple of 2^-20: a sum of two such angles below 1e9 in magnitude is exact in binary. */
const onGrid = (x: number): number => Math.round(x * 2 ** 20) / 2 ** 20;

function angle(rng: () => number, largeAngles: number): number {
  if (largeAngles > 0) {
    // Every angle of such a circuit is on the 2^-20 grid, so Qiskit's own e^{i(φ+λ)} (which adds before it reduces)
    // is as exact as pks's and the two can be compared at 1e-9 even at 1e9.
    if (rng() < largeAngles) return onGrid((rng() < 0.5 ? -1 : 1) * 10 ** (6 + 3 * rng()));
    return onGrid(angle(rng, 0));
  }
  // Mostly generic angles, sometimes multiples of π/2 (so merges can reach the identity).
  return rng() < 0.2 ? (Math.floor(rng() * 9) - 4) * (Math.PI / 2) : (rng() - 0.5) * 4 * Math.PI;
}

function randomGate(n: number, rng: () => number, maxControls: number, largeAngles: number): Gate | null {
  const name = pick(ALL, rng);
  const fixed = name === 'CNOT' || name === 'CZ' ? 1 : name === 'CCX' ? 2 : 0;
  const targets = name === 'SWAP' ? 2 : 1;
  const extra = fixed === 0 ? Math.floor(rng() * (maxControls + 1)) : 0;
  const k = fixed + extra;
  if (targets + k > n) return null;
  const qs = sample(n, targets + k, rng);
  const params: Record<string, number> = {};
  const a = () => angle(rng, largeAngles);
  if (['RX', 'RY', 'RZ', 'P'].includes(name)) params.theta = a();
  if (name === 'U') Object.assign(params, { theta: a(), phi: a(), lambda: a() });
  return { name, target_qubits: qs.slice(0, targets), control_qubits: qs.slice(targets), params, classical_bits: [] };
}

export function randomCircuit(seed: number, options: RandomCircuitOptions): Circuit {
  const rng = mulberry32(seed);
  const n = 1 + Math.floor(rng() * options.maxQubits);
  const length = Math.floor(rng() * (options.maxGates + 1));
  const gates: Gate[] = [];
  const maxControls = options.maxControls ?? 2;
  const largeAngles = options.largeAngles ?? 0;
  while (gates.length < length) {
    const r = rng();
    const prev = gates.at(-1);
    if (prev !== undefined && prev.name !== 'BARRIER' && prev.name !== 'MEASURE' && r < 0.25) {
      // Repeat or invert the previous gate (same operands), sometimes with a fresh angle.
      const name = INVERSE[prev.name] !== undefined && rng() < 0.5 ? INVERSE[prev.name]! : prev.name;
      const params = { ...prev.params };
      if ('theta' in params && rng() < 0.5) params.theta = angle(rng, largeAngles);
      gates.push({ ...prev, name, params, control_qubits: [...prev.control_qubits].reverse() });
      continue;
    }
    if (options.barriers !== false && r < 0.28) {
      gates.push({
        name: 'BARRIER',
        target_qubits: rng() < 0.3 ? [] : sample(n, 1 + Math.floor(rng() * n), rng),
        control_qubits: [],
        params: {},
        classical_bits: [],
      });
      continue;
    }
    if (options.measurements === true && r < 0.3) {
      const q = Math.floor(rng() * n);
      gates.push({ name: 'MEASURE', target_qubits: [q], control_qubits: [], params: {}, classical_bits: [q] });
      continue;
    }
    const g = randomGate(n, rng, maxControls, largeAngles);
    if (g !== null) gates.push(g);
  }
  return {
    name: `random_${seed}`,
    num_qubits: n,
    num_clbits: options.measurements === true ? n : 0,
    qubit_labels: Array.from({ length: n }, (_, i) => `q${i}`),
    qubit_mapping: Object.fromEntries(Array.from({ length: n }, (_, i) => [String(i), i])),
    gates,
  };
}
