/**
 * O3's {U, CNOT} stage (issue 26 item 6): the exact lowering, the commutation-aware cancellation and the whole basis
 * pipeline each keep the unitary equal up to global phase within 1e-10, on every gate kind and on random circuits.
 */
import { describe, expect, it } from 'vitest';
import {
  basisCost,
  cancelCommuting,
  circuitUnitary,
  compareUpToPhase,
  designCircuit,
  gate,
  lowerGate,
  lowerGates,
  multiControlledPhase,
  optimizeCircuit,
  optimizeInBasis,
  type Circuit,
  type Gate,
} from '../../src/quantum/index.js';
import { circuitOf } from './support/circuit.js';
import { mulberry32 } from '../support/random.js';
import { randomCircuit } from './support/random-circuits.js';

/** max |U − e^{iφ}V| of two gate lists on n qubits (MEASURE and BARRIER dropped). */
function distance(n: number, a: readonly Gate[], b: readonly Gate[]): number {
  const unitary = (gs: readonly Gate[]) =>
    circuitUnitary(
      circuitOf(
        n,
        gs.filter((g) => g.name !== 'MEASURE' && g.name !== 'BARRIER'),
      ),
    ).data;
  return compareUpToPhase(unitary(a), unitary(b), 1e-10).maxDifference;
}

const inBasis = (gs: readonly Gate[]) =>
  gs.every(
    (g) => (g.name === 'U' && g.control_qubits.length === 0) || (g.name === 'CNOT' && g.control_qubits.length === 1),
  );

const ANGLES = { theta: 0.7, phi: -1.3, lambda: 2.9 };
const KINDS: [string, Record<string, number>][] = [
  ['I', {}],
  ['H', {}],
  ['X', {}],
  ['Y', {}],
  ['Z', {}],
  ['S', {}],
  ['SDG', {}],
  ['T', {}],
  ['TDG', {}],
  ['SX', {}],
  ['RX', { theta: 0.7 }],
  ['RY', { theta: -2.1 }],
  ['RZ', { theta: 1e9 }],
  ['P', { theta: 0.3 }],
  ['U', ANGLES],
];

describe('lowering to {U, CNOT} is exact', () => {
  it.each([0, 1, 2, 3])('every one-qubit gate kind with %i controls, within 1e-10', (k) => {
    for (const [name, params] of KINDS) {
      const g = gate(
        name,
        [k],
        Array.from({ length: k }, (_, i) => i),
        params,
      );
      const lowered = lowerGate(g);
      expect(inBasis(lowered), name).toBe(true);
      expect(distance(k + 1, [g], lowered), `${name} with ${k} controls`).toBeLessThanOrEqual(1e-10);
    }
  });

  it('SWAP with 0–3 controls, CNOT, CZ and CCX, within 1e-10', () => {
    const gates = [
      gate('SWAP', [0, 1]),
      gate('SWAP', [1, 2], [0]),
      gate('SWAP', [3, 0], [1, 2]),
      gate('SWAP', [4, 1], [0, 2, 3]),
      gate('CNOT', [2], [0]),
      gate('CZ', [0], [3]),
      gate('CCX', [1], [3, 0]),
    ];
    for (const g of gates) {
      const lowered = lowerGate(g);
      expect(inBasis(lowered)).toBe(true);
      expect(distance(5, [g], lowered), JSON.stringify(g)).toBeLessThanOrEqual(1e-10);
    }
  });

  /** CNOT counts as good as Qiskit's own decompositions (or better: its C²U takes 22, C³U 51, C²SWAP 42). */
  const CNOTS: [string, number, Gate][] = [
    ['CZ', 1, gate('CZ', [1], [0])],
    ['controlled H', 1, gate('H', [1], [0])],
    ['controlled RX', 2, gate('RX', [1], [0], { theta: 0.4 })],
    ['controlled U', 2, gate('U', [1], [0], ANGLES)],
    ['SWAP', 3, gate('SWAP', [0, 1])],
    ['CCX', 6, gate('CCX', [2], [0, 1])],
    ['CCZ', 6, gate('Z', [2], [0, 1])],
    ['C²P', 6, gate('P', [2], [0, 1], { theta: 0.3 })],
    ['C²U', 8, gate('U', [2], [0, 1], ANGLES)],
    ['Fredkin', 8, gate('SWAP', [1, 2], [0])],
    ['C³X', 14, gate('X', [3], [0, 1, 2])],
    ['C³U', 20, gate('U', [3], [0, 1, 2], ANGLES)],
    ['C²SWAP', 16, gate('SWAP', [2, 3], [0, 1])],
  ];
  it.each(CNOTS)('%s takes %i CNOTs', (_label, cnots, g) => {
    expect(basisCost(lowerGate(g)).cnots).toBe(cnots);
  });

  it('a multi-controlled phase on 1–6 qubits is its diagonal exactly, with 2^m − 2 CNOTs', () => {
    for (let m = 1; m <= 6; m++) {
      const qs = Array.from({ length: m }, (_, i) => m - 1 - i);
      const exact = gate('P', [qs.at(-1)!], qs.slice(0, -1), { theta: 2.2 });
      const gates = multiControlledPhase(qs, 2.2);
      expect(basisCost(gates).cnots).toBe(m === 1 ? 0 : 2 ** m - 2);
      expect(distance(m, [exact], gates), `m = ${m}`).toBeLessThanOrEqual(1e-10);
    }
  });
});

/** A random {U, CNOT} circuit with planted commuting structure: diagonal gates on controls, X-like on targets. */
function randomBasisCircuit(seed: number): Circuit {
  const rng = mulberry32(seed);
  const n = 2 + Math.floor(rng() * 4);
  const gates: Gate[] = [];
  const angle = () => (rng() - 0.5) * 8;
  for (let i = 0; i < 60; i++) {
    const a = Math.floor(rng() * n);
    let b = Math.floor(rng() * (n - 1));
    if (b >= a) b++;
    const r = rng();
    if (r < 0.4) gates.push(gate('CNOT', [b], [a]));
    else if (r < 0.6) gates.push(gate('U', [a], [], { theta: 0, phi: angle(), lambda: angle() }));
    else if (r < 0.75) gates.push(gate('U', [a], [], { theta: angle(), phi: -Math.PI / 2, lambda: Math.PI / 2 }));
    else if (r < 0.8) gates.push(gate('BARRIER', [a]));
    else gates.push(gate('U', [a], [], { theta: angle(), phi: angle(), lambda: angle() }));
  }
  return circuitOf(n, gates);
}

describe('the basis passes are exact on random circuits', () => {
  it('commutation-aware cancellation: 300 random {U, CNOT} circuits within 1e-10, with cancellations', () => {
    let before = 0;
    let after = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const c = randomBasisCircuit(seed);
      const out = cancelCommuting(c.gates);
      expect(distance(c.num_qubits, c.gates, out), `seed ${seed}`).toBeLessThanOrEqual(1e-10);
      before += basisCost(c.gates).cnots;
      after += basisCost(out).cnots;
    }
    expect(after).toBeLessThan(before * 0.95);
  });

  it('the whole basis stage and O3: 300 random circuits (≤ 7 qubits, up to 3 controls) within 1e-10', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const c = randomCircuit(26_600 + seed, { maxQubits: 7, maxGates: 80, maxControls: 3 });
      const basis = optimizeInBasis(c.gates, c.num_qubits);
      expect(inBasis(basis.filter((g) => g.name !== 'BARRIER')), `seed ${seed}`).toBe(true);
      expect(distance(c.num_qubits, c.gates, basis), `seed ${seed} basis`).toBeLessThanOrEqual(1e-10);
      const o3 = optimizeCircuit(c, 3).circuit.gates;
      expect(distance(c.num_qubits, c.gates, o3), `seed ${seed} O3`).toBeLessThanOrEqual(1e-10);
      expect(basisCost(lowerGates(o3)).cnots).toBeLessThanOrEqual(basisCost(lowerGates(c.gates)).cnots);
    }
  });

  it('O3 keeps the readable gates when the basis form is no cheaper', () => {
    const gates = [gate('H', [0]), gate('CNOT', [1], [0])];
    expect(optimizeCircuit(circuitOf(2, gates), 3).circuit.gates).toEqual(gates);
  });
});

describe('O3 stays small on wide multi-controlled gates', () => {
  it('a 12-qubit search (11-controlled Z) keeps its gates instead of 2^12 CNOTs per oracle', () => {
    const { circuit } = designCircuit(
      {
        id: 'grover',
        name: 'grover',
        primitives: ['primitive_amplitude_amplification'],
        inputParams: {},
        qubitCount: null,
        notes: [],
      },
      { optimizationLevel: 3, params: { n: 12, iterations: 2 } },
    ).ir;
    expect(circuit.gates.some((g) => g.control_qubits.length === 11)).toBe(true);
    expect(circuit.gates.length).toBeLessThan(200);
  });
});
