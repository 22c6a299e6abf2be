/** `pks designer <algorithm-file|wiki-page-id>` (CONTRACT §17.3). */
import {
  designCircuit,
  generateCode,
  InvalidParameterError,
  listPrimitivesText,
  loadAlgorithmInput,
  parseAssignment,
  summaryText,
  visualizationText,
  type OptimizationLevel,
  type ParamMap,
  type QuantumIR,
} from '../../quantum/index.js';
import { EXIT, UsageError } from '../errors.js';
import { messageOf, stringFlag, writeText, type QuantumIO } from './common.js';
import type { QuantumTool } from './tool.js';

export interface DesignerOptions {
  /** `undefined` only with `listPrimitives`. */
  readonly input: string | undefined;
  readonly optimizationLevel: OptimizationLevel;
  /** IR output file; `-` = stdout. */
  readonly output: string | undefined;
  readonly visualize: boolean;
  readonly params: ParamMap;
  readonly exportQasm: string | undefined;
  readonly exportQasm3: string | undefined;
  readonly exportQiskit: string | undefined;
  readonly listPrimitives: boolean;
}

export interface DesignerDeps {
  /** `wiki_dir` of the configuration (relative to the CWD). */
  readonly wikiDir: string;
  readonly now?: () => Date;
}

/** `0`..`3` or `O0`..`O3`. */
export function parseOptimizationLevel(value: unknown): OptimizationLevel {
  const m = /^[oO]?([0-3])$/.exec(String(value).trim());
  if (!m) throw new UsageError(`-O/--optimization-level must be 0..3 or O0..O3, got '${String(value)}'`);
  return Number(m[1]) as OptimizationLevel;
}

/** Validates the parsed command line (no I/O). */
export function parseDesignerOptions(input: string | undefined, o: Record<string, unknown>): DesignerOptions {
  const listPrimitives = o.listPrimitives === true;
  if (input === undefined && !listPrimitives)
    throw new UsageError("missing required argument 'algorithm-file|wiki-page-id'");
  const params: ParamMap = {};
  for (const text of (o.param as string[] | undefined) ?? []) {
    const kv = parseAssignment(text);
    if (kv === null) throw new UsageError(`-p/--param expects k=v, got '${text}'`);
    params[kv[0]] = kv[1];
  }
  return {
    input,
    optimizationLevel: parseOptimizationLevel(o.optimizationLevel ?? '1'),
    output: stringFlag(o.output),
    visualize: o.visualize === true,
    params,
    exportQasm: stringFlag(o.exportQasm),
    exportQasm3: stringFlag(o.exportQasm3),
    exportQiskit: stringFlag(o.exportQiskit),
    listPrimitives,
  };
}

export async function runDesigner(options: DesignerOptions, io: QuantumIO, deps: DesignerDeps): Promise<number> {
  if (options.listPrimitives) {
    io.stdout(listPrimitivesText());
    return EXIT.ok;
  }
  const now = deps.now?.() ?? new Date();
  // With `-o -` the IR owns stdout and the messages go to stderr.
  const say = options.output === '-' ? io.stderr : io.stdout;
  let ir: QuantumIR;
  try {
    const input = await loadAlgorithmInput(options.input!, deps.wikiDir);
    ir = designCircuit(input, { optimizationLevel: options.optimizationLevel, params: options.params, now }).ir;
  } catch (err) {
    // A parameter no circuit can be built from is a usage error (exit 2), like a bad flag.
    if (err instanceof InvalidParameterError) throw new UsageError(err.message);
    io.stderr(`Error: ${messageOf(err)}\n`);
    return EXIT.failure;
  }
  say(options.visualize ? visualizationText(ir) : summaryText(ir));

  const json = `${JSON.stringify(ir, null, 2)}\n`;
  if (options.output === '-') io.stdout(json);
  else if (options.output !== undefined) {
    await writeText(options.output, json);
    say(`Circuit saved to: ${options.output}\n`);
  }
  const exports: [string | undefined, 'qasm2' | 'qasm3' | 'qiskit', string][] = [
    [options.exportQasm, 'qasm2', 'QASM exported to'],
    [options.exportQasm3, 'qasm3', 'QASM3 exported to'],
    [options.exportQiskit, 'qiskit', 'Qiskit code exported to'],
  ];
  for (const [file, backend, label] of exports) {
    if (file === undefined) continue;
    let code: string;
    try {
      code = generateCode(ir, backend, { now });
    } catch (err) {
      io.stderr(`Error: cannot export ${backend}: ${messageOf(err)}\n`);
      return EXIT.failure;
    }
    await writeText(file, code);
    say(`${label}: ${file}\n`);
  }
  return EXIT.ok;
}

/** `pks designer`: `--list-primitives` reads no configuration. */
export const tool: QuantumTool<DesignerOptions> = {
  validate: parseDesignerOptions,
  run: (options, ctx) => runDesigner(options, ctx.io, { wikiDir: options.listPrimitives ? '' : ctx.config().wikiDir }),
};
