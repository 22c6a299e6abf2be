/**
 * The {U, CNOT} stage of O3: lower every gate exactly (lower.ts), then repeat commutation-aware cancellation
 * (commute.ts) and one-qubit fusion until nothing changes. O3 keeps this form only when it is cheaper than its
 * high-level result lowered gate by gate (fewer CNOTs, then fewer gates), so a circuit it cannot improve keeps its
 * readable gates.
 */
import type { Gate } from '../ir/types.js';
import { cancelAndMerge } from './cancel.js';
import { cancelCommuting } from './commute.js';
import { fuseSingleQubitRuns } from './fuse.js';
import { lowerGates } from './lower.js';

const MAX_ROUNDS = 20;

export interface BasisCost {
  readonly cnots: number;
  readonly gates: number;
}

export function basisCost(gates: readonly Gate[]): BasisCost {
  let cnots = 0;
  let count = 0;
  for (const g of gates) {
    if (g.name === 'BARRIER') continue;
    count++;
    if (g.name === 'CNOT') cnots++;
  }
  return { cnots, gates: count };
}

const cheaper = (a: BasisCost, b: BasisCost): boolean =>
  a.cnots < b.cnots || (a.cnots === b.cnots && a.gates < b.gates);

/** The circuit in {U, CNOT} after the basis passes (MEASURE, BARRIER and unknown gates kept in place). */
export function optimizeInBasis(gates: readonly Gate[], numQubits: number): Gate[] {
  let current = cancelAndMerge(lowerGates(gates), numQubits, false);
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const next = fuseSingleQubitRuns(cancelCommuting(current), numQubits).gates;
    if (!cheaper(basisCost(next), basisCost(current))) return next.length <= current.length ? next : current;
    current = next;
  }
  return current;
}

/**
 * Lowering a gate with k controls takes up to 2^(k+1) CNOTs; beyond this many the basis form would swamp the circuit
 * (a 29-controlled Z of a 30-qubit search is 2^30 CNOTs), so such circuits keep their gates.
 */
const MAX_LOWERED_CONTROLS = 4;

/** O3's last step: the basis form when it beats the high-level gates lowered one by one, else those gates. */
export function basisStage(gates: readonly Gate[], numQubits: number): Gate[] {
  if (gates.some((g) => g.control_qubits.length + (g.name === 'SWAP' ? 1 : 0) > MAX_LOWERED_CONTROLS))
    return [...gates];
  const optimised = optimizeInBasis(gates, numQubits);
  return cheaper(basisCost(optimised), basisCost(lowerGates(gates))) ? optimised : [...gates];
}
