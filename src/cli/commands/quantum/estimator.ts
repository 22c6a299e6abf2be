import type { RegisterCommand } from '../host.js';
import { circuitArgument, toolAction } from './tool.js';

/** `pks estimator` (CONTRACT §17.6): gate statistics, depth, execution time, suggestions. */
export const registerEstimator: RegisterCommand = (program, host) => {
  program
    .command('estimator')
    .description('estimate the resources of a circuit: gate statistics, depth, execution time, suggestions')
    .addArgument(circuitArgument('[circuit.json]'))
    .option('--format <format>', 'markdown, json or both', 'markdown')
    .option('-o, --output <path>', 'write the report(s) to PATH with .md/.json extension')
    .option('--hardware-params <json>', 'gate_time, two_qubit_gate_time, measurement_time (ns), coherence_time (µs)')
    .option('-n, --algorithm-name <name>', 'name in the report (default: the circuit name)')
    .option('--demo', 'estimate a 2-qubit Bell circuit with measurements')
    .option('-q, --quiet', 'no summary line')
    .action(
      toolAction(
        host,
        () => import('../../quantum/estimator.js'),
        (tool, input, o) => tool.parseEstimatorOptions(input, o),
        (tool, options, ctx) => tool.runEstimator(options, ctx.io),
      ),
    );
};
