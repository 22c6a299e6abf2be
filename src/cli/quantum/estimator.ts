/** `pks estimator [circuit.json]` (CONTRACT §17.6). */
import {
  circuitDepth,
  demoCircuit,
  estimateResources,
  gateCount,
  loadQuantumIR,
  parseHardwareParams,
  parseQuantumIR,
  renderEstimateJson,
  renderEstimateMarkdown,
  type HardwareParams,
  type QuantumIR,
} from '../../quantum/index.js';
import { EXIT, UsageError } from '../errors.js';
import { messageOf, parseChoiceFlag, stringFlag, readInputText, writeText, type QuantumIO } from './common.js';
import type { QuantumTool } from './tool.js';

export interface EstimatorOptions {
  readonly input: string | undefined;
  readonly demo: boolean;
  readonly format: 'markdown' | 'json' | 'both';
  readonly output: string | undefined;
  /** The raw `--hardware-params` text (parsed in the run: its errors exit 1, CONTRACT §17.6). */
  readonly hardwareParams: string | undefined;
  readonly algorithmName: string | undefined;
  readonly quiet: boolean;
}

export function parseEstimatorOptions(input: string | undefined, o: Record<string, unknown>): EstimatorOptions {
  const demo = o.demo === true;
  if (input === undefined && !demo) throw new UsageError('a circuit file or --demo is required');
  return {
    input,
    demo,
    format: parseChoiceFlag('--format', o.format ?? 'markdown', ['markdown', 'json', 'both'] as const),
    output: stringFlag(o.output),
    hardwareParams: stringFlag(o.hardwareParams),
    algorithmName: stringFlag(o.algorithmName),
    quiet: o.quiet === true,
  };
}

/** `PATH` with its extension replaced by `ext` (`report.txt` → `report.md`). */
export function withExtension(file: string, ext: string): string {
  const base = file.replace(/\.[^./\\]*$/, '');
  return `${base}${ext}`;
}

export async function runEstimator(
  options: EstimatorOptions,
  io: QuantumIO,
  deps: { now?: () => Date } = {},
): Promise<number> {
  let hardware: HardwareParams | undefined;
  if (options.hardwareParams !== undefined) {
    try {
      hardware = parseHardwareParams(options.hardwareParams);
    } catch (err) {
      io.stderr(`Error: ${messageOf(err)}\n`);
      return EXIT.failure;
    }
  }
  let ir: QuantumIR;
  if (options.input !== undefined) {
    const text = await readInputText(options.input, 'Circuit', io);
    if (text === null) return EXIT.failure;
    try {
      ir = parseQuantumIR(text, { allowBareCircuit: true });
    } catch (err) {
      io.stderr(`Error: ${messageOf(err)}\n`);
      return EXIT.failure;
    }
  } else {
    ir = loadQuantumIR({ algorithm_id: 'bell_state_demo', circuit: demoCircuit() });
  }
  const report = estimateResources(ir, {
    ...(options.algorithmName === undefined ? {} : { algorithmName: options.algorithmName }),
    ...(hardware === undefined ? {} : { hardware }),
    now: deps.now?.() ?? new Date(),
  });
  const outputs: [string, string][] = [];
  if (options.format !== 'json') outputs.push(['.md', renderEstimateMarkdown(report)]);
  if (options.format !== 'markdown') outputs.push(['.json', renderEstimateJson(report)]);
  if (options.output === undefined) io.stdout(outputs.map(([, text]) => text).join('\n'));
  else
    for (const [ext, text] of outputs) {
      const file = withExtension(options.output, ext);
      await writeText(file, text);
      if (!options.quiet) io.stdout(`Report saved to: ${file}\n`);
    }
  if (!options.quiet && options.output === undefined)
    io.stderr(
      `Summary: ${gateCount(ir.circuit)} gates, ${circuitDepth(ir.circuit)} depth, ${ir.circuit.num_qubits} qubits\n`,
    );
  return EXIT.ok;
}

/** `pks estimator`: without a circuit, `--demo` is required (checked by `parseEstimatorOptions`). */
export const tool: QuantumTool<EstimatorOptions> = {
  validate: parseEstimatorOptions,
  run: (options, ctx) => runEstimator(options, ctx.io),
};
