/**
 * O1 and O2 (CONTRACT §17.3): cancel adjacent mutually inverse gates and (O2) merge adjacent same-kind rotations.
 * "Adjacent" means no kept gate in between touches any of their qubits; one left-to-right pass with a stack of
 * kept gates per qubit finds every such pair, including the ones a removal exposes (the removed gate is always the
 * latest on its qubits).
 */
import { addAngles, reduceAngle, reduceAngle4Pi } from '../angles.js';
import { gateQubits } from '../ir/metrics.js';
import type { Gate } from '../ir/types.js';

const SELF_INVERSE = new Set(['H', 'X', 'Y', 'Z', 'SWAP', 'CNOT', 'CZ', 'CCX']);
const INVERSE_OF: Readonly<Record<string, string>> = { S: 'SDG', SDG: 'S', T: 'TDG', TDG: 'T' };
const ROTATIONS = new Set(['RX', 'RY', 'RZ', 'P']);

/** Angles closer than this to a multiple of the period count as the identity. */
const ANGLE_TOLERANCE = 1e-12;

const sameSet = (a: readonly number[], b: readonly number[]): boolean =>
  a.length === b.length && a.every((x) => b.includes(x));

function sameOperands(a: Gate, b: Gate): boolean {
  const targetsMatch =
    a.name === 'SWAP'
      ? sameSet(a.target_qubits, b.target_qubits)
      : a.target_qubits.length === b.target_qubits.length && a.target_qubits.every((q, i) => q === b.target_qubits[i]);
  return targetsMatch && sameSet(a.control_qubits, b.control_qubits);
}

function areInverse(a: Gate, b: Gate): boolean {
  const inverse = SELF_INVERSE.has(a.name) ? a.name : INVERSE_OF[a.name];
  return inverse !== undefined && inverse === b.name && sameOperands(a, b);
}

/** Whether a rotation by `theta` is the identity up to global phase (period 2π, or 4π for controlled RX/RY/RZ). */
export function isIdentityRotation(name: string, controlled: boolean, theta: number): boolean {
  const residue = name !== 'P' && controlled ? reduceAngle4Pi(theta) : reduceAngle(theta);
  return Math.abs(residue) <= ANGLE_TOLERANCE;
}

/** Qubits a gate blocks: its targets and controls; a barrier without targets blocks every qubit. */
function blockedQubits(g: Gate, numQubits: number): number[] {
  if (g.name === 'BARRIER' && g.target_qubits.length === 0) return Array.from({ length: numQubits }, (_, q) => q);
  return gateQubits(g);
}

export function cancelAndMerge(gates: readonly Gate[], numQubits: number, merge: boolean): Gate[] {
  const kept: (Gate | null)[] = [];
  const stacks: number[][] = Array.from({ length: numQubits }, () => []);
  for (const g of gates) {
    const qs = blockedQubits(g, numQubits);
    if (g.name !== 'BARRIER' && g.name !== 'MEASURE' && qs.length > 0) {
      const c = stacks[qs[0]!]!.at(-1);
      const prev = c === undefined ? null : kept[c]!;
      if (
        c !== undefined &&
        prev !== null &&
        prev.name !== 'BARRIER' &&
        qs.every((q) => stacks[q]!.at(-1) === c) &&
        gateQubits(prev).length === qs.length
      ) {
        const drop = () => {
          kept[c] = null;
          for (const q of qs) stacks[q]!.pop();
        };
        if (areInverse(prev, g)) {
          drop();
          continue;
        }
        if (merge && ROTATIONS.has(g.name) && prev.name === g.name && sameOperands(prev, g)) {
          // In reduced form, modulo the rotation's exact period (4π for RX/RY/RZ, whose 2π turn is −I; 2π for P), so
          // the merged gate equals the pair exactly, not only up to phase, and no large sum is rounded.
          const theta = addAngles(prev.params.theta!, g.params.theta!, g.name === 'P' ? 2 : 4);
          if (isIdentityRotation(g.name, g.control_qubits.length > 0, theta)) drop();
          else kept[c] = { ...prev, params: { ...prev.params, theta } };
          continue;
        }
      }
    }
    const index = kept.length;
    kept.push(g);
    for (const q of qs) stacks[q]!.push(index);
  }
  return kept.filter((g): g is Gate => g !== null);
}
