import { describe, expect, it } from 'vitest';
import {
  basisCost,
  circuitUnitary,
  compareUpToPhase,
  gate,
  gateCount,
  lowerGates,
  optimizeCircuit,
  type Circuit,
  type Gate,
  type OptimizationLevel,
} from '../../src/quantum/index.js';
import { circuitOf } from './support/circuit.js';
import { randomCircuit } from './support/random-circuits.js';

const unitaryOnly = (c: Circuit): Circuit => ({ ...c, gates: c.gates.filter((g) => g.name !== 'MEASURE') });

describe('optimiser on 1,000 seeded random circuits (≤ 8 qubits, ≤ 200 gates)', () => {
  it('O1–O3 preserve the unitary up to global phase; O1/O2 never lengthen the circuit, O3 never its {U, CNOT} cost', () => {
    let removed = 0;
    let fused = 0;
    let cnotsRemoved = 0;
    for (let seed = 1; seed <= 1000; seed++) {
      const c = randomCircuit(seed, { maxQubits: 8, maxGates: 200, measurements: seed % 10 === 0 });
      const reference = circuitUnitary(unitaryOnly(c)).data;
      for (const level of [1, 2, 3] as OptimizationLevel[]) {
        const { circuit: out, stats } = optimizeCircuit(c, level);
        if (level < 3) expect(gateCount(out), `seed ${seed} O${level}`).toBeLessThanOrEqual(gateCount(c));
        else {
          // O3 may end in {U, CNOT}: never more CNOTs, nor more gates at equal CNOTs, than the input lowered.
          const [mine, lowered] = [basisCost(lowerGates(out.gates)), basisCost(lowerGates(c.gates))];
          expect(mine.cnots, `seed ${seed} O3 CNOTs`).toBeLessThanOrEqual(lowered.cnots);
          if (mine.cnots === lowered.cnots)
            expect(mine.gates, `seed ${seed} O3 gates`).toBeLessThanOrEqual(lowered.gates);
          cnotsRemoved += lowered.cnots - mine.cnots;
        }
        const cmp = compareUpToPhase(circuitUnitary(unitaryOnly(out)).data, reference, 1e-9);
        expect(cmp.maxDifference, `seed ${seed} O${level}`).toBeLessThanOrEqual(1e-9);
        // Measurements are kept, in order.
        expect(out.gates.filter((g) => g.name === 'MEASURE')).toEqual(c.gates.filter((g) => g.name === 'MEASURE'));
        if (level === 2) removed += stats.gates_removed;
        if (level === 3) {
          fused += stats.gates_fused;
        }
      }
    }
    // The corpus exercises the optimiser (not a vacuous pass).
    expect(removed).toBeGreaterThan(5000);
    expect(fused).toBeGreaterThan(5000);
    expect(cnotsRemoved).toBeGreaterThan(5000);
  }, 300_000);
});

describe('optimiser levels (§17.3)', () => {
  const H0 = gate('H', [0]);
  it('O0 changes nothing', () => {
    const c = circuitOf(1, [H0, H0], 1);
    expect(optimizeCircuit(c, 0).circuit.gates).toEqual([H0, H0]);
  });

  const PAIRS: [string, Gate, Gate][] = [
    ['H·H', gate('H', [0]), gate('H', [0])],
    ['X·X', gate('X', [0]), gate('X', [0])],
    ['Y·Y', gate('Y', [0]), gate('Y', [0])],
    ['Z·Z', gate('Z', [0]), gate('Z', [0])],
    ['S·SDG', gate('S', [0]), gate('SDG', [0])],
    ['SDG·S', gate('SDG', [0]), gate('S', [0])],
    ['T·TDG', gate('T', [0]), gate('TDG', [0])],
    ['TDG·T', gate('TDG', [0]), gate('T', [0])],
    ['SWAP·SWAP', gate('SWAP', [0, 1]), gate('SWAP', [1, 0])],
    ['CNOT·CNOT', gate('CNOT', [1], [0]), gate('CNOT', [1], [0])],
    ['CZ·CZ', gate('CZ', [1], [0]), gate('CZ', [1], [0])],
    ['CCX·CCX', gate('CCX', [2], [0, 1]), gate('CCX', [2], [1, 0])],
    ['controlled H·H', gate('H', [2], [0]), gate('H', [2], [0])],
  ];
  it.each(PAIRS)('O1 cancels %s', (_label, a, b) => {
    expect(optimizeCircuit(circuitOf(3, [a, b], 1), 1).circuit.gates).toEqual([]);
  });

  it('O1 keeps pairs with different operands, a gate in between, or a barrier in between', () => {
    const cases: Gate[][] = [
      [gate('CNOT', [1], [0]), gate('CNOT', [0], [1])],
      [gate('H', [0]), gate('CNOT', [1], [0]), gate('H', [0])],
      [gate('H', [0]), gate('BARRIER', [0]), gate('H', [0])],
      [gate('H', [0]), gate('BARRIER', []), gate('H', [0])],
      [gate('S', [0]), gate('S', [0])],
      [gate('H', [0]), gate('H', [0], [1])],
    ];
    for (const gates of cases) expect(optimizeCircuit(circuitOf(2, gates, 1), 1).circuit.gates).toEqual(gates);
  });

  it('O1 cancels across gates on other qubits and cascades (H X X H → nothing)', () => {
    const gates = [gate('H', [0]), gate('X', [0]), gate('H', [1]), gate('X', [0]), gate('H', [0])];
    expect(optimizeCircuit(circuitOf(2, gates, 1), 1).circuit.gates).toEqual([gate('H', [1])]);
  });

  it('O1 does not merge rotations; O2 does', () => {
    const gates = [gate('RZ', [0], [], { theta: 0.25 }), gate('RZ', [0], [], { theta: 0.5 })];
    expect(optimizeCircuit(circuitOf(1, gates, 1), 1).circuit.gates).toHaveLength(2);
    expect(optimizeCircuit(circuitOf(1, gates, 1), 2).circuit.gates).toEqual([gate('RZ', [0], [], { theta: 0.75 })]);
  });

  const DROPS: [string, Gate[], number][] = [
    ['P summing to 2π', [gate('P', [0], [], { theta: Math.PI }), gate('P', [0], [], { theta: Math.PI })], 0],
    [
      'controlled P summing to 2π',
      [gate('P', [0], [1], { theta: 1.5 * Math.PI }), gate('P', [0], [1], { theta: 0.5 * Math.PI })],
      0,
    ],
    ['RX summing to 2π', [gate('RX', [0], [], { theta: Math.PI }), gate('RX', [0], [], { theta: Math.PI })], 0],
    ['RY summing to 0', [gate('RY', [0], [], { theta: 0.3 }), gate('RY', [0], [], { theta: -0.3 })], 0],
    [
      'controlled RZ summing to 2π is kept',
      [gate('RZ', [0], [1], { theta: Math.PI }), gate('RZ', [0], [1], { theta: Math.PI })],
      1,
    ],
    [
      'controlled RZ summing to 4π',
      [gate('RZ', [0], [1], { theta: 2 * Math.PI }), gate('RZ', [0], [1], { theta: 2 * Math.PI })],
      0,
    ],
    ['RX and RY do not merge', [gate('RX', [0], [], { theta: 1 }), gate('RY', [0], [], { theta: 1 })], 2],
  ];
  it.each(DROPS)('O2: %s', (_label, gates, left) => {
    expect(optimizeCircuit(circuitOf(2, gates, 1), 2).circuit.gates).toHaveLength(left);
  });

  it('O3 fuses runs of uncontrolled one-qubit gates into one U in place and reports the stats', () => {
    const gates = [
      gate('H', [0]),
      gate('T', [0]),
      gate('CNOT', [1], [0]),
      gate('X', [1]),
      gate('SX', [1]),
      gate('RY', [1], [], { theta: 0.2 }),
      gate('H', [0]),
    ];
    const { circuit, stats } = optimizeCircuit(circuitOf(2, gates, 1), 3);
    expect(circuit.gates.map((g) => g.name)).toEqual(['U', 'CNOT', 'U', 'H']);
    expect(stats).toEqual({ gates_removed: 3, depth_reduction: 3, gates_fused: 5 });
    const cmp = compareUpToPhase(circuitUnitary(circuit).data, circuitUnitary(circuitOf(2, gates, 1)).data, 1e-12);
    expect(cmp.equivalent).toBe(true);
  });

  it('O3 drops a run whose product is the identity up to phase (H S S H … → gone)', () => {
    const gates = [gate('H', [0]), gate('Z', [0]), gate('H', [0]), gate('X', [0])];
    expect(optimizeCircuit(circuitOf(1, gates, 1), 3).circuit.gates).toEqual([]);
  });
});
