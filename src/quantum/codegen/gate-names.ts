/**
 * Gate spellings that Qiskit's methods, OpenQASM 2.0 (`qelib1.inc`) and OpenQASM 3 (`stdgates.inc`) share; the
 * generators add their own P and U names, and the reader inverts these to parse what the generators wrote.
 */

/** Lower-case names of the one-qubit gates without angles. */
export const FIXED_ONE_QUBIT_LOWER: Readonly<Record<string, string>> = {
  I: 'id',
  H: 'h',
  X: 'x',
  Y: 'y',
  Z: 'z',
  S: 's',
  SDG: 'sdg',
  T: 't',
  TDG: 'tdg',
  SX: 'sx',
};

/** Lower-case names of every base gate except P and U, whose names differ between the targets. */
export const SHARED_LOWER: Readonly<Record<string, string>> = {
  ...FIXED_ONE_QUBIT_LOWER,
  RX: 'rx',
  RY: 'ry',
  RZ: 'rz',
  SWAP: 'swap',
};

/** Names for exactly one control, except P and U. */
export const SHARED_SINGLE_CONTROL: Readonly<Record<string, string>> = {
  X: 'cx',
  Z: 'cz',
  H: 'ch',
  Y: 'cy',
  SX: 'csx',
  RX: 'crx',
  RY: 'cry',
  RZ: 'crz',
  SWAP: 'cswap',
};

/** Name → base gate, for reading generated programs back. */
export function byName(names: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
  return Object.fromEntries(Object.entries(names).map(([base, name]) => [name, base]));
}
