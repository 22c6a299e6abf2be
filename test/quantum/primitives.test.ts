import { describe, expect, it } from 'vitest';
import {
  circuitUnitary,
  designCircuit,
  probabilities,
  simulateStatevector,
  type AlgorithmInput,
  type Circuit,
  type ParamMap,
} from '../../src/quantum/index.js';
import { expmMinusI, identity, madd, scale, tensorOver, textbook, type M } from './support/linalg.js';

function design(primitive: string, params: ParamMap): Circuit {
  const input: AlgorithmInput = {
    id: 'a',
    name: 'a',
    primitives: [primitive],
    inputParams: {},
    qubitCount: null,
    notes: [],
  };
  return designCircuit(input, { optimizationLevel: 0, params }).ir.circuit;
}

describe('QFT(n) equals the DFT matrix |j⟩ → N^−½ Σ_k e^{2πijk/N} |k⟩ (n = 1..8)', () => {
  for (let n = 1; n <= 8; n++) {
    it(`n = ${n}`, () => {
      const u = circuitUnitary(design('primitive_qft', { n }));
      const N = 2 ** n;
      let worst = 0;
      for (let j = 0; j < N; j++)
        for (let k = 0; k < N; k++) {
          const angle = (2 * Math.PI * ((j * k) % N)) / N;
          const x = 2 * (j * N + k); // column j, row k
          worst = Math.max(
            worst,
            Math.hypot(u.data[x]! - Math.cos(angle) / Math.sqrt(N), u.data[x + 1]! - Math.sin(angle) / Math.sqrt(N)),
          );
        }
      expect(worst).toBeLessThanOrEqual(1e-12);
    });
  }

  it('the inverse QFT is the inverse DFT (n = 4)', () => {
    const u = circuitUnitary(design('primitive_iqft', { n: 4 }));
    const N = 16;
    for (let j = 0; j < N; j++)
      for (let k = 0; k < N; k++) {
        const angle = (-2 * Math.PI * ((j * k) % N)) / N;
        const x = 2 * (j * N + k);
        expect(Math.abs(u.data[x]! - Math.cos(angle) / 4)).toBeLessThanOrEqual(1e-12);
        expect(Math.abs(u.data[x + 1]! - Math.sin(angle) / 4)).toBeLessThanOrEqual(1e-12);
      }
  });
});

describe('QPE reads round(phase·2^t) on qubits 0..t−1 (MSB first), target 1', () => {
  for (let t = 1; t <= 6; t++) {
    it(`t = ${t}, phases j/37 for j = 0..37`, () => {
      for (let j = 0; j <= 37; j++) {
        const phase = j / 37;
        const sv = simulateStatevector(design('primitive_qpe', { t, phase }));
        const probs = probabilities(sv);
        // Marginal over the counting register; the target qubit (least significant) must be 1.
        const marginal = new Array<number>(2 ** t).fill(0);
        let targetOne = 0;
        probs.forEach((p, i) => {
          marginal[i >> 1]! += p;
          if (i & 1) targetOne += p;
        });
        expect(targetOne).toBeCloseTo(1, 12);
        const best = marginal.indexOf(Math.max(...marginal));
        expect(best).toBe(Math.round(phase * 2 ** t) % 2 ** t);
      }
    });
  }

  it('exact phases are read with certainty: phase 0.25, t 3 → 010 and target 1', () => {
    const probs = probabilities(simulateStatevector(design('primitive_qpe', {})));
    expect(probs[0b0101]).toBeCloseTo(1, 12);
  });
});

describe('amplitude amplification finds every marked string with probability sin²((2k+1)θ)', () => {
  for (let n = 2; n <= 6; n++) {
    it(`n = ${n}, every marked string, default iterations`, () => {
      const N = 2 ** n;
      const k = Math.floor((Math.PI / 4) * Math.sqrt(N));
      const textbookP = Math.sin((2 * k + 1) * Math.asin(1 / Math.sqrt(N))) ** 2;
      for (let m = 0; m < N; m++) {
        const marked = m.toString(2).padStart(n, '0');
        const probs = probabilities(simulateStatevector(design('primitive_amplitude_amplification', { n, marked })));
        expect(Math.abs(probs[m]! - textbookP)).toBeLessThanOrEqual(1e-10);
      }
    });
  }
});

describe('Trotter steps converge to exp(−iHt) for H = J Σ Z_i Z_{i+1} + h Σ X_i', () => {
  function hamiltonian(n: number, J: number, h: number): M {
    let H: M = scale([0, 0], identity(2 ** n));
    const Z = textbook('Z');
    const X = textbook('X');
    for (let i = 0; i < n - 1; i++)
      H = madd(
        H,
        scale(
          [J, 0],
          tensorOver(
            n,
            new Map([
              [i, Z],
              [i + 1, Z],
            ]),
          ),
        ),
      );
    for (let i = 0; i < n; i++) H = madd(H, scale([h, 0], tensorOver(n, new Map([[i, X]]))));
    return H;
  }

  for (const n of [2, 3]) {
    it(`n = ${n}: the error falls like 1/steps`, () => {
      const J = 0.7;
      const h = 1.3;
      const time = 1.1;
      const exact = expmMinusI(hamiltonian(n, J, h), time);
      const errors: number[] = [];
      for (const steps of [1, 2, 4, 8, 16, 32, 64, 128]) {
        const u = circuitUnitary(design('primitive_hamiltonian_simulation', { n, time, steps, J, h }));
        let worst = 0;
        const dim = 2 ** n;
        for (let r = 0; r < dim; r++)
          for (let col = 0; col < dim; col++) {
            const x = 2 * (col * dim + r);
            worst = Math.max(worst, Math.hypot(u.data[x]! - exact[r]![col]![0], u.data[x + 1]! - exact[r]![col]![1]));
          }
        errors.push(worst);
      }
      for (let i = 1; i < errors.length; i++) expect(errors[i]!).toBeLessThan(errors[i - 1]!);
      // First order: doubling the steps halves the error.
      const lastRatio = errors.at(-1)! / errors.at(-2)!;
      expect(lastRatio).toBeGreaterThan(0.45);
      expect(lastRatio).toBeLessThan(0.55);
      expect(errors.at(-1)!).toBeLessThan(0.01);
    });
  }
});
