import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseCodegenOptions, runCodegen } from '../../src/cli/quantum/codegen.js';
import { UsageError } from '../../src/cli/errors.js';
import { parseDesignerOptions, parseOptimizationLevel, runDesigner } from '../../src/cli/quantum/designer.js';
import { parseQuantumIR, parseProgram } from '../../src/quantum/index.js';

const SAMPLE_WIKI = path.resolve(import.meta.dirname, '../../sample-wiki');
const NOW = () => new Date('2026-05-01T12:00:00Z');

function capture() {
  const out = { stdout: '', stderr: '' };
  return { out, io: { stdout: (t: string) => (out.stdout += t), stderr: (t: string) => (out.stderr += t) } };
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'pks-quantum-cli-'));
  await writeFile(path.join(dir, 'grover.yaml'), 'id: algo-grover\nname: Grover search\ninput_params: ["n=3"]\n');
});

describe('pks designer', () => {
  it('validates flags before any I/O: -O 0..3 or O0..O3, -p k=v, an input unless --list-primitives', () => {
    expect([parseOptimizationLevel('0'), parseOptimizationLevel('O3'), parseOptimizationLevel('o2')]).toEqual([
      0, 3, 2,
    ]);
    expect(() => parseOptimizationLevel('4')).toThrow(
      new UsageError("-O/--optimization-level must be 0..3 or O0..O3, got '4'"),
    );
    expect(() => parseDesignerOptions('x', { param: ['novalue'] })).toThrow("-p/--param expects k=v, got 'novalue'");
    expect(() => parseDesignerOptions(undefined, {})).toThrow(
      "missing required argument 'algorithm-file|wiki-page-id'",
    );
    expect(parseDesignerOptions(undefined, { listPrimitives: true }).listPrimitives).toBe(true);
    expect(parseDesignerOptions('x', { param: ['n=4', 'marked=011', 'flag=true'] }).params).toEqual({
      n: 4,
      marked: '011',
      flag: true,
    });
  });

  it('--list-primitives prints the list and exits 0', async () => {
    const { out, io } = capture();
    expect(await runDesigner(parseDesignerOptions(undefined, { listPrimitives: true }), io, { wikiDir: '' })).toBe(0);
    expect(out.stdout).toMatch(/^Available Primitives:\n-{40}\n {2}primitive_qft\n/);
  });

  it('designs from a YAML file, saves the IR and every export', async () => {
    const { out, io } = capture();
    const o = (name: string) => path.join(dir, 'out', name);
    const options = parseDesignerOptions(path.join(dir, 'grover.yaml'), {
      optimizationLevel: 'O0',
      output: o('ir.json'),
      param: ['marked=010'],
      exportQasm3: o('g.qasm'),
      exportQiskit: o('g.py'),
    });
    expect(await runDesigner(options, io, { wikiDir: SAMPLE_WIKI, now: NOW })).toBe(0);
    expect(out.stdout).toBe(
      [
        'Circuit designed successfully!',
        '  Algorithm: algo-grover',
        '  Qubits: 3',
        '  Gates: 39',
        '  Depth: 17',
        '  Optimization: O0',
        `Circuit saved to: ${o('ir.json')}`,
        `QASM3 exported to: ${o('g.qasm')}`,
        `Qiskit code exported to: ${o('g.py')}`,
        '',
      ].join('\n'),
    );
    const ir = parseQuantumIR(await readFile(o('ir.json'), 'utf8'));
    expect(ir.metadata.circuit_params).toMatchObject({ n: 3, marked: '010', iterations: 2 });
    expect(ir.created_at).toBe('2026-05-01T12:00:00Z');
    expect(parseProgram(await readFile(o('g.qasm'), 'utf8')).circuit.gates).toHaveLength(ir.circuit.gates.length);
    expect(await readFile(o('g.py'), 'utf8')).toContain('def create_circuit():');
  });

  it('an OpenQASM 2.0 export of a multi-controlled gate fails with exit 1', async () => {
    const { out, io } = capture();
    const options = parseDesignerOptions(path.join(dir, 'grover.yaml'), { exportQasm: path.join(dir, 'g2.qasm') });
    expect(await runDesigner(options, io, { wikiDir: SAMPLE_WIKI })).toBe(1);
    expect(out.stderr).toBe('Error: cannot export qasm2: gate not expressible in OpenQASM 2.0: Z with 2 controls\n');
  });

  it('-v prints the drawing block; a wiki page id works', async () => {
    const { out, io } = capture();
    const options = parseDesignerOptions('algo-grovers-algorithm', { visualize: true });
    expect(await runDesigner(options, io, { wikiDir: SAMPLE_WIKI })).toBe(0);
    expect(out.stdout).toContain(`${'='.repeat(60)}\nAlgorithm: algo-grovers-algorithm\nQubits: 2\n`);
    expect(out.stdout).toContain('Optimization: O1');
    expect(out.stdout).toContain('q0: --H--');
    expect(out.stdout).toContain('Gate counts by type:\n');
  });

  it('-o - writes the IR to stdout and the messages to stderr', async () => {
    const { out, io } = capture();
    const options = parseDesignerOptions('algo-grovers-algorithm', { output: '-' });
    expect(await runDesigner(options, io, { wikiDir: SAMPLE_WIKI })).toBe(0);
    expect(parseQuantumIR(out.stdout).algorithm_id).toBe('algo-grovers-algorithm');
    expect(out.stderr).toMatch(/^Circuit designed successfully!\n/);
  });

  it('neither a file nor a page id exits 1', async () => {
    const { out, io } = capture();
    expect(await runDesigner(parseDesignerOptions('algo-missing', {}), io, { wikiDir: SAMPLE_WIKI })).toBe(1);
    expect(out.stderr).toBe('Error: algo-missing is neither a file nor a wiki page id\n');
  });
});

describe('pks codegen', () => {
  let irFile: string;
  beforeAll(async () => {
    irFile = path.join(dir, 'bell.json');
    await writeFile(
      irFile,
      JSON.stringify({
        algorithm_id: 'bell',
        circuit: {
          num_qubits: 3,
          gates: [
            { name: 'H', target_qubits: [0] },
            { name: 'CX', target_qubits: [1], control_qubits: [0] },
            { name: 'H', target_qubits: [2], control_qubits: [0, 1] },
          ],
        },
      }),
    );
  });

  it('--backend must be one of the four', () => {
    expect(() => parseCodegenOptions('x', { backend: 'cirq' })).toThrow(
      "--backend must be one of qiskit, qpanda, qasm2, qasm3, got 'cirq'",
    );
  });

  it('prints the program on stdout by default (qiskit)', async () => {
    const { out, io } = capture();
    expect(await runCodegen(parseCodegenOptions(irFile, {}), io, { now: NOW })).toBe(0);
    expect(out.stdout).toContain('    circuit.cx(0, 1)\n');
    expect(out.stdout).toContain('    circuit.append(HGate().control(2), [0, 1, 2])\n');
    expect(out.stdout).toContain('from qiskit.circuit.library import HGate\n');
  });

  it('-o writes the file (parents created) and prints the summary', async () => {
    const { out, io } = capture();
    const file = path.join(dir, 'deep', 'er', 'bell.qasm');
    const options = parseCodegenOptions(irFile, { backend: 'qasm3', output: file, description: 'my bell' });
    expect(await runCodegen(options, io, { now: NOW })).toBe(0);
    expect(out.stdout).toBe(
      `Generated code saved to: ${file}\n  Backend: qasm3\n  Algorithm: bell\n  Qubits: 3\n  Gates: 3\n  Depth: 3\n`,
    );
    expect(await readFile(file, 'utf8')).toContain('// my bell\n');
  });

  const FAILURES: [string, () => Promise<string>, string, string][] = [
    ['missing file', async () => path.join(dir, 'nope.json'), 'qiskit', 'Error: Input file not found: '],
    ['a directory', async () => dir, 'qiskit', 'Error: Input path is not a file: '],
    [
      'invalid IR',
      async () => {
        const f = path.join(dir, 'bad.json');
        await writeFile(f, '{"circuit": {"num_qubits": 1, "gates": [{"name": "H", "target_qubits": [2]}]}}');
        return f;
      },
      'qiskit',
      'Error loading Quantum IR: invalid IR: gate 0 (H): qubit 2 out of range [0, 1)',
    ],
    [
      'inexpressible gate',
      async () => irFile,
      'qasm2',
      'Error generating code: gate not expressible in OpenQASM 2.0: H with 2 controls',
    ],
  ];
  it.each(FAILURES)('%s exits 1', async (_label, file, backend, message) => {
    const { out, io } = capture();
    const f = await file();
    expect(await runCodegen(parseCodegenOptions(f, { backend }), io)).toBe(1);
    expect(out.stderr.startsWith(message)).toBe(true);
    expect(out.stdout).toBe('');
  });
});
