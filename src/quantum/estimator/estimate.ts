/** `pks estimator` (CONTRACT §17.6): circuit statistics, execution-time estimate and suggestions. */
import { InvalidInputError } from '../../shared/domain-errors.js';
import { rfc3339 } from '../../shared/time.js';
import { gate, measure } from '../ir/build.js';
import { gateCountsByType, gateLayers, gateQubits, isBarrier, qubitsUsed } from '../ir/metrics.js';
import type { Circuit, Gate, QuantumIR } from '../ir/types.js';

export interface HardwareParams {
  /** ns */
  gate_time: number;
  /** ns */
  two_qubit_gate_time: number;
  /** ns */
  measurement_time: number;
  /** µs */
  coherence_time: number;
}

export const DEFAULT_GATE_TIME_NS = 50;
export const DEFAULT_MEASUREMENT_TIME_NS = 300;
export const DEFAULT_COHERENCE_TIME_US = 100;

const HARDWARE_KEYS = ['gate_time', 'two_qubit_gate_time', 'measurement_time', 'coherence_time'] as const;

/**
 * Parses `--hardware-params`: a JSON object whose known keys are numbers. Errors carry the CLI's text
 * (`Invalid JSON in hardware parameters: …`, `Parameter <k> must be a number`).
 */
export function parseHardwareParams(text: string): HardwareParams {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new InvalidInputError(`Invalid JSON in hardware parameters: ${(err as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new InvalidInputError('Invalid JSON in hardware parameters: expected an object');
  const obj = value as Record<string, unknown>;
  for (const k of HARDWARE_KEYS) {
    const v = obj[k];
    if (v === undefined) continue;
    if (typeof v !== 'number' || !Number.isFinite(v)) throw new InvalidInputError(`Parameter ${k} must be a number`);
    if (v < 0) throw new InvalidInputError(`Parameter ${k} must not be negative`);
  }
  const gateTime = (obj.gate_time as number | undefined) ?? DEFAULT_GATE_TIME_NS;
  return {
    gate_time: gateTime,
    two_qubit_gate_time: (obj.two_qubit_gate_time as number | undefined) ?? 2 * gateTime,
    measurement_time: (obj.measurement_time as number | undefined) ?? DEFAULT_MEASUREMENT_TIME_NS,
    coherence_time: (obj.coherence_time as number | undefined) ?? DEFAULT_COHERENCE_TIME_US,
  };
}

export interface CircuitStatistics {
  total_gates: number;
  single_qubit_gates: number;
  two_qubit_gates: number;
  multi_qubit_gates: number;
  measurement_gates: number;
  num_qubits: number;
  num_clbits: number;
  qubits_used: number;
  depth: number;
  t_gates: number;
  parallelism: number;
  gate_counts: Record<string, number>;
}

export interface ExecutionTimeEstimate {
  sequential_ns: number;
  critical_path_ns: number;
  estimated_time_ms: number;
  coherence_limited: boolean;
}

export interface Suggestion {
  category: string;
  description: string;
  priority: 'high' | 'medium' | 'low';
  potential_impact: string;
}

export interface EstimateReport {
  report_metadata: { algorithm_name: string; generated_at: string; version: '1.0' };
  circuit_statistics: CircuitStatistics;
  circuit_info?: { name: string; algorithm_id: string; num_qubits: number; num_clbits: number };
  hardware_parameters?: HardwareParams;
  execution_time_estimate?: ExecutionTimeEstimate;
  optimization_suggestions?: Suggestion[];
}

export function circuitStatistics(c: Circuit): CircuitStatistics {
  let single = 0;
  let two = 0;
  let multi = 0;
  let measurements = 0;
  let t = 0;
  for (const g of c.gates) {
    if (isBarrier(g)) continue;
    if (g.name === 'T' || g.name === 'TDG') t++;
    if (g.name === 'MEASURE') {
      measurements++;
      continue;
    }
    const touched = gateQubits(g).length;
    if (touched <= 1) single++;
    else if (touched === 2) two++;
    else multi++;
  }
  const total = single + two + multi + measurements;
  const layers = gateLayers(c);
  const depth = layers.reduce((a, b) => Math.max(a, b), 0);
  return {
    total_gates: total,
    single_qubit_gates: single,
    two_qubit_gates: two,
    multi_qubit_gates: multi,
    measurement_gates: measurements,
    num_qubits: c.num_qubits,
    num_clbits: c.num_clbits,
    qubits_used: qubitsUsed(c).length,
    depth,
    t_gates: t,
    parallelism: depth === 0 ? 0 : total / depth,
    gate_counts: gateCountsByType(c),
  };
}

function gateTime(g: Gate, hw: HardwareParams): number {
  if (g.name === 'MEASURE') return hw.measurement_time;
  return gateQubits(g).length >= 2 ? hw.two_qubit_gate_time : hw.gate_time;
}

export function executionTime(c: Circuit, hw: HardwareParams): ExecutionTimeEstimate {
  const layers = gateLayers(c);
  const longest = new Map<number, number>();
  let sequential = 0;
  c.gates.forEach((g, i) => {
    if (isBarrier(g)) return;
    const t = gateTime(g, hw);
    sequential += t;
    longest.set(layers[i]!, Math.max(longest.get(layers[i]!) ?? 0, t));
  });
  let critical = 0;
  for (const t of longest.values()) critical += t;
  return {
    sequential_ns: sequential,
    critical_path_ns: critical,
    estimated_time_ms: critical / 1e6,
    coherence_limited: critical > hw.coherence_time * 1000,
  };
}

export function suggestions(s: CircuitStatistics, time: ExecutionTimeEstimate | undefined): Suggestion[] {
  const out: Suggestion[] = [];
  if (s.t_gates > 100)
    out.push({
      category: 'T-Gate Reduction',
      description: `${s.t_gates} T/T† gates dominate fault-tolerant cost; apply T-count optimisation or gate synthesis`,
      priority: 'high',
      potential_impact: 'Large reduction of magic-state distillation cost',
    });
  else if (s.t_gates > 10)
    out.push({
      category: 'T-Gate Reduction',
      description: `${s.t_gates} T/T† gates; consider T-count optimisation`,
      priority: 'medium',
      potential_impact: 'Lower fault-tolerant overhead',
    });
  if (s.total_gates > 0 && s.depth > 0.8 * s.total_gates)
    out.push({
      category: 'Circuit Depth',
      description: `Depth ${s.depth} is close to the gate count ${s.total_gates}: the circuit is mostly sequential`,
      priority: 'medium',
      potential_impact: 'Shorter execution time and less decoherence',
    });
  if (s.parallelism < 1.2 && s.total_gates > 5)
    out.push({
      category: 'Parallelization',
      description: `Parallelism ${s.parallelism.toFixed(2)}: few gates run in the same layer; reorder commuting gates`,
      priority: 'low',
      potential_impact: 'Better use of simultaneous gate execution',
    });
  if (time !== undefined && time.coherence_limited)
    out.push({
      category: 'Coherence Time',
      description: `Critical path ${time.critical_path_ns} ns exceeds the coherence time`,
      priority: 'high',
      potential_impact: 'Results will be dominated by decoherence unless depth is reduced or error correction is used',
    });
  if (s.qubits_used < s.num_qubits)
    out.push({
      category: 'Resource Utilization',
      description: `${s.num_qubits - s.qubits_used} of ${s.num_qubits} qubits are never used`,
      priority: 'low',
      potential_impact: 'Fewer physical qubits required',
    });
  const nonMeasure = s.total_gates - s.measurement_gates;
  if (nonMeasure > 0 && s.two_qubit_gates / nonMeasure > 0.5)
    out.push({
      category: 'Two-Qubit Gates',
      description: `${s.two_qubit_gates} of ${nonMeasure} gates act on two qubits; two-qubit gates have the highest error rates`,
      priority: 'medium',
      potential_impact: 'Higher fidelity on hardware',
    });
  return out;
}

export interface EstimateOptions {
  readonly algorithmName?: string;
  readonly hardware?: HardwareParams;
  readonly now?: Date;
}

export function estimateResources(ir: QuantumIR, options: EstimateOptions = {}): EstimateReport {
  const c = ir.circuit;
  const stats = circuitStatistics(c);
  const time = options.hardware === undefined ? undefined : executionTime(c, options.hardware);
  const tips = suggestions(stats, time);
  return {
    report_metadata: {
      algorithm_name: options.algorithmName || c.name || 'Unknown',
      generated_at: rfc3339(options.now ?? new Date()),
      version: '1.0',
    },
    circuit_statistics: stats,
    circuit_info: { name: c.name, algorithm_id: ir.algorithm_id, num_qubits: c.num_qubits, num_clbits: c.num_clbits },
    ...(options.hardware === undefined ? {} : { hardware_parameters: options.hardware, execution_time_estimate: time }),
    ...(tips.length > 0 ? { optimization_suggestions: tips } : {}),
  };
}

/** The `--demo` circuit: Bell state with both qubits measured. */
export function demoCircuit(): Circuit {
  return {
    name: 'Bell State Demo',
    num_qubits: 2,
    num_clbits: 2,
    qubit_labels: ['q0', 'q1'],
    qubit_mapping: { '0': 0, '1': 1 },
    gates: [gate('H', [0]), gate('CNOT', [1], [0]), measure([0], [0]), measure([1], [1])],
  };
}
