/** Typing of config values (CONTRACT §16.1 "Coercion"): values read from the file and values given to `set`. */
import type { ConfigKey } from './keys.js';

export type ConfigValue = string | boolean | number | string[];

const FILE_TRUE = new Set(['1', 'true', 'yes', 'on', 'y', 't']);
const SET_TRUE = new Set(['1', 'true', 'yes', 'on']);

/** A list key's items: from a YAML list or a CSV string; trimmed, empties dropped. */
export function splitList(value: string | readonly unknown[]): string[] {
  const items = typeof value === 'string' ? value.split(',') : value.map((v) => String(v));
  return items.map((s) => s.trim()).filter((s) => s !== '');
}

/**
 * A file value typed for its key; `undefined` for `null` (an empty `key:` line); `{invalid: true}` when the value
 * does not fit the type.
 */
export function coerceFileValue(key: ConfigKey, raw: unknown): ConfigValue | undefined | { invalid: true } {
  if (raw === null || raw === undefined) return undefined;
  const invalid = { invalid: true } as const;
  switch (key.type) {
    case 'bool':
      if (typeof raw === 'boolean') return raw;
      if (typeof raw === 'string') return FILE_TRUE.has(raw.trim().toLowerCase());
      return invalid;
    case 'int':
    case 'float': {
      const n = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
      if (!Number.isFinite(n) || (key.type === 'int' && !Number.isInteger(n))) return invalid;
      return n;
    }
    case 'list':
      if (typeof raw === 'string') return splitList(raw);
      if (Array.isArray(raw) && raw.every((v) => ['string', 'number'].includes(typeof v))) return splitList(raw);
      return invalid;
    case 'string': {
      if (typeof raw !== 'string' && typeof raw !== 'number') return invalid;
      const text = String(raw);
      if (key.choices && !key.choices.includes(text.trim())) return invalid;
      return key.name.endsWith('_url') ? text.trim().replace(/\/+$/, '') : text;
    }
  }
}

/** The value `pks config set` stores, or the type it expected. */
export function coerceSetValue(key: ConfigKey, text: string): { value: ConfigValue } | { expected: string } {
  switch (key.type) {
    case 'bool':
      return { value: SET_TRUE.has(text.trim().toLowerCase()) };
    case 'int':
    case 'float': {
      const n = text.trim() === '' ? NaN : Number(text.trim());
      if (!Number.isFinite(n) || (key.type === 'int' && !Number.isInteger(n))) return { expected: key.type };
      return { value: n };
    }
    case 'list':
      return { value: splitList(text) };
    case 'string':
      if (key.choices && !key.choices.includes(text.trim())) return { expected: key.choices.join(' or ') };
      return { value: key.name.endsWith('_url') ? text.trim().replace(/\/+$/, '') : text };
  }
}

/** How `config get` / `config show` print a value: bools `true`/`false`, lists as CSV, floats with a decimal. */
export function formatValue(value: ConfigValue, key?: ConfigKey): string {
  if (Array.isArray(value)) return value.join(',');
  if (key?.type === 'float' && typeof value === 'number' && Number.isInteger(value)) return value.toFixed(1);
  return String(value);
}
