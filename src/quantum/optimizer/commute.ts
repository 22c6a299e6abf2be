/**
 * Commutation-aware cancellation in the {U, CNOT} basis (O3): a CNOT cancels an identical earlier CNOT when every
 * gate in between on its qubits commutes with it, and a one-qubit U joins the previous one-qubit gate on its qubit
 * across CNOTs it commutes with. A CNOT commutes with CNOTs sharing only its control or only its target, with
 * diagonal gates on its control and with gates on its target that commute with X (a = d, b = c). Both moves are
 * exact: only gates that commute are reordered.
 */
import type { Gate } from '../ir/types.js';
import { multiply, oneQubitMatrix, type Mat2 } from '../sim/matrices.js';
import { zyzAngles, isIdentityUpToPhase } from './zyz.js';
import { gate } from '../ir/build.js';

/** Entries below this are zero for the commutation tests (rounding noise of an exact product is ~1e-16). */
const EPS = 1e-13;
/** How far back a gate looks for its partner; keeps the pass linear on long circuits. */
const WINDOW = 256;

const isCnot = (g: Gate): boolean => g.name === 'CNOT' && g.control_qubits.length === 1;
const isOneQubitU = (g: Gate): boolean => g.name === 'U' && g.control_qubits.length === 0;

const isDiagonal = (m: Mat2): boolean => Math.hypot(m[2]!, m[3]!) <= EPS && Math.hypot(m[4]!, m[5]!) <= EPS;
const commutesWithX = (m: Mat2): boolean =>
  Math.hypot(m[0]! - m[6]!, m[1]! - m[7]!) <= EPS && Math.hypot(m[2]! - m[4]!, m[3]! - m[5]!) <= EPS;

/** Whether a one-qubit gate with matrix `m` on qubit `q` commutes with `cx`. */
function oneQubitCommutes(m: Mat2, q: number, cx: Gate): boolean {
  if (q === cx.control_qubits[0]) return isDiagonal(m);
  if (q === cx.target_qubits[0]) return commutesWithX(m);
  return true;
}

function cnotsCommute(a: Gate, b: Gate): boolean {
  const [ca, ta, cb, tb] = [a.control_qubits[0], a.target_qubits[0], b.control_qubits[0], b.target_qubits[0]];
  return ca !== tb && ta !== cb;
}

const touches = (g: Gate, q: number): boolean =>
  g.target_qubits.includes(q) || g.control_qubits.includes(q) || (g.name === 'BARRIER' && g.target_qubits.length === 0);

const matrixOf = (g: Gate): Mat2 => oneQubitMatrix(g.name, g.params);

/** One pass of both moves; the result equals the input exactly (up to rounding). */
export function cancelCommuting(gates: readonly Gate[]): Gate[] {
  const kept: (Gate | null)[] = [];
  for (const g of gates) {
    if (isCnot(g)) {
      const [c, t] = [g.control_qubits[0]!, g.target_qubits[0]!];
      let partner = -1;
      for (let j = kept.length - 1, steps = 0; j >= 0 && steps < WINDOW; j--) {
        const h = kept[j];
        if (h === null || h === undefined || (!touches(h, c) && !touches(h, t))) continue;
        steps++;
        if (isCnot(h) && h.control_qubits[0] === c && h.target_qubits[0] === t) {
          partner = j;
          break;
        }
        if (isCnot(h) ? cnotsCommute(h, g) : isOneQubitU(h) && oneQubitCommutes(matrixOf(h), h.target_qubits[0]!, g))
          continue;
        break;
      }
      if (partner >= 0) kept[partner] = null;
      else kept.push(g);
      continue;
    }
    if (isOneQubitU(g)) {
      const q = g.target_qubits[0]!;
      const m = matrixOf(g);
      let partner = -1;
      for (let j = kept.length - 1, steps = 0; j >= 0 && steps < WINDOW; j--) {
        const h = kept[j];
        if (h === null || h === undefined || !touches(h, q)) continue;
        steps++;
        if (isOneQubitU(h)) {
          partner = j;
          break;
        }
        // g may move back across a CNOT it commutes with.
        if (isCnot(h) && oneQubitCommutes(m, q, h)) continue;
        break;
      }
      if (partner >= 0) {
        const h = kept[partner]!;
        // g commutes with every CNOT in between, so it moves back to h and the product takes h's place.
        const product = multiply(m, matrixOf(h));
        kept[partner] = isIdentityUpToPhase(product) ? null : gate('U', [q], [], { ...zyzAngles(product) });
        continue;
      }
      kept.push(g);
      continue;
    }
    kept.push(g);
  }
  return kept.filter((g): g is Gate => g !== null);
}
