/** The Quantum IR of CONTRACT §17.2, after loading (every field present, names canonical). */

export type GateParams = Record<string, number>;

export interface Gate {
  /** Upper-case, aliases resolved (`CX` → `CNOT`, `U1` → `P`, `TOFFOLI` → `CCX`); unknown names kept as read. */
  name: string;
  target_qubits: number[];
  control_qubits: number[];
  /** Angles in radians. */
  params: GateParams;
  classical_bits: number[];
}

export interface Circuit {
  name: string;
  num_qubits: number;
  num_clbits: number;
  qubit_labels: string[];
  /** Logical → physical, string keys. */
  qubit_mapping: Record<string, number>;
  gates: Gate[];
}

export interface IRMetadata {
  primitives_used: string[];
  qubit_mapping: Record<string, Record<string, number>>;
  circuit_params: Record<string, unknown>;
  validation_errors: string[];
}

export interface QuantumIR {
  version: string;
  algorithm_id: string;
  optimization_level: number;
  created_at: string;
  metadata: IRMetadata;
  circuit: Circuit;
}
