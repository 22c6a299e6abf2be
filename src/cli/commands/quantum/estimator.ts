import { outputOption } from '../common-options.js';
import type { RegisterCommand } from '../host.js';
import { circuitArgument, toolCommand } from './tool.js';

/** `pks estimator` (CONTRACT §17.6): gate statistics, depth, execution time, suggestions. */
export const registerEstimator: RegisterCommand = (program, host) => {
  toolCommand(program, host, 'estimator', () => import('../../quantum/estimator.js'))
    .description('estimate the resources of a circuit: gate statistics, depth, execution time, suggestions')
    .addArgument(circuitArgument('[circuit.json]'))
    .option('--format <format>', 'markdown, json or both', 'markdown')
    .addOption(outputOption('write the report(s) to PATH with .md/.json extension', 'path'))
    .option('--hardware-params <json>', 'gate_time, two_qubit_gate_time, measurement_time (ns), coherence_time (µs)')
    .option('-n, --algorithm-name <name>', 'name in the report (default: the circuit name)')
    .option('--demo', 'estimate a 2-qubit Bell circuit with measurements')
    .option('-q, --quiet', 'no summary line');
};
