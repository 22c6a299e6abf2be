/**
 * A small dense complex linear-algebra kit for tests, written independently of the simulator's kernels: matrices
 * are arrays of rows of `[re, im]`, operators on n qubits are built from Kronecker products with qubit 0 leftmost.
 */
export type C = [number, number];
export type M = C[][];

export const c = (re: number, im = 0): C => [re, im];
export const add = (a: C, b: C): C => [a[0] + b[0], a[1] + b[1]];
export const mul = (a: C, b: C): C => [a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0]];
export const expi = (t: number): C => [Math.cos(t), Math.sin(t)];
export const scale = (s: C, m: M): M => m.map((row) => row.map((x) => mul(s, x)));

export function zeros(n: number): M {
  return Array.from({ length: n }, () => Array.from({ length: n }, (): C => [0, 0]));
}

export function identity(n: number): M {
  const m = zeros(n);
  for (let i = 0; i < n; i++) m[i]![i] = [1, 0];
  return m;
}

export function matmul(a: M, b: M): M {
  const n = a.length;
  const k = b.length;
  const p = b[0]!.length;
  const out = Array.from({ length: n }, () => Array.from({ length: p }, (): C => [0, 0]));
  for (let i = 0; i < n; i++)
    for (let j = 0; j < p; j++) {
      let s: C = [0, 0];
      for (let x = 0; x < k; x++) s = add(s, mul(a[i]![x]!, b[x]![j]!));
      out[i]![j] = s;
    }
  return out;
}

export function madd(a: M, b: M): M {
  return a.map((row, i) => row.map((x, j) => add(x, b[i]![j]!)));
}

export function kron(a: M, b: M): M {
  const n = a.length * b.length;
  const out = zeros(n);
  for (let i = 0; i < a.length; i++)
    for (let j = 0; j < a.length; j++)
      for (let k = 0; k < b.length; k++)
        for (let l = 0; l < b.length; l++) out[i * b.length + k]![j * b.length + l] = mul(a[i]![j]!, b[k]![l]!);
  return out;
}

const P0: M = [
  [c(1), c(0)],
  [c(0), c(0)],
];
const P1: M = [
  [c(0), c(0)],
  [c(0), c(1)],
];
const I2 = identity(2);

/** `I ⊗ … ⊗ factors[q] ⊗ … ⊗ I` over n qubits (qubit 0 leftmost). */
export function tensorOver(n: number, factors: Map<number, M>): M {
  let out: M = [[c(1)]];
  for (let q = 0; q < n; q++) out = kron(out, factors.get(q) ?? I2);
  return out;
}

/**
 * The n-qubit operator of one-qubit `u` on `target`, applied exactly when every control is |1⟩:
 * Σ over control patterns of projectors, with `u` only on the all-ones pattern.
 */
export function controlledOneQubit(n: number, u: M, target: number, controls: number[]): M {
  let total = zeros(2 ** n);
  for (let pattern = 0; pattern < 2 ** controls.length; pattern++) {
    const factors = new Map<number, M>();
    controls.forEach((q, i) => factors.set(q, (pattern >> i) & 1 ? P1 : P0));
    if (pattern === 2 ** controls.length - 1) factors.set(target, u);
    total = madd(total, tensorOver(n, factors));
  }
  return total;
}

/** SWAP of qubits a and b as a permutation matrix, applied when every control is |1⟩. */
export function controlledSwap(n: number, a: number, b: number, controls: number[]): M {
  const dim = 2 ** n;
  const out = zeros(dim);
  const bit = (i: number, q: number) => (i >> (n - 1 - q)) & 1;
  for (let i = 0; i < dim; i++) {
    let j = i;
    if (controls.every((q) => bit(i, q) === 1) && bit(i, a) !== bit(i, b))
      j = i ^ (1 << (n - 1 - a)) ^ (1 << (n - 1 - b));
    out[j]![i] = c(1);
  }
  return out;
}

/** Textbook 2×2 matrices of CONTRACT §17.2. */
export function textbook(name: string, p: { theta?: number; phi?: number; lambda?: number } = {}): M {
  const t = p.theta ?? 0;
  const h = Math.SQRT1_2;
  const cs = Math.cos(t / 2);
  const sn = Math.sin(t / 2);
  switch (name) {
    case 'I':
      return identity(2);
    case 'H':
      return [
        [c(h), c(h)],
        [c(h), c(-h)],
      ];
    case 'X':
      return [
        [c(0), c(1)],
        [c(1), c(0)],
      ];
    case 'Y':
      return [
        [c(0), c(0, -1)],
        [c(0, 1), c(0)],
      ];
    case 'Z':
      return [
        [c(1), c(0)],
        [c(0), c(-1)],
      ];
    case 'S':
      return [
        [c(1), c(0)],
        [c(0), c(0, 1)],
      ];
    case 'SDG':
      return [
        [c(1), c(0)],
        [c(0), c(0, -1)],
      ];
    case 'T':
      return [
        [c(1), c(0)],
        [c(0), expi(Math.PI / 4)],
      ];
    case 'TDG':
      return [
        [c(1), c(0)],
        [c(0), expi(-Math.PI / 4)],
      ];
    case 'SX':
      return [
        [c(0.5, 0.5), c(0.5, -0.5)],
        [c(0.5, -0.5), c(0.5, 0.5)],
      ];
    case 'RX':
      return [
        [c(cs), c(0, -sn)],
        [c(0, -sn), c(cs)],
      ];
    case 'RY':
      return [
        [c(cs), c(-sn)],
        [c(sn), c(cs)],
      ];
    case 'RZ':
      return [
        [expi(-t / 2), c(0)],
        [c(0), expi(t / 2)],
      ];
    case 'P':
      return [
        [c(1), c(0)],
        [c(0), expi(t)],
      ];
    case 'U': {
      const phi = p.phi ?? 0;
      const lam = p.lambda ?? 0;
      return [
        [c(cs), mul(c(-sn), expi(lam))],
        [mul(c(sn), expi(phi)), mul(c(cs), expi(phi + lam))],
      ];
    }
    default:
      throw new Error(`no textbook matrix for ${name}`);
  }
}

/** Largest entry-wise distance between a dense matrix and a simulator unitary (column-major interleaved). */
export function maxDistanceToUnitary(expected: M, data: Float64Array): number {
  const dim = expected.length;
  let max = 0;
  for (let j = 0; j < dim; j++)
    for (let k = 0; k < dim; k++) {
      const x = 2 * (k * dim + j);
      const d = Math.hypot(data[x]! - expected[j]![k]![0], data[x + 1]! - expected[j]![k]![1]);
      if (d > max) max = d;
    }
  return max;
}

export function applyToVector(m: M, v: C[]): C[] {
  return m.map((row) => row.reduce<C>((s, x, k) => add(s, mul(x, v[k]!)), [0, 0]));
}

/** The Hermitian matrix exponential exp(−i·H·t) by eigen-free scaling and squaring of a Taylor series. */
export function expmMinusI(h: M, t: number): M {
  const dim = h.length;
  const a = scale([0, -t], h);
  let norm = 0;
  for (const row of a)
    norm = Math.max(
      norm,
      row.reduce((s, x) => s + Math.hypot(x[0], x[1]), 0),
    );
  const squarings = Math.max(0, Math.ceil(Math.log2(norm)) + 4);
  const small = scale([2 ** -squarings, 0], a);
  let term = identity(dim);
  let sum = identity(dim);
  for (let k = 1; k <= 30; k++) {
    term = scale([1 / k, 0], matmul(term, small));
    sum = madd(sum, term);
  }
  for (let s = 0; s < squarings; s++) sum = matmul(sum, sum);
  return sum;
}
