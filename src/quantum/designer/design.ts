/**
 * The designer (CONTRACT §17.3): primitives placed side by side in list order, each on its own qubits, then the
 * optimiser at the requested level.
 */
import { InvalidInputError } from '../../shared/domain-errors.js';
import { rfc3339 } from '../../shared/time.js';
import { shiftGate } from '../ir/build.js';
import { IR_VERSION } from '../ir/load.js';
import type { Circuit, Gate, QuantumIR } from '../ir/types.js';
import { optimizeCircuit, type OptimizationLevel, type OptimizationStats } from '../optimizer/optimize.js';
import { inferPrimitives } from './infer.js';
import type { AlgorithmInput } from './input.js';
import { validateParams, type ParamMap } from './params.js';
import { findPrimitive, type Primitive } from './primitives.js';

export interface DesignOptions {
  readonly optimizationLevel: OptimizationLevel;
  /** `-p k=v` values (highest precedence). */
  readonly params?: ParamMap;
  readonly now?: Date;
}

export interface DesignResult {
  readonly ir: QuantumIR;
  readonly stats: OptimizationStats;
}

function resolvePrimitives(input: AlgorithmInput, notes: string[]): Primitive[] {
  const ids = input.primitives ?? inferPrimitives(input.id, input.name);
  const found: Primitive[] = [];
  for (const id of ids) {
    const p = findPrimitive(id);
    if (p === undefined) notes.push(`unknown primitive ${id}; skipped`);
    else found.push(p);
  }
  if (found.length === 0)
    throw new InvalidInputError(`no built-in primitive among: ${ids.join(', ')} (see --list-primitives)`);
  return found;
}

export function designCircuit(input: AlgorithmInput, options: DesignOptions): DesignResult {
  const notes = [...input.notes];
  const merged: ParamMap = {
    ...(input.qubitCount === null ? {} : { num_qubits: input.qubitCount }),
    ...input.inputParams,
    ...(options.params ?? {}),
  };
  const params = validateParams(merged, notes);
  const primitives = resolvePrimitives(input, notes);

  const ctx = { params, notes };
  const gates: Gate[] = [];
  const qubitMapping: Record<string, Record<string, number>> = {};
  const effective: ParamMap = { ...params };
  const reported = new Set<string>();
  let offset = 0;
  for (const p of primitives) {
    const width = p.width(ctx);
    for (const g of p.generate(ctx)) gates.push(shiftGate(g, offset));
    let key = p.id;
    for (let k = 2; Object.hasOwn(qubitMapping, key); k++) key = `${p.id}#${k}`;
    qubitMapping[key] = Object.fromEntries(Array.from({ length: width }, (_, j) => [String(j), offset + j]));
    // The first primitive that uses a parameter reports its value (normalised, e.g. `marked` as a bitstring).
    for (const [k, v] of Object.entries(p.effectiveParams(ctx)))
      if (!reported.has(k)) {
        effective[k] = v;
        reported.add(k);
      }
    offset += width;
  }

  const circuit: Circuit = {
    name: `circuit_${input.id}`,
    num_qubits: offset,
    num_clbits: 0,
    qubit_labels: Array.from({ length: offset }, (_, i) => `q${i}`),
    qubit_mapping: Object.fromEntries(Array.from({ length: offset }, (_, i) => [String(i), i])),
    gates,
  };
  const optimized = optimizeCircuit(circuit, options.optimizationLevel);
  return {
    ir: {
      version: IR_VERSION,
      algorithm_id: input.id,
      optimization_level: options.optimizationLevel,
      created_at: rfc3339(options.now ?? new Date()),
      metadata: {
        primitives_used: primitives.map((p) => p.id),
        qubit_mapping: qubitMapping,
        circuit_params: effective,
        validation_errors: notes,
      },
      circuit: optimized.circuit,
    },
    stats: optimized.stats,
  };
}
