/** Small constructors for IR gates (designer primitives, built-in references, tests of the library). */
import type { Gate, GateParams } from './types.js';

export function gate(name: string, targets: number[], controls: number[] = [], params: GateParams = {}): Gate {
  return { name, target_qubits: targets, control_qubits: controls, params, classical_bits: [] };
}

export function measure(targets: number[], clbits: number[]): Gate {
  return { name: 'MEASURE', target_qubits: targets, control_qubits: [], params: {}, classical_bits: clbits };
}

/** A copy of `g` with every qubit index shifted by `offset`. */
export function shiftGate(g: Gate, offset: number): Gate {
  return {
    name: g.name,
    target_qubits: g.target_qubits.map((q) => q + offset),
    control_qubits: g.control_qubits.map((q) => q + offset),
    params: { ...g.params },
    classical_bits: [...g.classical_bits],
  };
}
