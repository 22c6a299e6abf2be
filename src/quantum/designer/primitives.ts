/**
 * The built-in primitives of CONTRACT §17.3. Each generator emits exactly the gates of its table row on local
 * qubits 0..width−1; the designer shifts them to the primitive's offset.
 */
import { gate } from '../ir/build.js';
import type { Gate } from '../ir/types.js';
import { markedBitstring, type ParamMap } from './params.js';

export interface PrimitiveContext {
  /** The full (validated) parameter map. */
  readonly params: ParamMap;
  /** Notes for `metadata.validation_errors`. */
  readonly notes: string[];
}

export interface Primitive {
  readonly id: string;
  readonly name: string;
  readonly category: string;
  readonly defaultWidth: number;
  width(ctx: PrimitiveContext): number;
  generate(ctx: PrimitiveContext): Gate[];
  /** Parameters with the values this primitive uses (for `metadata.circuit_params`). */
  effectiveParams(ctx: PrimitiveContext): ParamMap;
}

function num(ctx: PrimitiveContext, key: string, fallback: number): number {
  const v = ctx.params[key];
  return typeof v === 'number' ? v : fallback;
}

/** `n`, else `num_qubits`, else the primitive's default. */
function width(ctx: PrimitiveContext, fallback: number): number {
  return num(ctx, 'n', num(ctx, 'num_qubits', fallback));
}

export function qftGates(n: number): Gate[] {
  const gates: Gate[] = [];
  for (let i = 0; i < n; i++) {
    gates.push(gate('H', [i]));
    for (let j = i + 1; j < n; j++) gates.push(gate('P', [i], [j], { theta: (2 * Math.PI) / 2 ** (j - i + 1) }));
  }
  for (let i = 0; i < Math.floor(n / 2); i++) gates.push(gate('SWAP', [i, n - 1 - i]));
  return gates;
}

export function iqftGates(n: number): Gate[] {
  return qftGates(n)
    .reverse()
    .map((g) => (g.name === 'P' ? { ...g, params: { theta: -g.params.theta! } } : g));
}

function qpeGates(t: number, phase: number): Gate[] {
  const gates: Gate[] = [gate('X', [t])];
  for (let k = 0; k < t; k++) gates.push(gate('H', [k]));
  for (let k = 0; k < t; k++) gates.push(gate('P', [t], [k], { theta: 2 * Math.PI * phase * 2 ** (t - 1 - k) }));
  return [...gates, ...iqftGates(t)];
}

function defaultIterations(n: number): number {
  return Math.max(1, Math.floor((Math.PI / 4) * Math.sqrt(2 ** n)));
}

function markedString(ctx: PrimitiveContext, n: number): string {
  const raw = ctx.params.marked;
  return raw === undefined ? '1'.repeat(n) : markedBitstring(raw, n);
}

function amplitudeAmplificationGates(n: number, marked: string, iterations: number): Gate[] {
  const all = Array.from({ length: n }, (_, q) => q);
  const controls = all.slice(0, n - 1);
  const mcz = gate('Z', [n - 1], controls);
  const gates: Gate[] = all.map((q) => gate('H', [q]));
  const flips = all.filter((q) => marked[q] === '0');
  for (let it = 0; it < iterations; it++) {
    for (const q of flips) gates.push(gate('X', [q]));
    gates.push({ ...mcz, control_qubits: [...controls] });
    for (const q of flips) gates.push(gate('X', [q]));
    for (const q of all) gates.push(gate('H', [q]));
    for (const q of all) gates.push(gate('X', [q]));
    gates.push({ ...mcz, control_qubits: [...controls] });
    for (const q of all) gates.push(gate('X', [q]));
    for (const q of all) gates.push(gate('H', [q]));
  }
  return gates;
}

function trotterGates(n: number, time: number, steps: number, j: number, h: number): Gate[] {
  const gates: Gate[] = [];
  const zz = (2 * j * time) / steps;
  const x = (2 * h * time) / steps;
  for (let s = 0; s < steps; s++) {
    for (let i = 0; i < n - 1; i++) {
      gates.push(gate('CNOT', [i + 1], [i]));
      gates.push(gate('RZ', [i + 1], [], { theta: zz }));
      gates.push(gate('CNOT', [i + 1], [i]));
    }
    for (let i = 0; i < n; i++) gates.push(gate('RX', [i], [], { theta: x }));
  }
  return gates;
}

function variationalGates(n: number, layers: number, theta: number): Gate[] {
  const gates: Gate[] = [];
  for (let l = 0; l < layers; l++) {
    for (let i = 0; i < n; i++) gates.push(gate('RY', [i], [], { theta }));
    for (let i = 0; i < n - 1; i++) gates.push(gate('CNOT', [i + 1], [i]));
  }
  return gates;
}

function simple(
  id: string,
  name: string,
  category: string,
  defaultN: number,
  generate: (n: number, ctx: PrimitiveContext) => Gate[],
): Primitive {
  return {
    id,
    name,
    category,
    defaultWidth: defaultN,
    width: (ctx) => width(ctx, defaultN),
    generate: (ctx) => generate(width(ctx, defaultN), ctx),
    effectiveParams: (ctx) => ({ n: width(ctx, defaultN) }),
  };
}

function reserved(id: string, name: string, category: string): Primitive {
  return simple(id, name, category, 2, (_n, ctx) => {
    ctx.notes.push(`primitive ${id} has no gate generator; width reserved only`);
    return [];
  });
}

const qpe: Primitive = {
  id: 'primitive_qpe',
  name: 'Quantum Phase Estimation',
  category: 'estimation',
  defaultWidth: 4,
  width: (ctx) => num(ctx, 't', 3) + 1,
  generate: (ctx) => qpeGates(num(ctx, 't', 3), num(ctx, 'phase', 0.25)),
  effectiveParams: (ctx) => ({ t: num(ctx, 't', 3), phase: num(ctx, 'phase', 0.25) }),
};

const amplitudeAmplification: Primitive = {
  id: 'primitive_amplitude_amplification',
  name: 'Amplitude Amplification (Grover)',
  category: 'search',
  defaultWidth: 2,
  width: (ctx) => width(ctx, 2),
  generate: (ctx) => {
    const n = width(ctx, 2);
    return amplitudeAmplificationGates(n, markedString(ctx, n), num(ctx, 'iterations', defaultIterations(n)));
  },
  effectiveParams: (ctx) => {
    const n = width(ctx, 2);
    return {
      n,
      marked: markedString(ctx, n),
      iterations: num(ctx, 'iterations', defaultIterations(n)),
    };
  },
};

const hamiltonian: Primitive = {
  id: 'primitive_hamiltonian_simulation',
  name: 'Hamiltonian Simulation (first-order Trotter)',
  category: 'simulation',
  defaultWidth: 2,
  width: (ctx) => width(ctx, 2),
  generate: (ctx) =>
    trotterGates(width(ctx, 2), num(ctx, 'time', 1), num(ctx, 'steps', 1), num(ctx, 'J', 1), num(ctx, 'h', 1)),
  effectiveParams: (ctx) => ({
    n: width(ctx, 2),
    time: num(ctx, 'time', 1),
    steps: num(ctx, 'steps', 1),
    J: num(ctx, 'J', 1),
    h: num(ctx, 'h', 1),
  }),
};

const variational: Primitive = {
  id: 'primitive_variational_circuit',
  name: 'Variational Circuit (hardware-efficient ansatz)',
  category: 'variational',
  defaultWidth: 2,
  width: (ctx) => width(ctx, 2),
  generate: (ctx) => variationalGates(width(ctx, 2), num(ctx, 'layers', 1), num(ctx, 'theta', 0.1)),
  effectiveParams: (ctx) => ({ n: width(ctx, 2), layers: num(ctx, 'layers', 1), theta: num(ctx, 'theta', 0.1) }),
};

const bell: Primitive = {
  id: 'primitive_bell',
  name: 'Bell State Preparation',
  category: 'state_preparation',
  defaultWidth: 2,
  width: () => 2,
  generate: () => [gate('H', [0]), gate('CNOT', [1], [0])],
  effectiveParams: () => ({}),
};

/** Every built-in primitive, in the order `--list-primitives` prints them. */
export const PRIMITIVES: readonly Primitive[] = [
  simple('primitive_qft', 'Quantum Fourier Transform', 'transform', 3, (n) => qftGates(n)),
  simple('primitive_iqft', 'Inverse Quantum Fourier Transform', 'transform', 3, (n) => iqftGates(n)),
  qpe,
  amplitudeAmplification,
  simple('primitive_hadamard', 'Hadamard Layer', 'state_preparation', 1, (n) =>
    Array.from({ length: n }, (_, q) => gate('H', [q])),
  ),
  bell,
  simple('primitive_ghz', 'GHZ State Preparation', 'state_preparation', 3, (n) => [
    gate('H', [0]),
    ...Array.from({ length: n - 1 }, (_, i) => gate('CNOT', [i + 1], [i])),
  ]),
  hamiltonian,
  variational,
  reserved('primitive_block_encoding', 'Block Encoding', 'encoding'),
  reserved('primitive_quantum_walk', 'Quantum Walk', 'walk'),
];

/** Other spellings of built-in ids (wiki page ids such as `prim-quantum-fourier-transform`, bare names). */
const ALIASES: Readonly<Record<string, string>> = {
  primitive_quantum_fourier_transform: 'primitive_qft',
  primitive_fourier_transform: 'primitive_qft',
  primitive_inverse_quantum_fourier_transform: 'primitive_iqft',
  primitive_inverse_qft: 'primitive_iqft',
  primitive_phase_estimation: 'primitive_qpe',
  primitive_quantum_phase_estimation: 'primitive_qpe',
  primitive_grover: 'primitive_amplitude_amplification',
  primitive_grover_search: 'primitive_amplitude_amplification',
  primitive_bell_state: 'primitive_bell',
  primitive_ghz_state: 'primitive_ghz',
  primitive_trotter: 'primitive_hamiltonian_simulation',
  primitive_variational: 'primitive_variational_circuit',
};

/** The built-in primitive for an id (prefix `primitive_` optional, `-` read as `_`, aliases resolved). */
export function findPrimitive(id: string): Primitive | undefined {
  let key = id.trim().toLowerCase().replace(/-/g, '_');
  if (!key.startsWith('primitive_')) key = `primitive_${key}`;
  key = ALIASES[key] ?? key;
  return PRIMITIVES.find((p) => p.id === key);
}
