/**
 * Exact at every angle (CONTRACT §17, issue 26 items 1–2): the simulator and the O2 rotation merge against a 200-bit
 * mpmath reference (`support/mp_reference.py`), at angles up to 1e300. Before angles were reduced modulo 2π ahead of
 * any sum, H then U(1, 1e9, −1.5775) was 1.19e-8 off and merging RZ(1e9)·RZ(0.123456789) moved the unitary by 1.7e-8.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  circuitUnitary,
  gate,
  normalizeAngle,
  optimizeCircuit,
  reduceAngle,
  simulateStatevector,
  type Circuit,
  type Gate,
  type GateParams,
} from '../../src/quantum/index.js';
import { circuitOf } from './support/circuit.js';
import { mulberry32 } from '../support/random.js';
import { maxAbsDifference, mpReference } from './support/mp-reference.js';

const LARGE = [
  1e6,
  -3.3e7,
  1e9,
  2 ** 53,
  -(2 ** 53) - 2,
  1e15 + 0.5,
  1e22,
  6.02e23,
  1e300,
  -1e300,
  1.7976931348623157e308,
];
const REDUCE_INPUTS = [...LARGE, Math.PI, -Math.PI, 3 * Math.PI, 4, -7, 1e-300, 5e-324, 0.5, 2 * Math.PI, 1e9 - 1.5775];

/** The issue's case: H, then U(1, 1e9, −1.5775). */
const ISSUE_U = circuitOf(1, [gate('H', [0]), gate('U', [0], [], { theta: 1, phi: 1e9, lambda: -1.5775 })]);

/** Every parametrised gate, uncontrolled and with one control, at each large angle. */
function gateCases(): { id: string; circuit: Circuit }[] {
  const out: { id: string; circuit: Circuit }[] = [];
  LARGE.forEach((a, i) => {
    const b = LARGE[(i + 3) % LARGE.length]!;
    for (const controls of [[], [1]] as number[][]) {
      const width = controls.length + 1;
      const prep = controls.map((q) => gate('H', [q]));
      for (const name of ['RX', 'RY', 'RZ', 'P'])
        out.push({
          id: `${name}(${a}) controls ${controls.length}`,
          circuit: circuitOf(width, [gate('H', [0]), ...prep, gate(name, [0], controls, { theta: a })]),
        });
      out.push({
        id: `U(${a}, ${b}, 0.3) controls ${controls.length}`,
        circuit: circuitOf(width, [
          gate('H', [0]),
          ...prep,
          gate('U', [0], controls, { theta: a, phi: b, lambda: 0.3 }),
        ]),
      });
      out.push({
        id: `U(1, ${a}, ${-b}) controls ${controls.length}`,
        circuit: circuitOf(width, [
          gate('H', [0]),
          ...prep,
          gate('U', [0], controls, { theta: 1, phi: a, lambda: -b }),
        ]),
      });
    }
  });
  return out;
}

/** Seeded 3-qubit circuits whose every angle is large (≥ 1e6 in magnitude), with controls. */
function randomLargeAngleCircuit(seed: number): Circuit {
  const rng = mulberry32(seed);
  const big = () => (rng() < 0.5 ? -1 : 1) * 10 ** (6 + rng() * 12) * (1 + rng());
  const gates: Gate[] = [gate('H', [0]), gate('H', [1]), gate('H', [2])];
  for (let i = 0; i < 30; i++) {
    const [t, c] = [Math.floor(rng() * 3), Math.floor(rng() * 3)];
    const controls = rng() < 0.4 && c !== t ? [c] : [];
    const name = ['RX', 'RY', 'RZ', 'P', 'U', 'CNOT'][Math.floor(rng() * 6)]!;
    if (name === 'CNOT') {
      if (c !== t) gates.push(gate('CNOT', [t], [c]));
      continue;
    }
    const params: GateParams = name === 'U' ? { theta: big(), phi: big(), lambda: big() } : { theta: big() };
    gates.push(gate(name, [t], controls, params));
    // Same-kind neighbours, so O2 has large rotations to merge.
    if (name !== 'U' && rng() < 0.5) gates.push(gate(name, [t], controls, { theta: rng() < 0.5 ? big() : rng() }));
  }
  return circuitOf(3, gates);
}

/** The merge cases of item 2: pairs of same-kind rotations, one or both angles large. */
const MERGE_PAIRS: [number, number][] = [
  [1e9, 0.123456789],
  [0.123456789, 1e9],
  [1e9, -1e9 + 1e-3],
  [-3.3e7, 2.5e12],
  [1e22, 1e300],
  [2 ** 53, 0.5],
];

function mergeCircuit(name: string, controls: number[], [a, b]: [number, number]): Circuit {
  const width = 1 + controls.length;
  return circuitOf(width, [
    gate('H', [0]),
    ...controls.map((q) => gate('H', [q])),
    gate(name, [0], controls, { theta: a }),
    gate(name, [0], controls, { theta: b }),
  ]);
}

const GATE_CASES = gateCases();
const RANDOM = Array.from({ length: 20 }, (_, i) => randomLargeAngleCircuit(26_000 + i));
const MERGES = ['RX', 'RY', 'RZ', 'P'].flatMap((name) =>
  [[], [1]].flatMap((controls) =>
    MERGE_PAIRS.map((pair) => ({
      id: `${name}(${pair[0]})·${name}(${pair[1]}) controls ${controls.length}`,
      circuit: mergeCircuit(name, controls, pair),
    })),
  ),
);

let ref: Map<string, Float64Array>;

beforeAll(async () => {
  ref = await mpReference([
    { id: 'reduce', kind: 'reduce', values: REDUCE_INPUTS },
    { id: 'issue U', kind: 'statevector', circuit: ISSUE_U },
    ...GATE_CASES.map((c) => ({ id: c.id, kind: 'unitary' as const, circuit: c.circuit })),
    ...RANDOM.map((c, i) => ({ id: `random ${i}`, kind: 'statevector' as const, circuit: c })),
    ...MERGES.map((m) => ({ id: m.id, kind: 'unitary' as const, circuit: m.circuit })),
  ]);
}, 120_000);

describe('angles are reduced modulo 2π exactly', () => {
  it('reduceAngle is within 1e-15 of the 1 300-bit residue, from 5e-324 to the largest double', () => {
    const expected = ref.get('reduce')!;
    REDUCE_INPUTS.forEach((x, i) =>
      expect(Math.abs(reduceAngle(x) - expected[i]!), String(x)).toBeLessThanOrEqual(1e-15),
    );
  });

  it('normalizeAngle (phase differences, ZYZ angles) is exact too', () => {
    const expected = ref.get('reduce')!;
    REDUCE_INPUTS.forEach((x, i) => {
      const e = expected[i]! <= -Math.PI ? Math.PI : expected[i]!;
      expect(Math.abs(normalizeAngle(x) - e), String(x)).toBeLessThanOrEqual(1e-15);
    });
  });
});

describe('the simulator is exact at large angles (200-bit reference)', () => {
  it('H then U(1, 1e9, −1.5775): every amplitude within 1e-10 (was 1.19e-8 off)', () => {
    const diff = maxAbsDifference(simulateStatevector(ISSUE_U), ref.get('issue U')!);
    expect(diff).toBeLessThanOrEqual(1e-10);
  });

  it('RX, RY, RZ, P and U, plain and controlled, at angles from 1e6 to 1.8e308: unitaries within 1e-10', () => {
    for (const c of GATE_CASES)
      expect(maxAbsDifference(circuitUnitary(c.circuit).data, ref.get(c.id)!), c.id).toBeLessThanOrEqual(1e-10);
  });

  it('20 random 3-qubit circuits whose every angle is ≥ 1e6: statevectors within 1e-10, also after O1–O3', () => {
    RANDOM.forEach((c, i) => {
      const expected = ref.get(`random ${i}`)!;
      expect(maxAbsDifference(simulateStatevector(c), expected), `random ${i}`).toBeLessThanOrEqual(1e-10);
      for (const level of [1, 2] as const) {
        const out = optimizeCircuit(c, level).circuit;
        // O1/O2 only cancel exact inverses and merge rotations in reduced form: no global phase is introduced.
        expect(maxAbsDifference(simulateStatevector(out), expected), `random ${i} O${level}`).toBeLessThanOrEqual(
          1e-10,
        );
      }
    });
  });
});

describe('O2 merges rotations in reduced form', () => {
  it('RZ(1e9)·RZ(0.123456789) merged stays within 1e-12 of the unmerged pair (was 1.7e-8)', () => {
    const pair = mergeCircuit('RZ', [], [1e9, 0.123456789]);
    const merged = optimizeCircuit(pair, 2).circuit;
    expect(merged.gates.filter((g) => g.name === 'RZ')).toHaveLength(1);
    expect(maxAbsDifference(circuitUnitary(merged).data, circuitUnitary(pair).data)).toBeLessThanOrEqual(1e-12);
  });

  it('every rotation kind, plain and controlled, merged at large angles: within 1e-12 of the exact pair', () => {
    for (const m of MERGES) {
      const merged = optimizeCircuit(m.circuit, 2).circuit;
      expect(merged.gates.length, m.id).toBeLessThan(m.circuit.gates.length);
      const u = circuitUnitary(merged).data;
      expect(maxAbsDifference(u, ref.get(m.id)!), m.id).toBeLessThanOrEqual(1e-12);
      expect(maxAbsDifference(u, circuitUnitary(m.circuit).data), m.id).toBeLessThanOrEqual(1e-12);
    }
  });
});
