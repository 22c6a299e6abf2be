import { describe, expect, it } from 'vitest';
import { circuitUnitary, simulateStatevector, type Gate } from '../../src/quantum/index.js';
import { circuitOf } from './support/circuit.js';
import { mulberry32 } from '../support/random.js';
import {
  applyToVector,
  controlledOneQubit,
  controlledSwap,
  maxDistanceToUnitary,
  textbook,
  type C,
  type M,
} from './support/linalg.js';

/** CONTRACT §17.2 table, row by row: name, targets, params, the textbook base matrix and its fixed controls. */
const ROWS: { name: string; params: string[]; base: string; fixed: number | null }[] = [
  { name: 'I', params: [], base: 'I', fixed: null },
  { name: 'H', params: [], base: 'H', fixed: null },
  { name: 'X', params: [], base: 'X', fixed: null },
  { name: 'Y', params: [], base: 'Y', fixed: null },
  { name: 'Z', params: [], base: 'Z', fixed: null },
  { name: 'S', params: [], base: 'S', fixed: null },
  { name: 'SDG', params: [], base: 'SDG', fixed: null },
  { name: 'T', params: [], base: 'T', fixed: null },
  { name: 'TDG', params: [], base: 'TDG', fixed: null },
  { name: 'SX', params: [], base: 'SX', fixed: null },
  { name: 'RX', params: ['theta'], base: 'RX', fixed: null },
  { name: 'RY', params: ['theta'], base: 'RY', fixed: null },
  { name: 'RZ', params: ['theta'], base: 'RZ', fixed: null },
  { name: 'P', params: ['theta'], base: 'P', fixed: null },
  { name: 'U', params: ['theta', 'phi', 'lambda'], base: 'U', fixed: null },
  { name: 'CNOT', params: [], base: 'X', fixed: 1 },
  { name: 'CZ', params: [], base: 'Z', fixed: 1 },
  { name: 'CCX', params: [], base: 'X', fixed: 2 },
  { name: 'SWAP', params: [], base: 'SWAP', fixed: null },
];

function shuffle<T>(xs: T[], rng: () => number): T[] {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

describe('every gate of the §17.2 table equals its textbook matrix (0, 1 and 2 controls)', () => {
  const rng = mulberry32(1702);
  for (const row of ROWS) {
    const controlCounts = row.fixed === null ? [0, 1, 2] : [row.fixed];
    for (const k of controlCounts) {
      it(`${row.name} with ${k} control(s), several placements and angles`, () => {
        const targetsNeeded = row.base === 'SWAP' ? 2 : 1;
        const n = targetsNeeded + k + 1; // one idle qubit
        for (let trial = 0; trial < 6; trial++) {
          const qubits = shuffle(
            Array.from({ length: n }, (_, q) => q),
            rng,
          );
          const targets = qubits.slice(0, targetsNeeded);
          const controls = qubits.slice(targetsNeeded, targetsNeeded + k);
          const params: Record<string, number> = {};
          for (const p of row.params) params[p] = (rng() - 0.5) * 4 * Math.PI;
          const g: Gate = {
            name: row.name,
            target_qubits: targets,
            control_qubits: controls,
            params,
            classical_bits: [],
          };
          const expected: M =
            row.base === 'SWAP'
              ? controlledSwap(n, targets[0]!, targets[1]!, controls)
              : controlledOneQubit(n, textbook(row.base, params), targets[0]!, controls);
          const u = circuitUnitary(circuitOf(n, [g]));
          expect(maxDistanceToUnitary(expected, u.data)).toBeLessThanOrEqual(1e-12);

          // The statevector kernels agree with the matrix on a random state.
          const dim = 2 ** n;
          const v: C[] = Array.from({ length: dim }, () => [rng() - 0.5, rng() - 0.5]);
          const sv = new Float64Array(2 * dim);
          v.forEach(([re, im], i) => {
            sv[2 * i] = re;
            sv[2 * i + 1] = im;
          });
          const out = simulateStatevector(circuitOf(n, [g]), sv);
          const want = applyToVector(expected, v);
          for (let i = 0; i < dim; i++) {
            expect(Math.abs(out[2 * i]! - want[i]![0])).toBeLessThanOrEqual(1e-12);
            expect(Math.abs(out[2 * i + 1]! - want[i]![1])).toBeLessThanOrEqual(1e-12);
          }
        }
      });
    }
  }

  it('controlled-RZ is diag(1, 1, e^{−iθ/2}, e^{iθ/2}), not controlled-P', () => {
    const theta = 0.7;
    const u = circuitUnitary(
      circuitOf(2, [{ name: 'RZ', target_qubits: [1], control_qubits: [0], params: { theta }, classical_bits: [] }]),
    );
    const entry = (j: number) => [u.data[2 * (j * 4 + j)]!, u.data[2 * (j * 4 + j) + 1]!];
    expect(entry(0)).toEqual([1, 0]);
    expect(entry(1)).toEqual([1, 0]);
    expect(entry(2)[0]).toBeCloseTo(Math.cos(-theta / 2), 14);
    expect(entry(2)[1]).toBeCloseTo(Math.sin(-theta / 2), 14);
    expect(entry(3)[1]).toBeCloseTo(Math.sin(theta / 2), 14);
  });

  it('qubit 0 is the most significant bit: X on qubit 0 of 3 maps |000⟩ to index 4', () => {
    const sv = simulateStatevector(
      circuitOf(3, [{ name: 'X', target_qubits: [0], control_qubits: [], params: {}, classical_bits: [] }]),
    );
    expect(sv[2 * 4]).toBe(1);
    expect(sv[0]).toBe(0);
  });

  it('an unknown gate makes simulation fail with "Unknown gate: <NAME>"', () => {
    expect(() =>
      simulateStatevector(
        circuitOf(1, [{ name: 'FOO', target_qubits: [0], control_qubits: [], params: {}, classical_bits: [] }]),
      ),
    ).toThrow('Unknown gate: FOO');
  });
});
