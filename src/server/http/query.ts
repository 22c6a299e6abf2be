/**
 * Query values of CONTRACT §0.2, parsed with the contract's messages (the OpenAPI document states the accepted
 * forms as patterns).
 */
import { InvalidInputError } from '../../shared/domain-errors.js';

/** `true`/`1` → true; `false`/`0`/absent → false (any case); else 400 `<name> must be a boolean`. */
export function queryBoolean(value: unknown, name: string): boolean {
  if (value === undefined) return false;
  if (typeof value === 'string') {
    const v = value.toLowerCase();
    if (v === 'true' || v === '1') return true;
    if (v === 'false' || v === '0') return false;
  }
  throw new InvalidInputError(`${name} must be a boolean`);
}

/** A 64-hex value (lower-cased), `null` when absent, else 400 `<name> must be 64 hex characters`. */
export function querySha256(value: unknown, name: string): string | null {
  if (value === undefined) return null;
  if (typeof value === 'string' && /^[0-9a-fA-F]{64}$/.test(value)) return value.toLowerCase();
  throw new InvalidInputError(`${name} must be 64 hex characters`);
}

/** An optional string value (the first one when repeated). */
export function queryString(raw: unknown): string | null {
  const value: unknown = Array.isArray(raw) ? raw[0] : raw;
  return typeof value === 'string' ? value : null;
}

/**
 * An integer value; `fallback` when absent; 400 `<name> must be an integer` when it does not parse. Digits beyond
 * the safe integers saturate (the callers clamp; an answer never echoes `1e+21` or `null` for a page number).
 */
export function queryInteger(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value === 'string' && /^\s*[+-]?\d+\s*$/.test(value)) {
    return Math.max(Number.MIN_SAFE_INTEGER, Math.min(Number.MAX_SAFE_INTEGER, Number(value)));
  }
  throw new InvalidInputError(`${name} must be an integer`);
}
/** The OpenAPI pattern of `queryBoolean`. */
export const BOOLEAN_PATTERN = '^([Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee]|1|0)$';
