/** The gate table of CONTRACT §17.2: arity, parameters and fixed controls of every known gate. */

export interface GateSpec {
  /** Number of targets; `'k'` = one or more (MEASURE), `'any'` = zero or more (BARRIER). */
  readonly targets: number | 'k' | 'any';
  readonly params: readonly string[];
  /** Gates defined with a fixed number of controls (CNOT, CZ: 1; CCX: 2); `null` = any number. */
  readonly fixedControls: number | null;
  /** `false` for MEASURE and BARRIER. */
  readonly unitary: boolean;
}

const ONE: GateSpec = { targets: 1, params: [], fixedControls: null, unitary: true };
const THETA: GateSpec = { targets: 1, params: ['theta'], fixedControls: null, unitary: true };

export const GATE_SPECS: Readonly<Record<string, GateSpec>> = {
  I: ONE,
  H: ONE,
  X: ONE,
  Y: ONE,
  Z: ONE,
  S: ONE,
  SDG: ONE,
  T: ONE,
  TDG: ONE,
  SX: ONE,
  RX: THETA,
  RY: THETA,
  RZ: THETA,
  P: THETA,
  U: { targets: 1, params: ['theta', 'phi', 'lambda'], fixedControls: null, unitary: true },
  CNOT: { targets: 1, params: [], fixedControls: 1, unitary: true },
  CZ: { targets: 1, params: [], fixedControls: 1, unitary: true },
  CCX: { targets: 1, params: [], fixedControls: 2, unitary: true },
  SWAP: { targets: 2, params: [], fixedControls: null, unitary: true },
  MEASURE: { targets: 'k', params: [], fixedControls: 0, unitary: false },
  BARRIER: { targets: 'any', params: [], fixedControls: 0, unitary: false },
};

export const GATE_ALIASES: Readonly<Record<string, string>> = { U1: 'P', CX: 'CNOT', TOFFOLI: 'CCX' };

/** Upper-cases a gate name and resolves its alias. */
export function canonicalGateName(name: string): string {
  const upper = name.toUpperCase();
  return GATE_ALIASES[upper] ?? upper;
}

export function gateSpec(name: string): GateSpec | undefined {
  return Object.hasOwn(GATE_SPECS, name) ? GATE_SPECS[name] : undefined;
}

/** The one-qubit gate a controlled gate applies (CNOT/CCX → X, CZ → Z), else the name itself. */
export function baseGateName(name: string): string {
  if (name === 'CNOT' || name === 'CCX') return 'X';
  if (name === 'CZ') return 'Z';
  return name;
}
