/**
 * Exact lowering of every unitary gate to the basis {U, CNOT} (the basis O3 compares against, as Qiskit's
 * transpiler does with `basis_gates=["u", "cx"]`). The result equals the input up to one global phase.
 *
 * A k-controlled one-qubit gate M is diagonalised, M = W·diag(a, b)·W† (W unitary), so it becomes
 * W† · C^k diag(a, b) · W on the target; C^k diag(a, b) is the phase a on the controls (C^(k−1)P(arg a)) times
 * C^k P(arg b/a), and a multi-controlled phase on m qubits is its phase polynomial: λ·x₁⋯x_m =
 * λ/2^(m−1) · Σ_{S≠∅} (−1)^(|S|+1) ⊕_S x, each parity gathered on one qubit by CNOTs in Gray-code order (2^m − 2
 * CNOTs). Costs: one control 2 CNOTs (1 for X-, Y-, Z-, H-like gates with eigenvalues ±1), two controls 6–8,
 * three 14–20. SWAP is three CNOTs, a controlled SWAP is CNOT · C^(k+1)X · CNOT.
 */
import { reduceAngle } from '../angles.js';
import { gate } from '../ir/build.js';
import { baseGateName, gateSpec } from '../ir/gates.js';
import type { Gate } from '../ir/types.js';
import { entriesOf, multiply, oneQubitMatrix, type Mat2 } from '../sim/matrices.js';
import { zyzAngles } from './zyz.js';

/** Below this an angle or an off-diagonal entry counts as zero (far below the 1e-10 the tools promise). */
const EPS = 1e-14;

const uGate = (q: number, m: Mat2): Gate => gate('U', [q], [], { ...zyzAngles(m) });
const phase = (q: number, theta: number): Gate => gate('U', [q], [], { theta: 0, phi: 0, lambda: theta });
const cnot = (control: number, target: number): Gate => gate('CNOT', [target], [control]);
const HADAMARD = oneQubitMatrix('H', {});

/** The adjoint of a 2×2 matrix. */
function adjoint(m: Mat2): Mat2 {
  return Float64Array.of(m[0]!, -m[1]!, m[4]!, -m[5]!, m[2]!, -m[3]!, m[6]!, -m[7]!);
}

/**
 * A unitary W and phases with m = W·diag(e^{iα}, e^{iβ})·W†. W's first column is an eigenvector of m (from
 * whichever row of m − λ gives the longer vector), its second the orthogonal complement; α and β are then read
 * off W†·m·W, whose off-diagonal entries are rounding noise for a unitary m.
 */
function diagonalise(m: Mat2): { w: Mat2; alpha: number; beta: number } {
  const [ar, ai, br, bi, cr, ci, dr, di] = entriesOf(m);
  if (Math.hypot(br, bi) <= EPS && Math.hypot(cr, ci) <= EPS)
    return { w: Float64Array.of(1, 0, 0, 0, 0, 0, 1, 0), alpha: Math.atan2(ai, ar), beta: Math.atan2(di, dr) };
  // Eigenvalue λ of [[a, b], [c, d]]: (a + d)/2 + sqrt(((a − d)/2)² + bc).
  const hr = (ar - dr) / 2;
  const hi = (ai - di) / 2;
  const discRe = hr * hr - hi * hi + (br * cr - bi * ci);
  const discIm = 2 * hr * hi + (br * ci + bi * cr);
  const mod = Math.hypot(discRe, discIm);
  let sr = Math.sqrt((mod + discRe) / 2);
  let si = Math.sign(discIm) * Math.sqrt(Math.max(0, (mod - discRe) / 2));
  if (discIm === 0 && discRe < 0) [sr, si] = [0, Math.sqrt(-discRe)];
  const lr = (ar + dr) / 2 + sr;
  const li = (ai + di) / 2 + si;
  // (m − λ)v = 0: v = (b, λ − a) from the first row, or (λ − d, c) from the second.
  const v1 = [br, bi, lr - ar, li - ai];
  const v2 = [lr - dr, li - di, cr, ci];
  const n1 = Math.hypot(v1[0]!, v1[1]!, v1[2]!, v1[3]!);
  const n2 = Math.hypot(v2[0]!, v2[1]!, v2[2]!, v2[3]!);
  const [x0r, x0i, x1r, x1i] = (n1 >= n2 ? v1 : v2).map((x) => x / Math.max(n1, n2)) as [
    number,
    number,
    number,
    number,
  ];
  // Columns (x0, x1) and (−conj x1, conj x0).
  const w = Float64Array.of(x0r, x0i, -x1r, x1i, x1r, x1i, x0r, -x0i);
  const t = multiply3(adjoint(w), m, w);
  return { w, alpha: Math.atan2(t[1]!, t[0]!), beta: Math.atan2(t[7]!, t[6]!) };
}

const multiply3 = (a: Mat2, b: Mat2, c: Mat2): Mat2 => multiply(multiply(a, b), c);

/** C^(m−1)P(λ) on `qubits` (symmetric in them): the phase e^{iλ} when every qubit is 1. */
export function multiControlledPhase(qubits: readonly number[], lambda: number): Gate[] {
  const reduced = reduceAngle(lambda);
  if (Math.abs(reduced) <= EPS || qubits.length === 0) return [];
  const m = qubits.length;
  const theta = reduced / 2 ** (m - 1);
  const out: Gate[] = [];
  const popcount = (x: number): number => {
    let c = 0;
    for (let y = x; y !== 0; y &= y - 1) c++;
    return c;
  };
  for (let j = 0; j < m; j++) {
    // Subsets whose largest member is j: the parities x_j ⊕ (⊕_{i∈g} x_i) for every g ⊆ {0..j−1}, gathered on j.
    const acc = qubits[j]!;
    const sign = (g: number) => ((popcount(g) + 1) % 2 === 1 ? 1 : -1);
    out.push(phase(acc, sign(0) * theta));
    const count = 2 ** j;
    for (let i = 1; i < count; i++) {
      const g = i ^ (i >> 1);
      const changed = 31 - Math.clz32(g ^ ((i - 1) ^ ((i - 1) >> 1)));
      out.push(cnot(qubits[changed]!, acc));
      out.push(phase(acc, sign(g) * theta));
    }
    // The last Gray code has only bit j−1 set: one CNOT restores x_j.
    if (j > 0) out.push(cnot(qubits[j - 1]!, acc));
  }
  return out;
}

/** `matrix` on `target` when every control is 1, in {U, CNOT}. */
export function lowerControlled(matrix: Mat2, target: number, controls: readonly number[]): Gate[] {
  if (controls.length === 0) return [uGate(target, matrix)];
  const { w, alpha, beta } = diagonalise(matrix);
  const relative = reduceAngle(beta - alpha);
  const core: Gate[] = [];
  // C^k diag(e^{iα}, e^{iβ}) = C^(k−1)P(α) on the controls · C^k P(β − α).
  core.push(...multiControlledPhase(controls, alpha));
  let basis = w;
  if (controls.length === 1 && Math.abs(Math.abs(relative) - Math.PI) <= EPS) {
    // diag(1, −1) = H·X·H: one CNOT.
    basis = multiply(w, HADAMARD);
    core.push(cnot(controls[0]!, target));
  } else core.push(...multiControlledPhase([...controls, target], relative));
  const identityBasis = Math.hypot(basis[2]!, basis[3]!, basis[4]!, basis[5]!) <= EPS;
  if (identityBasis) return core;
  return [uGate(target, adjoint(basis)), ...core, uGate(target, basis)];
}

/** Whether `g` is already in the basis: an uncontrolled U or a CNOT. */
export const inBasis = (g: Gate): boolean =>
  (g.name === 'U' && g.control_qubits.length === 0) || (g.name === 'CNOT' && g.control_qubits.length === 1);

/** One gate in {U, CNOT}; MEASURE, BARRIER and unknown gates are kept as they are. */
export function lowerGate(g: Gate): Gate[] {
  if (inBasis(g)) return [g];
  const spec = gateSpec(g.name);
  if (spec === undefined || !spec.unitary) return [g];
  if (g.name === 'SWAP') {
    const [a, b] = g.target_qubits as [number, number];
    if (g.control_qubits.length === 0) return [cnot(a, b), cnot(b, a), cnot(a, b)];
    return [cnot(b, a), ...lowerControlled(oneQubitMatrix('X', {}), b, [...g.control_qubits, a]), cnot(b, a)];
  }
  if (g.name === 'I' && g.control_qubits.length === 0) return [];
  if (baseGateName(g.name) === 'X' && g.control_qubits.length === 1)
    return [cnot(g.control_qubits[0]!, g.target_qubits[0]!)];
  return lowerControlled(oneQubitMatrix(g.name, g.params), g.target_qubits[0]!, g.control_qubits);
}

export function lowerGates(gates: readonly Gate[]): Gate[] {
  return gates.flatMap(lowerGate);
}
