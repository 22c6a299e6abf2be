/**
 * O3 fusion (CONTRACT §17.3): each maximal run of ≥ 2 uncontrolled one-qubit gates on one qubit (consecutive in
 * that qubit's timeline) becomes one `U` with the exact product's ZYZ angles, placed where the run starts; a run
 * whose product is the identity up to phase disappears.
 */
import { gateSpec } from '../ir/gates.js';
import { gate } from '../ir/build.js';
import { gateQubits } from '../ir/metrics.js';
import type { Gate } from '../ir/types.js';
import { multiply, oneQubitMatrix } from '../sim/matrices.js';
import { isIdentityUpToPhase, zyzAngles } from './zyz.js';

function isFusable(g: Gate): boolean {
  const spec = gateSpec(g.name);
  return (
    spec !== undefined &&
    spec.unitary &&
    spec.targets === 1 &&
    spec.fixedControls === null &&
    g.control_qubits.length === 0
  );
}

export interface FuseResult {
  gates: Gate[];
  /** Gates that went into a fused run. */
  fused: number;
}

export function fuseSingleQubitRuns(gates: readonly Gate[], numQubits: number): FuseResult {
  const runs: number[][] = [];
  const open: (number[] | null)[] = new Array<number[] | null>(numQubits).fill(null);
  const close = (q: number) => {
    const run = open[q];
    if (run && run.length >= 2) runs.push(run);
    open[q] = null;
  };
  gates.forEach((g, i) => {
    if (isFusable(g)) {
      const q = g.target_qubits[0]!;
      (open[q] ??= []).push(i);
      return;
    }
    const qs =
      g.name === 'BARRIER' && g.target_qubits.length === 0
        ? Array.from({ length: numQubits }, (_, q) => q)
        : gateQubits(g);
    for (const q of qs) close(q);
  });
  for (let q = 0; q < numQubits; q++) close(q);

  const replacement = new Map<number, Gate | null>();
  let fused = 0;
  for (const run of runs) {
    let m = oneQubitMatrix(gates[run[0]!]!.name, gates[run[0]!]!.params);
    for (const i of run.slice(1)) m = multiply(oneQubitMatrix(gates[i]!.name, gates[i]!.params), m);
    const q = gates[run[0]!]!.target_qubits[0]!;
    const { theta, phi, lambda } = zyzAngles(m);
    replacement.set(run[0]!, isIdentityUpToPhase(m) ? null : gate('U', [q], [], { theta, phi, lambda }));
    for (const i of run.slice(1)) replacement.set(i, null);
    fused += run.length;
  }
  const out: Gate[] = [];
  gates.forEach((g, i) => {
    const r = replacement.has(i) ? replacement.get(i)! : g;
    if (r !== null) out.push(r);
  });
  return { gates: out, fused };
}
