/**
 * Designer parameters (CONTRACT §17.3): `k=v` parsing (int, else float, else boolean, else string), precedence
 * (`-p` > input params > defaults) and validation with clamping; every adjustment is recorded as a note for
 * `metadata.validation_errors`.
 */
import { InvalidInputError } from '../../shared/domain-errors.js';

export type ParamValue = number | boolean | string;
export type ParamMap = Record<string, ParamValue>;

/** A parameter value no circuit can be built from (a usage error: `pks designer` exits 2 naming the parameter). */
export class InvalidParameterError extends InvalidInputError {}

/** Parameters kept as written: `marked=011` must not become the integer 11. */
const TEXT_PARAMS = new Set(['marked']);

const INT_RE = /^[+-]?\d+$/;
const FLOAT_RE = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** Types a textual value: int, else float, else `true`/`false`, else the string itself. */
export function parseParamValue(text: string): ParamValue {
  const t = text.trim();
  if (INT_RE.test(t)) return Number.parseInt(t, 10);
  if (FLOAT_RE.test(t)) return Number(t);
  if (t === 'true') return true;
  if (t === 'false') return false;
  return text;
}

/** Splits `k=v` at the first `=`; `null` when there is none or the key is empty. */
export function parseAssignment(text: string): [string, ParamValue] | null {
  const eq = text.indexOf('=');
  if (eq <= 0) return null;
  const key = text.slice(0, eq).trim();
  if (key === '') return null;
  const value = text.slice(eq + 1);
  return [key, TEXT_PARAMS.has(key) ? value.trim() : parseParamValue(value)];
}

/**
 * The marked state of an `n`-qubit search as a bitstring (qubit 0 leftmost), read from the value's digits as
 * written: only 0s and 1s → a bitstring, which must have exactly `n` of them (so `10` is two bits, never ten, and
 * an unquoted YAML `011`, read as 11, is refused rather than misread); other decimal digits → an integer below 2^n.
 * Anything else throws `InvalidParameterError` naming the parameter.
 */
export function markedBitstring(value: ParamValue, n: number): string {
  const text = String(value).trim();
  if (typeof value !== 'boolean' && /^[01]+$/.test(text)) {
    if (text.length === n) return text;
  } else if (typeof value !== 'boolean' && /^\d+$/.test(text)) {
    const k = BigInt(text);
    if (k < 2n ** BigInt(n)) return k.toString(2).padStart(n, '0');
  }
  throw new InvalidParameterError(
    `parameter marked=${text}: a marked state of ${n} qubits is a bitstring of exactly ${n} bits or an integer below ${2 ** n}`,
  );
}

interface IntRule {
  readonly min: number;
  readonly max: number;
}

const INT_RULES: Readonly<Record<string, IntRule>> = {
  n: { min: 1, max: 30 },
  t: { min: 1, max: 30 },
  num_qubits: { min: 1, max: 30 },
  iterations: { min: 1, max: 10000 },
  steps: { min: 1, max: 10000 },
  layers: { min: 1, max: 10000 },
};

const FLOAT_RANGES: Readonly<Record<string, IntRule>> = { phase: { min: 0, max: 1 } };
const FLOAT_PARAMS = new Set(['time', 'J', 'h', 'theta']);

const show = (v: ParamValue): string => (typeof v === 'string' ? v : String(v));

/**
 * Validates the known parameters of `params` (a copy is returned): integers and ranges are clamped, values of the
 * wrong type are dropped so the default applies. Unknown keys pass through untouched.
 */
export function validateParams(params: ParamMap, notes: string[]): ParamMap {
  const out: ParamMap = {};
  for (const [key, value] of Object.entries(params)) {
    const intRule = INT_RULES[key];
    const floatRange = FLOAT_RANGES[key];
    if (intRule !== undefined || floatRange !== undefined || FLOAT_PARAMS.has(key)) {
      if (typeof value !== 'number' || !Number.isFinite(value)) {
        notes.push(`parameter ${key}=${show(value)} is not a finite number; ignored`);
        continue;
      }
      let v = value;
      if (intRule !== undefined && !Number.isInteger(v)) {
        const rounded = Math.round(v);
        notes.push(`parameter ${key}=${show(value)} is not an integer; rounded to ${rounded}`);
        v = rounded;
      }
      const range = intRule ?? floatRange;
      if (range !== undefined && (v < range.min || v > range.max)) {
        const clamped = Math.min(range.max, Math.max(range.min, v));
        notes.push(`parameter ${key}=${show(v)} out of range ${range.min}..${range.max}; clamped to ${clamped}`);
        v = clamped;
      }
      out[key] = v;
      continue;
    }
    out[key] = value;
  }
  return out;
}
