import { InvalidInputError } from '../../shared/domain-errors.js';
import { isScope, MAX_EXPIRY_DAYS, WILDCARD_SCOPE, type Scope } from '../../shared/scopes.js';

/** A validated PAT request: what `POST /api/pat`, the device flow and `pksd pat mint` mint. */
export interface PatSpec {
  readonly name: string;
  readonly description: string;
  readonly expiresInDays: number;
  readonly scopes: readonly Scope[];
}

export const NAME_MAX = 80;
export const DESCRIPTION_MAX = 200;

const bad = (detail: string) => new InvalidInputError(detail);

export function validateName(value: unknown): string {
  const name = typeof value === 'string' ? value.trim() : '';
  if (name === '') throw bad('name required');
  if (name.includes('\u0000')) throw bad('name must not contain NUL characters');
  if ([...name].length > NAME_MAX) throw bad(`name max length is ${NAME_MAX}`);
  return name;
}

export function validateDescription(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw bad('description must be a string');
  const description = value.trim();
  if (description.includes('\u0000')) throw bad('description must not contain NUL characters');
  if ([...description].length > DESCRIPTION_MAX) throw bad(`description max length is ${DESCRIPTION_MAX}`);
  return description;
}

export function validateExpiresInDays(value: unknown): number {
  if (typeof value === 'number' && Number.isInteger(value) && value > MAX_EXPIRY_DAYS) {
    throw bad(`expires_in_days exceeds maximum of ${MAX_EXPIRY_DAYS} (one year)`);
  }
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw bad(`expires_in_days is required and must be an integer between 1 and ${MAX_EXPIRY_DAYS}`);
  }
  return value;
}

/** Vocabulary check; `*` is refused; duplicates dropped preserving order; absent = empty list. */
export function validateScopes(value: unknown): Scope[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw bad('scopes must be a list of strings');
  const out: Scope[] = [];
  for (const entry of value) {
    if (typeof entry !== 'string') throw bad('scopes must be a list of strings');
    if (entry === WILDCARD_SCOPE) throw bad('wildcard scope is not allowed');
    if (!isScope(entry)) throw bad(`unknown scope "${entry}"`);
    if (!out.includes(entry)) out.push(entry);
  }
  return out;
}

/** Validates a PAT create request with the exact messages of CONTRACT §7.3 (checked in field order). */
export function validatePatSpec(input: {
  name?: unknown;
  description?: unknown;
  expires_in_days?: unknown;
  scopes?: unknown;
}): PatSpec {
  const name = validateName(input.name);
  const description = validateDescription(input.description);
  const expiresInDays = validateExpiresInDays(input.expires_in_days);
  const scopes = validateScopes(input.scopes);
  return { name, description, expiresInDays, scopes };
}

/** Parses a stored scope list: anything but a JSON list yields no scopes; unknown entries cover nothing. */
export function parseStoredScopes(raw: unknown): Scope[] {
  if (typeof raw !== 'string') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  return parsed.filter((s): s is Scope => typeof s === 'string' && isScope(s));
}
