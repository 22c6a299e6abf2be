/** The quantum tools' commands (src/cli/commands/quantum/): flags reach the run functions, exit codes come back. */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandHost } from '../../src/cli/commands/host.js';
import { registerQuantumTools } from '../../src/cli/commands/quantum/index.js';
import { runPks } from '../../src/cli/main.js';
import { capturingIO } from '../cli/support/captured-io.js';

let dir: string;
let savedXdg: string | undefined;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'pks-quantum-commands-'));
  savedXdg = process.env.XDG_CONFIG_HOME;
  process.env.XDG_CONFIG_HOME = path.join(dir, 'config');
  await writeFile(
    path.join(dir, 'bell.json'),
    JSON.stringify({
      circuit: {
        num_qubits: 2,
        gates: [
          { name: 'H', target_qubits: [0] },
          { name: 'CX', target_qubits: [1], control_qubits: [0] },
        ],
      },
    }),
  );
  await writeFile(
    path.join(dir, 'grover.json'),
    JSON.stringify({ id: 'grover', name: 'Grover', primitives: ['primitive_amplitude_amplification'] }),
  );
});
afterAll(() => {
  if (savedXdg === undefined) delete process.env.XDG_CONFIG_HOME;
  else process.env.XDG_CONFIG_HOME = savedXdg;
});

/** Runs `pks` in-process (the real program, context and exit-code mapping). */
async function pks(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = { stdout: '', stderr: '' };
  const code = await runPks(argv, capturingIO(out, { stderrControl: () => {} }));
  return { code, ...out };
}

describe('the quantum tools', () => {
  it('registers exactly the five tools', () => {
    const program = new Command('pks');
    const host: CommandHost = { context: () => Promise.reject(new Error('not run')), setExitCode: () => {} };
    registerQuantumTools(program, host);
    expect(program.commands.map((c) => c.name())).toEqual([
      'designer',
      'codegen',
      'validator',
      'estimator',
      'extractor',
    ]);
  });

  it('designer --list-primitives exits 0', async () => {
    const r = await pks(['designer', '--list-primitives']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Available Primitives:');
  });

  it('a bad flag value is a usage error (2) with Error: <message>', async () => {
    const r = await pks(['designer', 'x', '-O', '7']);
    expect(r).toMatchObject({ code: 2, stderr: "Error: -O/--optimization-level must be 0..3 or O0..O3, got '7'\n" });
    expect((await pks(['estimator'])).code).toBe(2);
    expect((await pks(['validator', 'c.json', '--n-shots', '0'])).code).toBe(2);
    expect((await pks(['extractor', 'nope'])).code).toBe(2);
  });

  /** With 3 qubits `marked=10` used to mark |010⟩ and `marked=0111` |111⟩, silently. */
  const MARKED: [string, number, string][] = [
    ['10', 3, 'parameter marked=10: a marked state of 3 qubits is a bitstring of exactly 3 bits or an integer below 8'],
    [
      '0111',
      3,
      'parameter marked=0111: a marked state of 3 qubits is a bitstring of exactly 3 bits or an integer below 8',
    ],
    ['9', 3, 'parameter marked=9: a marked state of 3 qubits is a bitstring of exactly 3 bits or an integer below 8'],
    ['0a', 2, 'parameter marked=0a: a marked state of 2 qubits is a bitstring of exactly 2 bits or an integer below 4'],
    ['', 2, 'parameter marked=: a marked state of 2 qubits is a bitstring of exactly 2 bits or an integer below 4'],
  ];
  it.each(MARKED)(
    'designer -p marked=%s with n = %i: usage error (2) naming the parameter',
    async (value, n, message) => {
      const r = await pks(['designer', path.join(dir, 'grover.json'), '-p', `n=${n}`, '-p', `marked=${value}`]);
      expect(r).toMatchObject({ code: 2, stdout: '', stderr: `Error: ${message}\n` });
    },
  );

  it('designer -p marked=011 and marked=3 (an integer below 2^n) both mark |011⟩', async () => {
    for (const value of ['011', '3']) {
      const out = path.join(dir, `grover-${value}.json`);
      const r = await pks(['designer', path.join(dir, 'grover.json'), '-p', 'n=3', '-p', `marked=${value}`, '-o', out]);
      expect(r.code, value).toBe(0);
      const ir = JSON.parse(await readFile(out, 'utf8')) as { metadata: { circuit_params: { marked: string } } };
      expect(ir.metadata.circuit_params.marked, value).toBe('011');
    }
  });

  it('codegen without an argument is a usage error (2)', async () => {
    expect((await pks(['codegen'])).code).toBe(2);
  });

  it('codegen writes the program; a missing file exits 1; the config file is created', async () => {
    const out = path.join(dir, 'bell.qasm');
    const ok = await pks(['codegen', path.join(dir, 'bell.json'), '--backend', 'qasm2', '-o', out]);
    expect(ok.code).toBe(0);
    expect(await readFile(out, 'utf8')).toContain('cx q[0], q[1];');
    expect(await readFile(path.join(dir, 'config', 'pks', 'config.yaml'), 'utf8')).toContain('wiki_dir');
    const missing = await pks(['codegen', path.join(dir, 'missing.json')]);
    expect(missing).toMatchObject({
      code: 1,
      stderr: `Error: Input file not found: ${path.join(dir, 'missing.json')}\n`,
    });
  });

  it('validator exits 1 when the report fails, 0 when it passes', async () => {
    const bell = path.join(dir, 'bell.json');
    expect((await pks(['validator', bell, '-c', 'bell_state', '-q'])).code).toBe(0);
    expect((await pks(['validator', bell, '-c', 'ghz_state', '-q'])).code).toBe(1);
  });

  it('estimator --demo prints the report', async () => {
    const r = await pks(['estimator', '--demo', '--format', 'json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveProperty('report_metadata.algorithm_name', 'Bell State Demo');
  });

  it('extractor without a configured key exits 1', async () => {
    const r = await pks(['extractor', '2501.00010v1', '--papers-dir', dir]);
    expect(r).toMatchObject({
      code: 1,
      stderr: 'Error: openai_api_key is not set; set it with: pks config set openai_api_key\n',
    });
  });
});
