/** Derived values of a circuit (CONTRACT §17.2): counts, depth, qubits used. BARRIER never counts. */
import type { Circuit, Gate } from './types.js';

/** Target and control qubits of a gate. */
export function gateQubits(gate: Gate): number[] {
  return gate.control_qubits.length === 0 ? gate.target_qubits : [...gate.control_qubits, ...gate.target_qubits];
}

export const isBarrier = (gate: Gate): boolean => gate.name === 'BARRIER';

/**
 * The layer (1-based) each gate lands in: per-qubit counters over targets ∪ controls, a gate lands at max + 1.
 * Barriers get layer 0 and move no counter.
 */
export function gateLayers(circuit: Circuit): number[] {
  const level = new Array<number>(circuit.num_qubits).fill(0);
  return circuit.gates.map((g) => {
    if (isBarrier(g)) return 0;
    const qs = gateQubits(g);
    let layer = 0;
    for (const q of qs) layer = Math.max(layer, level[q]!);
    layer += 1;
    for (const q of qs) level[q] = layer;
    return layer;
  });
}

export function circuitDepth(circuit: Circuit): number {
  let depth = 0;
  for (const l of gateLayers(circuit)) depth = Math.max(depth, l);
  return depth;
}

export function gateCount(circuit: Circuit): number {
  let n = 0;
  for (const g of circuit.gates) if (!isBarrier(g)) n++;
  return n;
}

/** Counts by gate name, keys sorted. */
export function gateCountsByType(circuit: Circuit): Record<string, number> {
  const counts = new Map<string, number>();
  for (const g of circuit.gates) if (!isBarrier(g)) counts.set(g.name, (counts.get(g.name) ?? 0) + 1);
  return Object.fromEntries([...counts.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Qubits touched by any non-barrier gate, ascending. */
export function qubitsUsed(circuit: Circuit): number[] {
  const used = new Set<number>();
  for (const g of circuit.gates) if (!isBarrier(g)) for (const q of gateQubits(g)) used.add(q);
  return [...used].sort((a, b) => a - b);
}

/** Gates touching exactly two qubits. */
export function twoQubitGateCount(circuit: Circuit): number {
  let n = 0;
  for (const g of circuit.gates) if (!isBarrier(g) && gateQubits(g).length === 2) n++;
  return n;
}

/** Gates touching two or more qubits. */
export function nonlocalGateCount(circuit: Circuit): number {
  let n = 0;
  for (const g of circuit.gates) if (!isBarrier(g) && gateQubits(g).length >= 2) n++;
  return n;
}

export interface CircuitMetrics {
  gate_count: number;
  gate_counts_by_type: Record<string, number>;
  depth: number;
  qubits_used: number[];
  two_qubit_gates: number;
  num_nonlocal_gates: number;
}

export function circuitMetrics(circuit: Circuit): CircuitMetrics {
  return {
    gate_count: gateCount(circuit),
    gate_counts_by_type: gateCountsByType(circuit),
    depth: circuitDepth(circuit),
    qubits_used: qubitsUsed(circuit),
    two_qubit_gates: twoQubitGateCount(circuit),
    num_nonlocal_gates: nonlocalGateCount(circuit),
  };
}
