/** Pieces shared by the quantum commands: their I/O, option parsing and file helpers. */
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from '../errors.js';

/** What a quantum command writes to; tests collect the text. */
export interface QuantumIO {
  stdout(text: string): void;
  stderr(text: string): void;
}

export function parseIntFlag(flag: string, value: unknown, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const text = String(value).trim();
  if (!/^[+-]?\d+$/.test(text)) throw new UsageError(`${flag} must be an integer, got '${String(value)}'`);
  const n = Number(text);
  if (n < min || n > max)
    throw new UsageError(
      `${flag} must be ${max === Number.MAX_SAFE_INTEGER ? `at least ${min}` : `in ${min}..${max}`}, got '${String(value)}'`,
    );
  return n;
}

export function parseNumberFlag(flag: string, value: unknown, min = -Infinity): number {
  const text = String(value).trim();
  const n = text === '' ? Number.NaN : Number(text);
  if (!Number.isFinite(n)) throw new UsageError(`${flag} must be a number, got '${String(value)}'`);
  if (n < min) throw new UsageError(`${flag} must be at least ${min}, got '${String(value)}'`);
  return n;
}

/** A flag's value when it was given as text, else undefined. */
export const stringFlag = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

export function parseChoiceFlag<T extends string>(flag: string, value: unknown, choices: readonly T[]): T {
  const text = String(value);
  if (!(choices as readonly string[]).includes(text))
    throw new UsageError(`${flag} must be one of ${choices.join(', ')}, got '${text}'`);
  return text as T;
}

/** Writes `text` to `file`, creating missing parent directories. */
export async function writeText(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(path.resolve(file)), { recursive: true });
  await writeFile(file, text);
}

export type ReadOutcome = { ok: true; text: string } | { ok: false; reason: 'missing' | 'not_a_file' };

export async function readTextFile(file: string): Promise<ReadOutcome> {
  try {
    if (!(await stat(file)).isFile()) return { ok: false, reason: 'not_a_file' };
  } catch {
    return { ok: false, reason: 'missing' };
  }
  return { ok: true, text: await readFile(file, 'utf8') };
}

/** The text of a command's input file, or null after `Error: <Noun> file not found: …` / `… path is not a file: …`. */
export async function readInputText(file: string, noun: string, io: QuantumIO): Promise<string | null> {
  const r = await readTextFile(file);
  if (r.ok) return r.text;
  io.stderr(
    r.reason === 'missing'
      ? `Error: ${noun} file not found: ${file}\n`
      : `Error: ${noun} path is not a file: ${file}\n`,
  );
  return null;
}

export const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));
