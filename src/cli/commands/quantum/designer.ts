import { outputOption } from '../common-options.js';
import type { RegisterCommand } from '../host.js';
import { collect } from './collect.js';
import { toolCommand } from './tool.js';

/** `pks designer` (CONTRACT §17.3): a circuit from an algorithm file or a wiki page. */
export const registerDesigner: RegisterCommand = (program, host) => {
  toolCommand(program, host, 'designer', () => import('../../quantum/designer.js'))
    .description('design a circuit from an algorithm file or a wiki page (built-in primitives, optimiser O0–O3)')
    .argument('[algorithm-file|wiki-page-id]', 'a .yaml/.yml/.json algorithm file or a page id of the local wiki')
    .option('-O, --optimization-level <level>', 'optimisation level 0..3 (or O0..O3)', '1')
    .addOption(outputOption('write the Quantum IR (JSON) to FILE (- = stdout)'))
    .option('-v, --visualize', 'print the circuit drawing and statistics')
    .option('-p, --param <k=v>', 'set a parameter (repeatable; overrides the input)', collect)
    .option('--export-qasm <file>', 'also write OpenQASM 2.0')
    .option('--export-qasm3 <file>', 'also write OpenQASM 3')
    .option('--export-qiskit <file>', 'also write a Qiskit program')
    .option('--list-primitives', 'list the built-in primitives and exit');
};
