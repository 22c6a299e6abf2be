import { outputOption, verboseOption } from '../common-options.js';
import type { RegisterCommand } from '../host.js';
import { circuitArgument, toolCommand } from './tool.js';

/** `pks validator` (CONTRACT §17.5): equivalence, test suites, built-in references, generated code. */
export const registerValidator: RegisterCommand = (program, host) => {
  toolCommand(program, host, 'validator', () => import('../../quantum/validator.js'))
    .description('check a circuit: equivalence with a reference, test suites, built-in references, generated code')
    .addArgument(circuitArgument('<circuit.json>'))
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
    .addOption(outputOption('write the report to FILE'))
    .addOption(verboseOption())
    .option('-q, --quiet', 'no logs, no "Report saved" line')
    .option('--skip-equivalence', 'skip the --reference equivalence check')
    .option('--skip-tests', 'skip the test suite');
};
