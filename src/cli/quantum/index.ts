/**
 * The quantum tool commands of `pks` (CONTRACT §17): `designer`, `codegen`, `validator`, `estimator`,
 * `extractor`. Each action loads its module on demand, so `pks --version` never loads the quantum library.
 */
import type { Command } from 'commander';
import { CliExit, EXIT, UsageError } from '../errors.js';
import type { QuantumIO } from './common.js';

type Options = Record<string, unknown>;

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** Runs a command: usage errors print `Error: …` and exit 2; a non-zero result ends the run with that code. */
async function finish(io: QuantumIO, run: () => Promise<number>): Promise<void> {
  let code: number;
  try {
    code = await run();
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.stderr(`Error: ${err.message}\n`);
    code = EXIT.usage;
  }
  if (code !== 0) throw new CliExit(code);
}

/** The configuration file, created from its template when missing (CONTRACT §16.1), then read. */
async function config() {
  const { configFilePath, ensureConfigFile, readPksConfig } = await import('../config/index.js');
  ensureConfigFile(configFilePath());
  return readPksConfig();
}

/** The `pks paper get markdown <id>` flow of this client, as the extractor's markdown source. */
async function serverMarkdown(io: QuantumIO, preprintId: string): Promise<string> {
  const [{ mkdtemp, readFile, rm }, { tmpdir }, path, { processContext }, { paperGet }] = await Promise.all([
    import('node:fs/promises'),
    import('node:os'),
    import('node:path'),
    import('../context.js'),
    import('../commands/paper/get.js'),
  ]);
  const dir = await mkdtemp(path.join(tmpdir(), 'pks-extractor-'));
  try {
    const output = path.join(dir, 'paper.md');
    const ctx = processContext({
      stdout: io.stdout,
      stderr: io.stderr,
      stderrControl: (t) => void process.stderr.write(t),
      stdoutStream: process.stdout,
      stdin: process.stdin,
      stdinIsTTY: process.stdin.isTTY === true,
      stdoutIsTTY: process.stdout.isTTY === true,
      stderrIsTTY: process.stderr.isTTY === true,
      columns: () => process.stderr.columns || 80,
    });
    const code = await paperGet(ctx, {
      kind: 'markdown',
      id: preprintId,
      output,
      wait: true,
      maxWaitS: 1800,
      quietProgress: false,
      quietNotes: false,
      timeoutMs: 120_000,
    });
    if (code !== 0) throw new Error(`pks paper get markdown ${preprintId} failed (exit ${code})`);
    return await readFile(output, 'utf8');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export function addQuantumCommands(
  program: Command,
  io: { stdout(text: string): void; stderr(text: string): void },
): void {
  program
    .command('designer')
    .description('design a circuit from an algorithm file or a wiki page (built-in primitives, optimiser O0–O3)')
    .argument('[algorithm-file|wiki-page-id]', 'a .yaml/.yml/.json algorithm file or a page id of the local wiki')
    .option('-O, --optimization-level <level>', 'optimisation level 0..3 (or O0..O3)', '1')
    .option('-o, --output <file>', 'write the Quantum IR (JSON) to FILE (- = stdout)')
    .option('-v, --visualize', 'print the circuit drawing and statistics')
    .option('-p, --param <k=v>', 'set a parameter (repeatable; overrides the input)', collect)
    .option('--export-qasm <file>', 'also write OpenQASM 2.0')
    .option('--export-qasm3 <file>', 'also write OpenQASM 3')
    .option('--export-qiskit <file>', 'also write a Qiskit program')
    .option('--list-primitives', 'list the built-in primitives and exit')
    .action(async (input: string | undefined, o: Options) =>
      finish(io, async () => {
        const { parseDesignerOptions, runDesigner } = await import('./designer.js');
        const options = parseDesignerOptions(input, o);
        const wikiDir = options.listPrimitives ? '' : (await config()).wikiDir;
        return runDesigner(options, io, { wikiDir });
      }),
    );

  program
    .command('codegen')
    .description('generate a Qiskit, QPanda, OpenQASM 2.0 or OpenQASM 3 program from a Quantum IR')
    .argument('<ir.json>', 'Quantum IR (or a bare circuit object)')
    .option('--backend <backend>', 'qiskit, qpanda, qasm2 or qasm3', 'qiskit')
    .option('-o, --output <file>', 'write the program to FILE (parents created)')
    .option('-d, --description <text>', 'description in the program header')
    .action(async (input: string, o: Options) =>
      finish(io, async () => {
        const { parseCodegenOptions, runCodegen } = await import('./codegen.js');
        const options = parseCodegenOptions(input, o);
        await config();
        return runCodegen(options, io);
      }),
    );

  program
    .command('validator')
    .description('check a circuit: equivalence with a reference, test suites, built-in references, generated code')
    .argument('<circuit.json>', 'Quantum IR (or a bare circuit object)')
    .option('-r, --reference <file>', 'circuit to compare with')
    .option('-t, --test-suite <yaml>', 'test-suite YAML')
    .option('-c, --compare-with <names>', 'built-in references, comma-separated: bell_state, ghz_state, qft')
    .option('--check-codegen <file>', 'a program written by pks codegen, checked against the circuit')
    .option('--method <method>', 'auto, unitary, statevector or sampling', 'auto')
    .option('--n-shots <n>', 'shots of the sampling method', '1024')
    .option('--seed <n>', 'seed of the random inputs and of sampling', '1234')
    .option('--tvd-threshold <x>', 'largest total-variation distance the sampling method accepts', '0.1')
    .option('--tolerance <x>', 'largest amplitude difference accepted', '1e-9')
    .option('--matrix-size-limit <n>', 'widest circuit compared by full unitary', '10')
    .option('-f, --format <format>', 'text, json or markdown (md)', 'text')
    .option('-o, --output <file>', 'write the report to FILE')
    .option('-v, --verbose', 'log progress on stderr')
    .option('-q, --quiet', 'no logs, no "Report saved" line')
    .option('--skip-equivalence', 'skip the --reference equivalence check')
    .option('--skip-tests', 'skip the test suite')
    .action(async (input: string, o: Options) =>
      finish(io, async () => {
        const { parseValidatorOptions, runValidator } = await import('./validator.js');
        const options = parseValidatorOptions(input, o);
        await config();
        return runValidator(options, io);
      }),
    );

  program
    .command('estimator')
    .description('estimate the resources of a circuit: gate statistics, depth, execution time, suggestions')
    .argument('[circuit.json]', 'Quantum IR (or a bare circuit object)')
    .option('--format <format>', 'markdown, json or both', 'markdown')
    .option('-o, --output <path>', 'write the report(s) to PATH with .md/.json extension')
    .option('--hardware-params <json>', 'gate_time, two_qubit_gate_time, measurement_time (ns), coherence_time (µs)')
    .option('-n, --algorithm-name <name>', 'name in the report (default: the circuit name)')
    .option('--demo', 'estimate a 2-qubit Bell circuit with measurements')
    .option('-q, --quiet', 'no summary line')
    .action(async (input: string | undefined, o: Options) =>
      finish(io, async () => {
        const { parseEstimatorOptions, runEstimator } = await import('./estimator.js');
        const options = parseEstimatorOptions(input, o);
        await config();
        return runEstimator(options, io);
      }),
    );

  program
    .command('extractor')
    .description('extract an algorithm description (AlgorithmIR YAML) from a paper with an LLM (experimental)')
    .argument('<preprint_id>', 'arXiv id of a paper whose markdown is local or on the server')
    .option('--llm-provider <provider>', 'openai or anthropic', 'openai')
    .option('--model <model>', 'model (default gpt-4o / claude-3-5-sonnet-latest)')
    .option('-o, --output <file>', 'write the YAML to FILE (default: stdout)')
    .option('--papers-dir <dir>', 'where paper markdown is read and saved', './papers')
    .option('-v, --verbose', 'log progress on stderr')
    .action(async (preprintId: string, o: Options) =>
      finish(io, async () => {
        const { parseExtractorOptions, runExtractor } = await import('./extractor.js');
        const options = parseExtractorOptions(preprintId, o);
        const cfg = await config();
        return runExtractor(options, io, {
          openaiApiKey: cfg.openaiApiKey,
          anthropicApiKey: cfg.anthropicApiKey,
          openaiBaseUrl: cfg.openaiBaseUrl,
          anthropicBaseUrl: cfg.anthropicBaseUrl,
          fetchMarkdown: (id) => serverMarkdown(io, id),
        });
      }),
    );
}
