/** Runs `qiskit_oracle.py` in the project venv on a batch of jobs (one Python process per batch). */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { VENV_PYTHON } from '../../support/python.js';

const run = promisify(execFile);
const SCRIPT = path.resolve(import.meta.dirname, 'qiskit_oracle.py');

export type OracleJob =
  | { id: string; kind: 'statevector' | 'qasm2' | 'qasm2-strict' | 'qasm3' | 'qiskit-op'; program: string }
  | { id: string; kind: 'equiv'; a: string; b: string; atol: number };

export interface OracleResult {
  id: string;
  /** Interleaved complex numbers in Qiskit's ordering (row-major for operators). */
  data?: Float64Array;
  num_qubits?: number;
  equiv?: boolean;
  error?: string;
}

export async function runOracle(jobs: OracleJob[]): Promise<Map<string, OracleResult>> {
  const dir = await mkdtemp(path.join(tmpdir(), 'pks-oracle-'));
  try {
    const file = path.join(dir, 'jobs.json');
    await writeFile(file, JSON.stringify({ jobs }));
    const { stdout } = await run(VENV_PYTHON, [SCRIPT, file], { maxBuffer: 1 << 30 });
    const parsed = JSON.parse(stdout) as { results: (Omit<OracleResult, 'data'> & { data?: string })[] };
    return new Map(
      parsed.results.map((r) => {
        const out: OracleResult = { ...r, data: undefined };
        if (r.data !== undefined) {
          const bytes = Buffer.from(r.data, 'base64');
          out.data = new Float64Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 8).slice();
        }
        return [r.id, out];
      }),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Reverses the low `n` bits of `i` (pks qubit 0 is the most significant bit, Qiskit's the least). */
export function reverseBits(i: number, n: number): number {
  let r = 0;
  for (let b = 0; b < n; b++) r |= ((i >> b) & 1) << (n - 1 - b);
  return r;
}
