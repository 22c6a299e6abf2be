/** Parsing of option values (before any I/O); a bad value is `Invalid input: …`, exit 2. */
import { InvalidInputError } from '../../shared/domain-errors.js';

export function parseIntOption(flag: string, text: string): number {
  if (!/^-?\d+$/.test(text.trim())) throw new InvalidInputError(`${flag} must be an integer, got '${text}'`);
  return Number(text.trim());
}

export function parseNumberOption(flag: string, text: string): number {
  const n = text.trim() === '' ? NaN : Number(text.trim());
  if (!Number.isFinite(n)) throw new InvalidInputError(`${flag} must be a number, got '${text}'`);
  return n;
}

export function parsePositiveNumber(flag: string, text: string): number {
  const n = parseNumberOption(flag, text);
  if (!(n > 0)) throw new InvalidInputError(`${flag} must be greater than 0, got '${text}'`);
  return n;
}

export function parseChoice<T extends string>(flag: string, text: string, choices: readonly T[]): T {
  if (!(choices as readonly string[]).includes(text)) {
    throw new InvalidInputError(`${flag} must be one of ${choices.join(', ')}, got '${text}'`);
  }
  return text as T;
}

/** CSV → trimmed, non-empty items. */
export const csv = (text: string): string[] =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

/** `--request-timeout` (seconds, > 0) as milliseconds. */
export const requestTimeoutMs = (text: unknown): number =>
  parsePositiveNumber('--request-timeout', String(text ?? '120')) * 1000;
