/** Markdown and JSON renderings of an estimator report (CONTRACT §17.6). */
import type { EstimateReport } from './estimate.js';

export function renderEstimateJson(r: EstimateReport): string {
  return `${JSON.stringify(r, null, 2)}\n`;
}

export function renderEstimateMarkdown(r: EstimateReport): string {
  const s = r.circuit_statistics;
  const pct = (a: number, b: number) => (b === 0 ? '0.0%' : `${((100 * a) / b).toFixed(1)}%`);
  const out = [
    `# Resource Estimation Report: ${r.report_metadata.algorithm_name}`,
    '',
    `Generated at ${r.report_metadata.generated_at}`,
    '',
    '## Circuit Overview',
    '',
    `- Qubits: ${s.num_qubits}`,
    `- Classical bits: ${s.num_clbits}`,
    `- Total gates: ${s.total_gates}`,
    `- Depth: ${s.depth}`,
    '',
    '## Qubit Statistics',
    '',
    `- Qubits used: ${s.qubits_used} of ${s.num_qubits} (utilisation ${pct(s.qubits_used, s.num_qubits)})`,
    '',
    '## Gate Statistics',
    '',
    `- Single-qubit gates: ${s.single_qubit_gates}`,
    `- Two-qubit gates: ${s.two_qubit_gates}`,
    `- Multi-qubit gates: ${s.multi_qubit_gates}`,
    `- Measurements: ${s.measurement_gates}`,
    `- T gates (T + T†): ${s.t_gates}`,
    '',
    '### Gate Breakdown',
    '',
    '| Gate | Count | Share |',
    '|---|---|---|',
    ...Object.entries(s.gate_counts).map(([g, k]) => `| ${g} | ${k} | ${pct(k, s.total_gates)} |`),
    '',
    '## Circuit Depth Analysis',
    '',
    `- Depth: ${s.depth}`,
    `- Parallelism (gates per layer): ${s.parallelism.toFixed(2)}`,
  ];
  const t = r.execution_time_estimate;
  const hw = r.hardware_parameters;
  if (t !== undefined && hw !== undefined)
    out.push(
      '',
      '## Execution Time Estimate',
      '',
      `- Gate times: ${hw.gate_time} ns (one-qubit), ${hw.two_qubit_gate_time} ns (multi-qubit), ${hw.measurement_time} ns (measurement)`,
      `- Sequential: ${t.sequential_ns} ns`,
      `- Critical path: ${t.critical_path_ns} ns`,
      `- Estimated time: ${t.estimated_time_ms} ms`,
      `- Coherence time: ${hw.coherence_time} µs — ${t.coherence_limited ? '**exceeded**' : 'within limit'}`,
    );
  out.push('', '## Optimization Suggestions', '');
  const tips = r.optimization_suggestions ?? [];
  if (tips.length === 0) out.push('No suggestions.');
  for (const tip of tips)
    out.push(`- **${tip.category}** (${tip.priority}): ${tip.description}. Impact: ${tip.potential_impact}.`);
  out.push(
    '',
    '## Summary',
    '',
    `${s.total_gates} gates, depth ${s.depth}, ${s.num_qubits} qubits${t === undefined ? '' : `, about ${t.estimated_time_ms} ms`}.`,
    '',
  );
  return out.join('\n');
}
