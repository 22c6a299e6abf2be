/** Text, JSON and markdown renderings of a validation report (CONTRACT §17.5). */
import type { Comparison, ValidationReport } from './validate.js';

export const REPORT_FORMATS = ['text', 'json', 'markdown', 'md'] as const;
export type ReportFormat = 'text' | 'json' | 'markdown';

const fmt = (x: number | null, digits = 6): string => (x === null ? 'n/a' : x.toFixed(digits));
const sci = (x: number | null): string => (x === null ? 'n/a' : x.toExponential(3));
const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;
/** Counts sorted by bitstring (object key order would put integer-like keys such as `11` first). */
const countsText = (counts: Record<string, number>): string =>
  Object.keys(counts)
    .sort()
    .map((k) => `${k}: ${counts[k]}`)
    .join(', ');

function comparisonLines(c: Comparison): string[] {
  const lines = [`${c.name}: ${c.status}${c.phase_difference === null ? '' : ` (phase ${fmt(c.phase_difference)})`}`];
  if (c.message !== null && c.status !== 'MATCH') lines.push(`  ${c.message}`);
  const m = c.metrics;
  if (m !== null) {
    const r = (x: number | null) => (x === null ? 'n/a' : x.toFixed(2));
    lines.push(
      `  Qubits: ${m.qubits.circuit} vs ${m.qubits.reference}; classical bits: ${m.clbits.circuit} vs ${m.clbits.reference}`,
      `  Gate count: ${m.gate_count.circuit} vs ${m.gate_count.reference} (difference ${m.gate_count.difference}, ratio ${r(m.gate_count.ratio)})`,
      `  Depth: ${m.depth.circuit} vs ${m.depth.reference} (difference ${m.depth.difference}, ratio ${r(m.depth.ratio)})`,
      `  Two-qubit gates: ${m.two_qubit_gates.circuit} vs ${m.two_qubit_gates.reference}`,
    );
  }
  return lines;
}

export function renderText(r: ValidationReport): string {
  const rule = '='.repeat(70);
  const thin = '-'.repeat(70);
  const section = (title: string, body: string[]) => ['', thin, title, thin, ...body];
  const out = [
    rule,
    'QUANTUM CIRCUIT VALIDATION REPORT',
    rule,
    `Circuit: ${r.circuit_name}`,
    `Validation time: ${r.validation_time}`,
    `Method: ${r.method}`,
    `Execution time: ${r.execution_time_ms.toFixed(1)} ms`,
    '',
    `OVERALL RESULT: ${r.passed ? '✓ PASSED' : '✗ FAILED'}`,
  ];
  if (r.equivalence !== undefined) {
    const e = r.equivalence;
    const body = [
      `Equivalent: ${e.is_equivalent ? 'yes' : 'no'}`,
      `Phase difference: ${fmt(e.phase_difference)}`,
      `Max difference: ${sci(e.max_difference)}`,
    ];
    if (r.sampling !== undefined)
      body.push(
        `Shots: ${r.sampling.n_shots}, seed ${r.sampling.seed}, TVD ${fmt(r.sampling.tvd)}`,
        `Counts (circuit): ${countsText(r.sampling.counts_a)}`,
        `Counts (reference): ${countsText(r.sampling.counts_b)}`,
      );
    if (e.error_message !== null) body.push(`Message: ${e.error_message}`);
    out.push(...section('EQUIVALENCE CHECK', body));
  }
  if (r.tests !== undefined) {
    const t = r.tests;
    const mark = { PASSED: '✓', FAILED: '✗', SKIPPED: '-' } as const;
    out.push(
      ...section('TEST EXECUTION', [
        `Suite: ${t.suite_name}`,
        `Total: ${t.total}, passed: ${t.passed}, failed: ${t.failed}, skipped: ${t.skipped} (pass rate ${pct(t.pass_rate)})`,
        ...t.cases.map((c) => `  ${mark[c.status]} ${c.name}: ${c.status} - ${c.message}`),
      ]),
    );
  }
  if (r.comparisons.length > 0) out.push(...section('REFERENCE COMPARISONS', r.comparisons.flatMap(comparisonLines)));
  if (r.errors.length > 0)
    out.push(
      ...section(
        'ERRORS',
        r.errors.map((e, i) => `${i + 1}. ${e}`),
      ),
    );
  if (r.warnings.length > 0)
    out.push(
      ...section(
        'WARNINGS',
        r.warnings.map((w, i) => `${i + 1}. ${w}`),
      ),
    );
  out.push(rule, '');
  return out.join('\n');
}

export function renderMarkdown(r: ValidationReport): string {
  const out = [
    `# Validation Report: ${r.circuit_name}`,
    '',
    r.passed ? '✅ **PASSED**' : '❌ **FAILED**',
    '',
    `- Validation time: ${r.validation_time}`,
    `- Method: ${r.method}`,
    `- Execution time: ${r.execution_time_ms.toFixed(1)} ms`,
  ];
  if (r.equivalence !== undefined) {
    const e = r.equivalence;
    out.push(
      '',
      '## Equivalence Check',
      '',
      `- Equivalent: ${e.is_equivalent ? 'yes' : 'no'}`,
      `- Phase difference: ${fmt(e.phase_difference)}`,
      `- Max difference: ${sci(e.max_difference)}`,
    );
    if (r.sampling !== undefined)
      out.push(`- Shots: ${r.sampling.n_shots}, seed ${r.sampling.seed}, TVD ${fmt(r.sampling.tvd)}`);
    if (e.error_message !== null) out.push(`- Message: ${e.error_message}`);
  }
  if (r.tests !== undefined) {
    const t = r.tests;
    out.push(
      '',
      '## Test Execution',
      '',
      `Suite **${t.suite_name}**: ${t.passed}/${t.total} passed, ${t.failed} failed, ${t.skipped} skipped (pass rate ${pct(t.pass_rate)})`,
      '',
      '| Test | Status | Details |',
      '|---|---|---|',
      ...t.cases.map((c) => `| ${c.name} | ${c.status} | ${c.message.replace(/\|/g, '\\|')} |`),
    );
  }
  if (r.comparisons.length > 0) {
    out.push(
      '',
      '## Reference Comparisons',
      '',
      '| Reference | Status | Phase | Gates | Depth |',
      '|---|---|---|---|---|',
    );
    for (const c of r.comparisons) {
      const m = c.metrics;
      out.push(
        `| ${c.name} | ${c.status} | ${fmt(c.phase_difference)} | ${m === null ? 'n/a' : `${m.gate_count.circuit} vs ${m.gate_count.reference}`} | ${m === null ? 'n/a' : `${m.depth.circuit} vs ${m.depth.reference}`} |`,
      );
    }
  }
  if (r.errors.length > 0) out.push('', '## Errors', '', ...r.errors.map((e, i) => `${i + 1}. ${e}`));
  if (r.warnings.length > 0) out.push('', '## Warnings', '', ...r.warnings.map((w, i) => `${i + 1}. ${w}`));
  out.push('');
  return out.join('\n');
}

export function renderJson(r: ValidationReport): string {
  return `${JSON.stringify(r, null, 2)}\n`;
}

export function renderReport(r: ValidationReport, format: ReportFormat): string {
  return format === 'json' ? renderJson(r) : format === 'markdown' ? renderMarkdown(r) : renderText(r);
}
