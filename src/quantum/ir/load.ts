/**
 * Loading the Quantum IR (CONTRACT §17.2): defaults for absent fields, canonical gate names and the validation
 * rules. Every problem is an `InvalidInputError` with the message `invalid IR: <reason>`.
 */
import { InvalidInputError } from '../../shared/domain-errors.js';
import { rfc3339 } from '../../shared/time.js';
import { canonicalGateName, gateSpec } from './gates.js';
import type { Circuit, Gate, GateParams, IRMetadata, QuantumIR } from './types.js';

export const IR_VERSION = '1.0.0';

/** Upper bound of `num_qubits` and `num_clbits`: far beyond anything simulable, small enough to never exhaust memory. */
export const MAX_IR_WIDTH = 4096;

export interface LoadOptions {
  /** Accept a bare circuit object (codegen, validator, estimator). */
  readonly allowBareCircuit?: boolean;
  /** The `created_at` default; now when absent. */
  readonly now?: Date;
}

function fail(reason: string): never {
  throw new InvalidInputError(`invalid IR: ${reason}`);
}

type Obj = Record<string, unknown>;

const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Parses JSON text and loads it; a syntax error is an invalid IR too. */
export function parseQuantumIR(text: string, options: LoadOptions = {}): QuantumIR {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    fail(`not valid JSON (${(err as Error).message})`);
  }
  return loadQuantumIR(value, options);
}

/** Validates a parsed IR document (or, with `allowBareCircuit`, a bare circuit) and fills in the defaults. */
export function loadQuantumIR(value: unknown, options: LoadOptions = {}): QuantumIR {
  if (!isObject(value)) fail('expected a JSON object');
  const bare = !('circuit' in value) && options.allowBareCircuit === true && 'num_qubits' in value;
  if (!bare && !('circuit' in value)) fail('missing circuit');
  const doc: Obj = bare ? { circuit: value } : value;
  const circuit = loadCircuit(doc.circuit);
  return {
    version: optionalString(doc, 'version', IR_VERSION),
    algorithm_id: optionalString(doc, 'algorithm_id', ''),
    optimization_level: optionalInteger(doc, 'optimization_level', 0),
    created_at: optionalString(doc, 'created_at', rfc3339(options.now ?? new Date())),
    metadata: loadMetadata(doc.metadata),
    circuit,
  };
}

function optionalString(obj: Obj, key: string, fallback: string): string {
  const v = obj[key];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'string') fail(`${key} must be a string`);
  return v;
}

function optionalInteger(obj: Obj, key: string, fallback: number): number {
  const v = obj[key];
  if (v === undefined || v === null) return fallback;
  if (!Number.isInteger(v)) fail(`${key} must be an integer`);
  return v as number;
}

function loadMetadata(value: unknown): IRMetadata {
  if (value === undefined || value === null) value = {};
  if (!isObject(value)) fail('metadata must be an object');
  const primitives = value.primitives_used ?? [];
  if (!Array.isArray(primitives) || !primitives.every((p) => typeof p === 'string'))
    fail('metadata.primitives_used must be a list of strings');
  const errors = value.validation_errors ?? [];
  if (!Array.isArray(errors) || !errors.every((p) => typeof p === 'string'))
    fail('metadata.validation_errors must be a list of strings');
  const mapping = value.qubit_mapping ?? {};
  if (!isObject(mapping)) fail('metadata.qubit_mapping must be an object');
  const qubitMapping: IRMetadata['qubit_mapping'] = {};
  for (const [k, v] of Object.entries(mapping)) qubitMapping[k] = loadMapping(v, `metadata.qubit_mapping.${k}`);
  const params = value.circuit_params ?? {};
  if (!isObject(params)) fail('metadata.circuit_params must be an object');
  return {
    primitives_used: primitives as string[],
    qubit_mapping: qubitMapping,
    circuit_params: params,
    validation_errors: errors as string[],
  };
}

function loadMapping(value: unknown, where: string): Record<string, number> {
  if (!isObject(value)) fail(`${where} must be an object`);
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(value)) {
    if (!Number.isInteger(v) || (v as number) < 0) fail(`${where}["${k}"] must be a non-negative integer`);
    out[k] = v as number;
  }
  return out;
}

function loadCircuit(value: unknown): Circuit {
  if (!isObject(value)) fail('circuit must be an object');
  const n = value.num_qubits;
  if (n === undefined) fail('missing circuit.num_qubits');
  if (!Number.isInteger(n) || (n as number) < 1) fail('circuit.num_qubits must be a positive integer');
  if ((n as number) > MAX_IR_WIDTH) fail(`circuit.num_qubits must be at most ${MAX_IR_WIDTH}`);
  const numQubits = n as number;
  const m = value.num_clbits ?? 0;
  if (!Number.isInteger(m) || (m as number) < 0) fail('circuit.num_clbits must be a non-negative integer');
  if ((m as number) > MAX_IR_WIDTH) fail(`circuit.num_clbits must be at most ${MAX_IR_WIDTH}`);
  const numClbits = m as number;

  let labels: string[];
  if (value.qubit_labels === undefined || value.qubit_labels === null) {
    labels = Array.from({ length: numQubits }, (_, i) => `q${i}`);
  } else {
    const l = value.qubit_labels;
    if (!Array.isArray(l) || !l.every((x) => typeof x === 'string') || l.length !== numQubits)
      fail(`circuit.qubit_labels must be a list of ${numQubits} strings`);
    labels = l as string[];
  }
  const mapping =
    value.qubit_mapping === undefined || value.qubit_mapping === null
      ? Object.fromEntries(Array.from({ length: numQubits }, (_, i) => [String(i), i]))
      : loadMapping(value.qubit_mapping, 'circuit.qubit_mapping');

  const rawGates = value.gates ?? [];
  if (!Array.isArray(rawGates)) fail('circuit.gates must be a list');
  const gates = rawGates.map((g, i) => loadGate(g, i, numQubits, numClbits));
  return {
    name: optionalString(value, 'name', ''),
    num_qubits: numQubits,
    num_clbits: numClbits,
    qubit_labels: labels,
    qubit_mapping: mapping,
    gates,
  };
}

function intList(value: unknown, where: () => string, field: string): number[] {
  if (!Array.isArray(value) || !value.every((x) => Number.isInteger(x)))
    fail(`${where()}: ${field} must be a list of integers`);
  return value as number[];
}

function loadGate(value: unknown, index: number, numQubits: number, numClbits: number): Gate {
  if (!isObject(value)) fail(`gate ${index}: expected an object`);
  if (typeof value.name !== 'string' || value.name.trim() === '')
    fail(`gate ${index}: name must be a non-empty string`);
  const name = canonicalGateName(value.name.trim());
  const where = () => `gate ${index} (${name})`;
  if (value.target_qubits === undefined) fail(`${where()}: missing target_qubits`);
  const targets = intList(value.target_qubits, where, 'target_qubits');
  const controls = intList(value.control_qubits ?? [], where, 'control_qubits');
  const clbits = intList(value.classical_bits ?? [], where, 'classical_bits');
  const rawParams = value.params ?? {};
  if (!isObject(rawParams)) fail(`${where()}: params must be an object`);

  const seen = new Set<number>();
  for (const q of [...targets, ...controls]) {
    if (q < 0 || q >= numQubits) fail(`${where()}: qubit ${q} out of range [0, ${numQubits})`);
    if (seen.has(q))
      fail(
        targets.includes(q) && controls.includes(q)
          ? `${where()}: qubit ${q} is both a target and a control`
          : `${where()}: duplicate qubit ${q}`,
      );
    seen.add(q);
  }

  const spec = gateSpec(name);
  const params: GateParams = {};
  if (spec === undefined) {
    // Unknown gates are kept (designer, codegen); only numeric params survive typing.
    for (const [k, v] of Object.entries(rawParams)) if (typeof v === 'number') params[k] = v;
    return { name, target_qubits: targets, control_qubits: controls, params, classical_bits: clbits };
  }
  if (typeof spec.targets === 'number' && targets.length !== spec.targets)
    fail(`${where()}: expects ${spec.targets} target${spec.targets === 1 ? '' : 's'}, got ${targets.length}`);
  if (spec.targets === 'k' && targets.length === 0) fail(`${where()}: expects at least one target`);
  if (spec.fixedControls === 0 && controls.length > 0) fail(`${where()}: cannot have controls`);
  if (spec.fixedControls !== null && spec.fixedControls > 0 && controls.length !== spec.fixedControls)
    fail(
      `${where()}: expects exactly ${spec.fixedControls} control${spec.fixedControls === 1 ? '' : 's'}, got ${controls.length}`,
    );
  for (const p of spec.params) {
    const v = rawParams[p];
    if (v === undefined) fail(`${where()}: missing param ${p}`);
    if (typeof v !== 'number' || !Number.isFinite(v)) fail(`${where()}: param ${p} must be a finite number`);
    params[p] = v;
  }
  if (name === 'MEASURE') {
    if (clbits.length !== targets.length)
      fail(`${where()}: needs as many classical_bits as targets (${clbits.length} vs ${targets.length})`);
    for (const c of clbits)
      if (c < 0 || c >= numClbits) fail(`${where()}: classical bit ${c} out of range [0, ${numClbits})`);
  }
  return { name, target_qubits: targets, control_qubits: controls, params, classical_bits: clbits };
}
