/** The optimiser levels O0–O3 (CONTRACT §17.3); every level preserves the unitary up to global phase. */
import { circuitDepth, gateCount } from '../ir/metrics.js';
import type { Circuit } from '../ir/types.js';
import { basisStage } from './basis.js';
import { cancelAndMerge } from './cancel.js';
import { fuseSingleQubitRuns } from './fuse.js';

export type OptimizationLevel = 0 | 1 | 2 | 3;

export interface OptimizationStats {
  gates_removed: number;
  depth_reduction: number;
  gates_fused: number;
}

export interface OptimizationResult {
  circuit: Circuit;
  stats: OptimizationStats;
}

export function optimizeCircuit(circuit: Circuit, level: OptimizationLevel): OptimizationResult {
  let gates = circuit.gates;
  let fused = 0;
  // One pass reaches the fixpoint: it also cancels the pairs its own removals expose (see cancel.ts).
  if (level >= 1) gates = cancelAndMerge(gates, circuit.num_qubits, level >= 2);
  if (level >= 3) {
    const result = fuseSingleQubitRuns(gates, circuit.num_qubits);
    gates = basisStage(result.gates, circuit.num_qubits);
    fused = result.fused;
  }
  const out = { ...circuit, gates };
  return {
    circuit: out,
    stats: {
      gates_removed: gateCount(circuit) - gateCount(out),
      depth_reduction: circuitDepth(circuit) - circuitDepth(out),
      gates_fused: fused,
    },
  };
}
