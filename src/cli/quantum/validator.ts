/** `pks validator <circuit.json>` (CONTRACT §17.5). */
import path from 'node:path';
import {
  MAX_UNITARY_QUBITS,
  METHODS,
  parseQuantumIR,
  parseTestSuite,
  renderReport,
  validateCircuit,
  type Circuit,
  type Method,
  type ReportFormat,
  type TestSuite,
} from '../../quantum/index.js';
import { EXIT } from '../errors.js';
import {
  messageOf,
  parseChoiceFlag,
  stringFlag,
  parseIntFlag,
  parseNumberFlag,
  readTextFile,
  writeText,
  type QuantumIO,
} from './common.js';
import type { QuantumTool } from './tool.js';

export interface ValidatorOptions {
  readonly input: string;
  readonly reference: string | undefined;
  readonly testSuite: string | undefined;
  readonly compareWith: string[];
  readonly checkCodegen: string | undefined;
  readonly method: Method;
  readonly nShots: number;
  readonly seed: number;
  readonly tvdThreshold: number;
  readonly tolerance: number;
  readonly matrixSizeLimit: number;
  readonly format: ReportFormat;
  readonly output: string | undefined;
  readonly verbose: boolean;
  readonly quiet: boolean;
  readonly skipEquivalence: boolean;
  readonly skipTests: boolean;
}

export function parseValidatorOptions(input: string, o: Record<string, unknown>): ValidatorOptions {
  const format = parseChoiceFlag('-f/--format', o.format ?? 'text', ['text', 'json', 'markdown', 'md'] as const);
  return {
    input,
    reference: stringFlag(o.reference),
    testSuite: stringFlag(o.testSuite),
    compareWith: String(o.compareWith ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== ''),
    checkCodegen: stringFlag(o.checkCodegen),
    method: parseChoiceFlag('--method', o.method ?? 'auto', METHODS),
    nShots: parseIntFlag('--n-shots', o.nShots ?? '1024', 1, 100_000_000),
    seed: parseIntFlag('--seed', o.seed ?? '1234', 0, 0xffffffff),
    tvdThreshold: parseNumberFlag('--tvd-threshold', o.tvdThreshold ?? '0.1', 0),
    tolerance: parseNumberFlag('--tolerance', o.tolerance ?? '1e-9', 0),
    matrixSizeLimit: parseIntFlag('--matrix-size-limit', o.matrixSizeLimit ?? '10', 1, MAX_UNITARY_QUBITS),
    format: format === 'md' ? 'markdown' : format,
    output: stringFlag(o.output),
    verbose: o.verbose === true,
    quiet: o.quiet === true,
    skipEquivalence: o.skipEquivalence === true,
    skipTests: o.skipTests === true,
  };
}

/** A file's text, or `ERROR: <reason>` on stderr and `null`. */
async function load(file: string, what: string, io: QuantumIO): Promise<string | null> {
  const r = await readTextFile(file);
  if (r.ok) return r.text;
  io.stderr(`ERROR: ${what} ${r.reason === 'missing' ? 'not found' : 'is not a file'}: ${file}\n`);
  return null;
}

function loadCircuit(text: string, file: string, io: QuantumIO): { name: string; circuit: Circuit } | null {
  try {
    const ir = parseQuantumIR(text, { allowBareCircuit: true });
    return { name: ir.circuit.name || ir.algorithm_id || path.basename(file), circuit: ir.circuit };
  } catch (err) {
    io.stderr(`ERROR: ${file}: ${messageOf(err)}\n`);
    return null;
  }
}

export async function runValidator(
  options: ValidatorOptions,
  io: QuantumIO,
  deps: { now?: () => Date } = {},
): Promise<number> {
  const log = options.verbose && !options.quiet ? (line: string) => io.stderr(`${line}\n`) : undefined;
  log?.(`Loading circuit ${options.input}`);
  const text = await load(options.input, 'Circuit file', io);
  if (text === null) return EXIT.failure;
  const circuit = loadCircuit(text, options.input, io);
  if (circuit === null) return EXIT.failure;

  let reference: { name: string; circuit: Circuit } | undefined;
  if (options.reference !== undefined) {
    const refText = await load(options.reference, 'Reference file', io);
    if (refText === null) return EXIT.failure;
    const loaded = loadCircuit(refText, options.reference, io);
    if (loaded === null) return EXIT.failure;
    reference = { name: options.reference, circuit: loaded.circuit };
  }
  let testSuite: TestSuite | undefined;
  if (options.testSuite !== undefined) {
    const suiteText = await load(options.testSuite, 'Test suite file', io);
    if (suiteText === null) return EXIT.failure;
    try {
      testSuite = parseTestSuite(suiteText);
    } catch (err) {
      io.stderr(`ERROR: ${options.testSuite}: ${messageOf(err)}\n`);
      return EXIT.failure;
    }
  }
  let codegen: { name: string; text: string } | undefined;
  if (options.checkCodegen !== undefined) {
    const program = await load(options.checkCodegen, 'Program file', io);
    if (program === null) return EXIT.failure;
    codegen = { name: options.checkCodegen, text: program };
  }

  const report = validateCircuit(circuit.circuit, {
    circuitName: circuit.name,
    method: options.method,
    tolerance: options.tolerance,
    matrixSizeLimit: options.matrixSizeLimit,
    nShots: options.nShots,
    seed: options.seed,
    tvdThreshold: options.tvdThreshold,
    compareWith: options.compareWith,
    skipEquivalence: options.skipEquivalence,
    skipTests: options.skipTests,
    ...(reference === undefined ? {} : { reference }),
    ...(testSuite === undefined ? {} : { testSuite }),
    ...(codegen === undefined ? {} : { codegen }),
    ...(log === undefined ? {} : { log }),
    ...(deps.now === undefined ? {} : { now: deps.now }),
  });
  const rendered = renderReport(report, options.format);
  if (options.output === undefined) io.stdout(rendered);
  else {
    await writeText(options.output, rendered);
    if (!options.quiet) io.stdout(`Report saved to: ${options.output}\n`);
  }
  log?.(
    `Validation ${report.passed ? 'passed' : 'failed'} (${report.error_count} errors, ${report.warning_count} warnings)`,
  );
  return report.passed ? EXIT.ok : EXIT.failure;
}

/** `pks validator`: its `<circuit.json>` is required, so commander has checked that it is there. */
export const tool: QuantumTool<ValidatorOptions> = {
  validate: (input, o) => parseValidatorOptions(input!, o),
  run: (options, ctx) => runValidator(options, ctx.io),
};
