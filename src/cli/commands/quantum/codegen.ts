import type { RegisterCommand } from '../host.js';
import { circuitArgument, toolAction } from './tool.js';

/** `pks codegen` (CONTRACT §17.4): a program from a Quantum IR. */
export const registerCodegen: RegisterCommand = (program, host) => {
  program
    .command('codegen')
    .description('generate a Qiskit, QPanda, OpenQASM 2.0 or OpenQASM 3 program from a Quantum IR')
    .addArgument(circuitArgument('<ir.json>'))
    .option('--backend <backend>', 'qiskit, qpanda, qasm2 or qasm3', 'qiskit')
    .option('-o, --output <file>', 'write the program to FILE (parents created)')
    .option('-d, --description <text>', 'description in the program header')
    .action(
      toolAction(
        host,
        () => import('../../quantum/codegen.js'),
        (tool, input, o) => tool.parseCodegenOptions(input!, o),
        (tool, options, ctx) => tool.runCodegen(options, ctx.io),
      ),
    );
};
