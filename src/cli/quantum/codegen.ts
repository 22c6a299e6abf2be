/** `pks codegen <ir.json>` (CONTRACT §17.4). */
import {
  BACKENDS,
  circuitDepth,
  gateCount,
  generateCode,
  parseQuantumIR,
  type Backend,
  type QuantumIR,
} from '../../quantum/index.js';
import { EXIT } from '../errors.js';
import { messageOf, parseChoiceFlag, stringFlag, readInputText, writeText, type QuantumIO } from './common.js';
import type { QuantumTool } from './tool.js';

export interface CodegenOptions {
  readonly input: string;
  readonly backend: Backend;
  readonly output: string | undefined;
  readonly description: string | undefined;
}

export function parseCodegenOptions(input: string, o: Record<string, unknown>): CodegenOptions {
  return {
    input,
    backend: parseChoiceFlag('--backend', o.backend ?? 'qiskit', BACKENDS),
    output: stringFlag(o.output),
    description: stringFlag(o.description),
  };
}

export async function runCodegen(
  options: CodegenOptions,
  io: QuantumIO,
  deps: { now?: () => Date } = {},
): Promise<number> {
  const text = await readInputText(options.input, 'Input', io);
  if (text === null) return EXIT.failure;
  let ir: QuantumIR;
  try {
    ir = parseQuantumIR(text, { allowBareCircuit: true });
  } catch (err) {
    io.stderr(`Error loading Quantum IR: ${messageOf(err)}\n`);
    return EXIT.failure;
  }
  let code: string;
  try {
    code = generateCode(ir, options.backend, {
      now: deps.now?.() ?? new Date(),
      ...(options.description === undefined ? {} : { description: options.description }),
    });
  } catch (err) {
    io.stderr(`Error generating code: ${messageOf(err)}\n`);
    return EXIT.failure;
  }
  if (options.output === undefined) {
    io.stdout(code);
    return EXIT.ok;
  }
  await writeText(options.output, code);
  io.stdout(
    [
      `Generated code saved to: ${options.output}`,
      `  Backend: ${options.backend}`,
      `  Algorithm: ${ir.algorithm_id}`,
      `  Qubits: ${ir.circuit.num_qubits}`,
      `  Gates: ${gateCount(ir.circuit)}`,
      `  Depth: ${circuitDepth(ir.circuit)}`,
      '',
    ].join('\n'),
  );
  return EXIT.ok;
}

/** `pks codegen`: its `<ir.json>` is required, so commander has checked that it is there. */
export const tool: QuantumTool<CodegenOptions> = {
  validate: (input, o) => parseCodegenOptions(input!, o),
  run: (options, ctx) => runCodegen(options, ctx.io),
};
