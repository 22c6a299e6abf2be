/** Runs `mp_reference.py` (mpmath at 200 bits, project venv) on a batch of circuits: the exact-value references. */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Circuit } from '../../../src/quantum/index.js';
import { VENV_PYTHON } from '../../support/python.js';

const run = promisify(execFile);
const SCRIPT = path.resolve(import.meta.dirname, 'mp_reference.py');

export type ReferenceJob =
  /** `unitary`: column by column, like `circuitUnitary`. */
  | { readonly id: string; readonly kind: 'statevector' | 'unitary'; readonly circuit: Circuit }
  /** Each value modulo 2π, in (−π, π]. */
  | { readonly id: string; readonly kind: 'reduce'; readonly values: readonly number[] };

/** Each job's numbers (interleaved complex amplitudes, or residues), rounded once to doubles. */
export async function mpReference(jobs: readonly ReferenceJob[]): Promise<Map<string, Float64Array>> {
  const dir = await mkdtemp(path.join(tmpdir(), 'pks-mpref-'));
  try {
    const file = path.join(dir, 'jobs.json');
    await writeFile(file, JSON.stringify({ jobs }));
    const { stdout } = await run(VENV_PYTHON, [SCRIPT, file], { maxBuffer: 1 << 28 });
    const parsed = JSON.parse(stdout) as { results: { id: string; data: string[] }[] };
    return new Map(parsed.results.map((r) => [r.id, Float64Array.from(r.data, Number)]));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** max_i |a_i − b_i| over interleaved complex arrays (no phase freedom). */
export function maxAbsDifference(a: Float64Array, b: Float64Array): number {
  if (a.length !== b.length) throw new RangeError('maxAbsDifference: arrays of different length');
  let max = 0;
  for (let i = 0; i < a.length; i += 2) max = Math.max(max, Math.hypot(a[i]! - b[i]!, a[i + 1]! - b[i + 1]!));
  return max;
}
