import { defineAction, type RegisterCommand } from '../host.js';

/** `pks estimator` (CONTRACT §17.6): gate statistics, depth, execution time, suggestions. */
export const registerEstimator: RegisterCommand = (program, host) => {
  program
    .command('estimator')
    .description('estimate the resources of a circuit: gate statistics, depth, execution time, suggestions')
    .argument('[circuit.json]', 'Quantum IR (or a bare circuit object)')
    .option('--format <format>', 'markdown, json or both', 'markdown')
    .option('-o, --output <path>', 'write the report(s) to PATH with .md/.json extension')
    .option('--hardware-params <json>', 'gate_time, two_qubit_gate_time, measurement_time (ns), coherence_time (µs)')
    .option('-n, --algorithm-name <name>', 'name in the report (default: the circuit name)')
    .option('--demo', 'estimate a 2-qubit Bell circuit with measurements')
    .option('-q, --quiet', 'no summary line')
    .action(
      defineAction(
        host,
        async ([input], o) => (await import('../../quantum/estimator.js')).parseEstimatorOptions(input, o),
        async (ctx, options) => (await import('../../quantum/estimator.js')).runEstimator(options, ctx.io),
      ),
    );
};
