/**
 * The shape codegen works from: every IR gate as (one-qubit base gate or SWAP, controls, targets, angles).
 * CNOT/CCX are X with their controls and CZ is Z with its control, so `X` with one control and `CNOT` print alike.
 */
import { baseGateName, gateSpec } from '../ir/gates.js';
import type { Gate } from '../ir/types.js';

export type GateForm =
  | { kind: 'unitary'; base: string; controls: number[]; targets: number[]; angles: number[] }
  | { kind: 'measure'; qubits: number[]; clbits: number[] }
  | { kind: 'barrier'; qubits: number[] }
  | { kind: 'unknown'; name: string };

export function gateForm(g: Gate): GateForm {
  if (g.name === 'MEASURE') return { kind: 'measure', qubits: g.target_qubits, clbits: g.classical_bits };
  if (g.name === 'BARRIER') return { kind: 'barrier', qubits: g.target_qubits };
  const spec = gateSpec(g.name);
  if (spec === undefined) return { kind: 'unknown', name: g.name };
  return {
    kind: 'unitary',
    base: baseGateName(g.name),
    controls: g.control_qubits,
    targets: g.target_qubits,
    angles: spec.params.map((p) => g.params[p]!),
  };
}

/** The shortest decimal that reads back as the same float (ECMAScript `Number#toString`); never rounded. */
export function formatAngle(x: number): string {
  return String(x);
}

/**
 * `formatAngle` in OpenQASM 2.0's real-literal grammar (`[0-9]+\.[0-9]*([eE][-+]?[0-9]+)?` and the like): an
 * exponent form always carries a decimal point (`1e-7` → `1.0e-7`, the subnormal `5e-324` → `5.0e-324`), which strict
 * parsers (Qiskit's `qasm2.loads(strict=True)`) require. The digits are unchanged, so the value reads back exactly.
 */
export function formatQasm2Real(x: number): string {
  const text = formatAngle(x);
  const e = text.indexOf('e');
  return e >= 0 && !text.slice(0, e).includes('.') ? `${text.slice(0, e)}.0${text.slice(e)}` : text;
}

/** A Python/JSON string literal (JSON escapes are valid Python escapes). */
export function pyString(text: string): string {
  return JSON.stringify(text);
}

/** Text safe inside a Python triple-quoted docstring. */
export function docstringText(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/"""/g, '\\"\\"\\"');
}

/** Text safe on one `//` comment line. */
export function commentText(text: string): string {
  return text.replace(/[\r\n]+/g, ' ');
}

export interface CodegenInput {
  readonly algorithmId: string;
  readonly numQubits: number;
  readonly numClbits: number;
  readonly gates: readonly Gate[];
  readonly description: string;
  /** Shown in the header. */
  readonly generatedAt: string;
}
