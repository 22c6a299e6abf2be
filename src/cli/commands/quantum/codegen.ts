import { outputOption } from '../common-options.js';
import type { RegisterCommand } from '../host.js';
import { circuitArgument, toolCommand } from './tool.js';

/** `pks codegen` (CONTRACT §17.4): a program from a Quantum IR. */
export const registerCodegen: RegisterCommand = (program, host) => {
  toolCommand(program, host, 'codegen', () => import('../../quantum/codegen.js'))
    .description('generate a Qiskit, QPanda, OpenQASM 2.0 or OpenQASM 3 program from a Quantum IR')
    .addArgument(circuitArgument('<ir.json>'))
    .option('--backend <backend>', 'qiskit, qpanda, qasm2 or qasm3', 'qiskit')
    .addOption(outputOption('write the program to FILE (parents created)'))
    .option('-d, --description <text>', 'description in the program header');
};
