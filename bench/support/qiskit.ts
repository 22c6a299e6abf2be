/** Runs a bench's Python script on Qiskit in the project venv, one process for a batch of jobs. */
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { VENV_PYTHON } from '../../test/support/python.js';

const run = promisify(execFile);
/** Where `qiskit_oracle.py` is: the script can import its helpers (`from qiskit_oracle import …`). */
const ORACLE_DIR = path.resolve(import.meta.dirname, '../../test/quantum/support');

/** `script` run on `{"jobs": jobs}` (a JSON file in `dir`, its `sys.argv[1]`); its stdout, parsed as JSON. */
export async function runQiskitScript(script: string, dir: string, jobs: readonly unknown[]): Promise<unknown> {
  const jobFile = path.join(dir, 'jobs.json');
  await writeFile(jobFile, JSON.stringify({ jobs }));
  const { stdout } = await run(VENV_PYTHON, ['-c', script, jobFile], {
    maxBuffer: 1 << 28,
    env: { ...process.env, PYTHONPATH: ORACLE_DIR },
  });
  return JSON.parse(stdout);
}
