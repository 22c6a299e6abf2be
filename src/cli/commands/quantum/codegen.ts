import { defineAction, type RegisterCommand } from '../host.js';

/** `pks codegen` (CONTRACT §17.4): a program from a Quantum IR. */
export const registerCodegen: RegisterCommand = (program, host) => {
  program
    .command('codegen')
    .description('generate a Qiskit, QPanda, OpenQASM 2.0 or OpenQASM 3 program from a Quantum IR')
    .argument('<ir.json>', 'Quantum IR (or a bare circuit object)')
    .option('--backend <backend>', 'qiskit, qpanda, qasm2 or qasm3', 'qiskit')
    .option('-o, --output <file>', 'write the program to FILE (parents created)')
    .option('-d, --description <text>', 'description in the program header')
    .action(
      defineAction(
        host,
        async ([input], o) => (await import('../../quantum/codegen.js')).parseCodegenOptions(input!, o),
        async (ctx, options) => (await import('../../quantum/codegen.js')).runCodegen(options, ctx.io),
      ),
    );
};
