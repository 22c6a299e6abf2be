/**
 * Reading a program written by `pks codegen` back into a circuit (`pks validator --check-codegen`, CONTRACT
 * §17.5). Only the line forms of §17.4 are recognised; anything else is an error naming the line.
 */
import { InvalidInputError } from '../../shared/domain-errors.js';
import { gate, measure } from '../ir/build.js';
import { gateSpec } from '../ir/gates.js';
import type { Circuit, Gate } from '../ir/types.js';
import type { Backend } from './generate.js';
import { byName, FIXED_ONE_QUBIT_LOWER, SHARED_LOWER } from './gate-names.js';
import { QASM2_CONTROLLED, QASM2_DEFINITIONS } from './qasm.js';
import { QPANDA_FIXED_ONE_QUBIT } from './qpanda.js';
import { QISKIT_GATE_CLASS } from './qiskit.js';

export interface ParsedProgram {
  readonly backend: Backend;
  readonly circuit: Circuit;
}

class LineError extends InvalidInputError {}

function lineError(lineNo: number, line: string, why = 'unrecognised line'): never {
  throw new LineError(`${why} ${lineNo}: ${line.trim()}`);
}

export function detectBackend(text: string): Backend | null {
  if (/^\s*OPENQASM\s+2(\.0)?\s*;/m.test(text)) return 'qasm2';
  if (/^\s*OPENQASM\s+3(\.0)?\s*;/m.test(text)) return 'qasm3';
  if (/^\s*from pyqpanda import/m.test(text)) return 'qpanda';
  if (/^\s*from qiskit import/m.test(text)) return 'qiskit';
  return null;
}

export function parseProgram(text: string): ParsedProgram {
  const backend = detectBackend(text);
  if (backend === null)
    throw new InvalidInputError('not a program written by pks codegen (no OpenQASM header, qiskit or pyqpanda import)');
  const lines = text.split(/\r?\n/);
  switch (backend) {
    case 'qiskit':
      return { backend, circuit: parseQiskit(lines) };
    case 'qpanda':
      return { backend, circuit: parseQpanda(lines) };
    case 'qasm2':
    case 'qasm3':
      return { backend, circuit: parseQasm(lines, backend === 'qasm2' ? 2 : 3) };
  }
}

function angle(token: string, lineNo: number, line: string): number {
  const t = token.trim();
  const v = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t) ? Number(t) : Number.NaN;
  if (!Number.isFinite(v)) lineError(lineNo, line, 'bad angle on line');
  return v;
}

function index(token: string, lineNo: number, line: string): number {
  const t = token.trim();
  if (!/^\d+$/.test(t)) lineError(lineNo, line, 'bad qubit index on line');
  return Number(t);
}

const splitArgs = (s: string): string[] => (s.trim() === '' ? [] : s.split(',').map((x) => x.trim()));

/** Lines of a Python function body: from `def <name>(` to the next top-level line. */
function functionBody(lines: string[], name: string): { lineNo: number; text: string }[] {
  const start = lines.findIndex((l) => l.startsWith(`def ${name}(`));
  if (start < 0) throw new InvalidInputError(`program has no ${name}() function`);
  const body: { lineNo: number; text: string }[] = [];
  let inDocstring = false;
  for (let i = start + 1; i < lines.length; i++) {
    const raw = lines[i]!;
    if (raw.trim() !== '' && !/^\s/.test(raw)) break;
    const text = raw.trim();
    if (text.startsWith('"""')) {
      if (!(text.length > 3 && text.endsWith('"""'))) inDocstring = !inDocstring;
      continue;
    }
    if (inDocstring || text === '') continue;
    body.push({ lineNo: i + 1, text });
  }
  return body;
}

interface Registers {
  numQubits: number | null;
  numClbits: number;
}

function finish(reg: Registers, gates: Gate[]): Circuit {
  if (reg.numQubits === null) throw new InvalidInputError('program declares no quantum register');
  const n = reg.numQubits;
  for (const g of gates)
    for (const q of [...g.target_qubits, ...g.control_qubits])
      if (q >= n) throw new InvalidInputError(`program uses qubit ${q} but declares ${n}`);
  return {
    name: '',
    num_qubits: n,
    num_clbits: reg.numClbits,
    qubit_labels: Array.from({ length: n }, (_, i) => `q${i}`),
    qubit_mapping: Object.fromEntries(Array.from({ length: n }, (_, i) => [String(i), i])),
    gates,
  };
}

const QISKIT_ONE = byName(FIXED_ONE_QUBIT_LOWER);
const QISKIT_ROT: Readonly<Record<string, string>> = { rx: 'RX', ry: 'RY', rz: 'RZ', p: 'P' };
const QISKIT_C1: Readonly<Record<string, string>> = { ch: 'H', cy: 'Y', csx: 'SX' };
const QISKIT_CROT: Readonly<Record<string, string>> = { crx: 'RX', cry: 'RY', crz: 'RZ', cp: 'P' };
const CLASS_TO_BASE: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(QISKIT_GATE_CLASS).map(([base, cls]) => [cls, base]),
);
function withParams(base: string, angles: number[], lineNo: number, line: string): Record<string, number> {
  const names = gateSpec(base)?.params ?? [];
  if (names.length !== angles.length) lineError(lineNo, line, 'wrong number of angles on line');
  return Object.fromEntries(names.map((n, i) => [n, angles[i]!]));
}

function parseQiskit(lines: string[]): Circuit {
  const reg: Registers = { numQubits: null, numClbits: 0 };
  const gates: Gate[] = [];
  for (const { lineNo, text } of functionBody(lines, 'create_circuit')) {
    let m: RegExpExecArray | null;
    if ((m = /^qr = QuantumRegister\((\d+), "q"\)$/.exec(text))) reg.numQubits = Number(m[1]);
    else if ((m = /^cr = ClassicalRegister\((\d+), "c"\)$/.exec(text))) reg.numClbits = Number(m[1]);
    else if (/^circuit = QuantumCircuit\(qr, cr, name=".*"\)$/.test(text) || text === 'return circuit') continue;
    else if ((m = /^# Unsupported gate: (\S+)$/.exec(text))) gates.push(gate(m[1]!, []));
    else if ((m = /^circuit\.append\((\w+)\(([^)]*)\)\.control\((\d+)\), \[([^\]]*)\]\)$/.exec(text))) {
      const base = CLASS_TO_BASE[m[1]!];
      if (base === undefined) lineError(lineNo, text);
      const k = Number(m[3]);
      const qs = splitArgs(m[4]!).map((x) => index(x, lineNo, text));
      const params = withParams(
        base,
        splitArgs(m[2]!).map((x) => angle(x, lineNo, text)),
        lineNo,
        text,
      );
      if (qs.length !== k + (base === 'SWAP' ? 2 : 1)) lineError(lineNo, text, 'wrong number of qubits on line');
      gates.push(gate(base, qs.slice(k), qs.slice(0, k), params));
    } else if (
      (m = /^circuit\.measure\(\[([^\]]*)\], \[([^\]]*)\]\)$/.exec(text)) ||
      (m = /^circuit\.measure\((\d+), (\d+)\)$/.exec(text))
    ) {
      gates.push(
        measure(
          splitArgs(m[1]!).map((x) => index(x, lineNo, text)),
          splitArgs(m[2]!).map((x) => index(x, lineNo, text)),
        ),
      );
    } else if ((m = /^circuit\.(\w+)\(([^()]*)\)$/.exec(text)))
      gates.push(qiskitCall(m[1]!, splitArgs(m[2]!), lineNo, text));
    else lineError(lineNo, text);
  }
  return finish(reg, gates);
}

function qiskitCall(method: string, args: string[], lineNo: number, line: string): Gate {
  const qs = (from: number) => args.slice(from).map((x) => index(x, lineNo, line));
  const angles = (count: number) => args.slice(0, count).map((x) => angle(x, lineNo, line));
  const arity = (count: number) => {
    if (args.length !== count) lineError(lineNo, line, 'wrong number of arguments on line');
  };
  if (method === 'barrier') return { ...gate('BARRIER', qs(0)) };
  const one = QISKIT_ONE[method];
  if (one !== undefined) return (arity(1), gate(one, qs(0)));
  const rot = QISKIT_ROT[method];
  if (rot !== undefined) return (arity(2), gate(rot, qs(1), [], withParams(rot, angles(1), lineNo, line)));
  if (method === 'u') return (arity(4), gate('U', qs(3), [], withParams('U', angles(3), lineNo, line)));
  if (method === 'swap') return (arity(2), gate('SWAP', qs(0)));
  if (method === 'cx' || method === 'cz') {
    arity(2);
    const [c, t] = qs(0);
    return gate(method === 'cx' ? 'CNOT' : 'CZ', [t!], [c!]);
  }
  if (method === 'ccx') {
    arity(3);
    const [a, b, t] = qs(0);
    return gate('CCX', [t!], [a!, b!]);
  }
  const c1 = QISKIT_C1[method];
  if (c1 !== undefined) {
    arity(2);
    const [c, t] = qs(0);
    return gate(c1, [t!], [c!]);
  }
  const crot = QISKIT_CROT[method];
  if (crot !== undefined) {
    arity(3);
    const [c, t] = qs(1);
    return gate(crot, [t!], [c!], withParams(crot, angles(1), lineNo, line));
  }
  if (method === 'cu') {
    arity(6);
    const [theta, phi, lambda, gamma] = angles(4);
    if (gamma !== 0) lineError(lineNo, line, 'cu with a non-zero global phase on line');
    const [c, t] = qs(4);
    return gate('U', [t!], [c!], { theta: theta!, phi: phi!, lambda: lambda! });
  }
  if (method === 'cswap') {
    arity(3);
    const [c, a, b] = qs(0);
    return gate('SWAP', [a!, b!], [c!]);
  }
  lineError(lineNo, line);
}

const QPANDA_ROT: Readonly<Record<string, string>> = { RX: 'RX', RY: 'RY', RZ: 'RZ', U1: 'P', U3: 'U' };
/** QPanda gates with their controls among the arguments: name → [IR name, number of controls]. */
const QPANDA_FIXED_CONTROLS: Readonly<Record<string, [string, number]>> = {
  CNOT: ['CNOT', 1],
  CZ: ['CZ', 1],
  Toffoli: ['CCX', 2],
};
const QPANDA_QUBIT = /^qubits\[(\d+)\]$/;

function qpandaQubit(token: string, lineNo: number, line: string): number {
  const m = QPANDA_QUBIT.exec(token.trim());
  if (!m) lineError(lineNo, line, 'bad qubit on line');
  return Number(m[1]);
}

function parseQpanda(lines: string[]): Circuit {
  const reg: Registers = { numQubits: null, numClbits: 0 };
  const gates: Gate[] = [];
  const structural = new Set([
    'qvm = CPUQVM()',
    'qvm.init_qvm()',
    'circuit = QCircuit()',
    'prog = QProg()',
    'prog << circuit',
    'return qvm, prog, qubits, cbits',
  ]);
  for (const { lineNo, text } of functionBody(lines, 'create_circuit')) {
    let m: RegExpExecArray | null;
    if (structural.has(text)) continue;
    if ((m = /^qubits = qvm\.qAlloc_many\((\d+)\)$/.exec(text))) reg.numQubits = Number(m[1]);
    else if ((m = /^cbits = qvm\.cAlloc_many\((\d+)\)$/.exec(text))) reg.numClbits = Number(m[1]);
    else if (text === '# barrier') gates.push(gate('BARRIER', []));
    else if ((m = /^# Unsupported gate: (\S+)$/.exec(text))) gates.push(gate(m[1]!, []));
    else if ((m = /^prog << Measure\(qubits\[(\d+)\], cbits\[(\d+)\]\)$/.exec(text)))
      gates.push(measure([Number(m[1])], [Number(m[2])]));
    else if ((m = /^circuit << (\w+)\(([^()]*)\)((?:\.dagger\(\))?)(?:\.control\(\[(.*)\]\))?$/.exec(text))) {
      const [, name, argText, dagger, controlText] = m;
      const args = splitArgs(argText!);
      const controls = controlText === undefined ? [] : splitArgs(controlText).map((x) => qpandaQubit(x, lineNo, text));
      gates.push(qpandaGate(name!, args, dagger !== '', controls, lineNo, text));
    } else lineError(lineNo, text);
  }
  return finish(reg, gates);
}

function qpandaGate(
  name: string,
  args: string[],
  dagger: boolean,
  controls: number[],
  lineNo: number,
  line: string,
): Gate {
  const arity = (count: number) => {
    if (args.length !== count) lineError(lineNo, line, 'wrong number of arguments on line');
  };
  if (dagger && name !== 'S' && name !== 'T') lineError(lineNo, line);
  const f = QPANDA_FIXED_CONTROLS[name];
  if (f !== undefined) {
    if (controls.length > 0) lineError(lineNo, line);
    arity(f[1] + 1);
    const qs = args.map((x) => qpandaQubit(x, lineNo, line));
    return gate(f[0], qs.slice(f[1]), qs.slice(0, f[1]));
  }
  if (name === 'SWAP') {
    arity(2);
    return gate(
      'SWAP',
      args.map((x) => qpandaQubit(x, lineNo, line)),
      controls,
    );
  }
  const one = QPANDA_FIXED_ONE_QUBIT[name];
  if (one !== undefined) {
    arity(1);
    const base = dagger ? `${one}DG` : one;
    return gate(base, [qpandaQubit(args[0]!, lineNo, line)], controls);
  }
  const rot = QPANDA_ROT[name];
  if (rot !== undefined) {
    const count = rot === 'U' ? 3 : 1;
    arity(count + 1);
    const angles = args.slice(1).map((x) => angle(x, lineNo, line));
    return gate(rot, [qpandaQubit(args[0]!, lineNo, line)], controls, withParams(rot, angles, lineNo, line));
  }
  lineError(lineNo, line);
}

/** name → [base, controls] for the names of `names` (base → name). */
const withControls = (names: Readonly<Record<string, string>>, k: number): Record<string, [string, number]> =>
  Object.fromEntries(Object.entries(names).map(([base, name]) => [name, [base, k]]));

const QASM_SHARED = { ...withControls(SHARED_LOWER, 0), ccx: ['X', 2] as [string, number] };

/** Each version's vocabulary: name → [base, fixed controls]. */
const QASM_VOCABULARY: Readonly<Record<2 | 3, Readonly<Record<string, [string, number]>>>> = {
  2: { ...QASM_SHARED, ...withControls({ P: 'u1', U: 'u3' }, 0), ...withControls(QASM2_CONTROLLED, 1) },
  3: { ...QASM_SHARED, ...withControls({ P: 'p', U: 'U' }, 0), ...withControls({ X: 'cx', Z: 'cz' }, 1) },
};

function qasmOperands(text: string, lineNo: number, line: string): number[] {
  return splitArgs(text).map((x) => {
    const m = /^q\[(\d+)\]$/.exec(x);
    if (!m) lineError(lineNo, line, 'bad operand on line');
    return Number(m[1]);
  });
}

const QASM2_DEFINITION_LINES = new Set(Object.values(QASM2_DEFINITIONS));

function parseQasm(lines: string[], version: 2 | 3): Circuit {
  const reg: Registers = { numQubits: null, numClbits: 0 };
  const gates: Gate[] = [];
  const vocabulary = QASM_VOCABULARY[version];
  lines.forEach((raw, i) => {
    const lineNo = i + 1;
    const code = raw.replace(/\/\/.*$/, '').trim();
    if (code === '') return;
    // The definitions codegen declares for strict readers (exactly as written; any other `gate` line is an error).
    if (version === 2 && QASM2_DEFINITION_LINES.has(code)) return;
    if (!code.endsWith(';')) lineError(lineNo, raw);
    for (const stmt of code
      .slice(0, -1)
      .split(';')
      .map((s) => s.trim())) {
      let m: RegExpExecArray | null;
      if (version === 2 && stmt === 'OPENQASM 2.0') continue;
      if (version === 3 && (stmt === 'OPENQASM 3.0' || stmt === 'OPENQASM 3')) continue;
      if (stmt === (version === 2 ? 'include "qelib1.inc"' : 'include "stdgates.inc"')) continue;
      if (version === 2 && (m = /^qreg q\[(\d+)\]$/.exec(stmt))) reg.numQubits = Number(m[1]);
      else if (version === 2 && (m = /^creg c\[(\d+)\]$/.exec(stmt))) reg.numClbits = Number(m[1]);
      else if (version === 3 && (m = /^qubit\[(\d+)\] q$/.exec(stmt))) reg.numQubits = Number(m[1]);
      else if (version === 3 && (m = /^bit\[(\d+)\] c$/.exec(stmt))) reg.numClbits = Number(m[1]);
      else if (version === 2 && (m = /^measure q\[(\d+)\] -> c\[(\d+)\]$/.exec(stmt)))
        gates.push(measure([Number(m[1])], [Number(m[2])]));
      else if (version === 3 && (m = /^c\[(\d+)\] = measure q\[(\d+)\]$/.exec(stmt)))
        gates.push(measure([Number(m[2])], [Number(m[1])]));
      else if (stmt === 'barrier q') gates.push(gate('BARRIER', []));
      else if ((m = /^barrier (.+)$/.exec(stmt))) gates.push(gate('BARRIER', qasmOperands(m[1]!, lineNo, raw)));
      else if ((m = /^(?:ctrl(?:\((\d+)\))? @ )?(\w+)(?:\(([^()]*)\))? (q\[.*)$/.exec(stmt))) {
        const modifierPresent = stmt.startsWith('ctrl');
        if (modifierPresent && version === 2) lineError(lineNo, raw);
        const extra = modifierPresent ? (m[1] === undefined ? 1 : Number(m[1])) : 0;
        const entry = vocabulary[m[2]!];
        if (entry === undefined) lineError(lineNo, raw);
        const [base, fixedControls] = entry;
        const k = fixedControls + extra;
        const qs = qasmOperands(m[4]!, lineNo, raw);
        if (qs.length !== k + (base === 'SWAP' ? 2 : 1)) lineError(lineNo, raw, 'wrong number of operands on line');
        const angles = m[3] === undefined ? [] : splitArgs(m[3]).map((x) => angle(x, lineNo, raw));
        const params = withParams(base, angles, lineNo, raw);
        const controls = qs.slice(0, k);
        const targets = qs.slice(k);
        const name =
          k === 1 && base === 'X' ? 'CNOT' : k === 1 && base === 'Z' ? 'CZ' : k === 2 && base === 'X' ? 'CCX' : base;
        gates.push(gate(name, targets, controls, params));
      } else lineError(lineNo, raw);
    }
  });
  return finish(reg, gates);
}
