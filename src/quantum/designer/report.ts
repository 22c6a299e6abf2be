/** Text output of `pks designer` (CONTRACT §17.3): the primitive list, the summary and the `-v` block. */
import { circuitDepth, gateCount, gateCountsByType } from '../ir/metrics.js';
import type { QuantumIR } from '../ir/types.js';
import { drawCircuit } from './draw.js';
import { PRIMITIVES } from './primitives.js';

export function listPrimitivesText(): string {
  const lines = ['Available Primitives:', '-'.repeat(40)];
  for (const p of PRIMITIVES)
    lines.push(`  ${p.id}`, `    Name: ${p.name}`, `    Category: ${p.category}`, `    Qubits: ${p.defaultWidth}`, '');
  return `${lines.join('\n')}\n`;
}

export function summaryText(ir: QuantumIR): string {
  const c = ir.circuit;
  return [
    'Circuit designed successfully!',
    `  Algorithm: ${ir.algorithm_id}`,
    `  Qubits: ${c.num_qubits}`,
    `  Gates: ${gateCount(c)}`,
    `  Depth: ${circuitDepth(c)}`,
    `  Optimization: O${ir.optimization_level}`,
    '',
  ].join('\n');
}

export function visualizationText(ir: QuantumIR): string {
  const c = ir.circuit;
  const rule = '='.repeat(60);
  const counts = Object.entries(gateCountsByType(c)).map(([name, k]) => `  ${name}: ${k}`);
  return [
    rule,
    `Algorithm: ${ir.algorithm_id}`,
    `Qubits: ${c.num_qubits}`,
    `Classical bits: ${c.num_clbits}`,
    `Gate count: ${gateCount(c)}`,
    `Depth: ${circuitDepth(c)}`,
    `Optimization: O${ir.optimization_level}`,
    rule,
    drawCircuit(c),
    '',
    'Gate counts by type:',
    ...(counts.length > 0 ? counts : ['  (none)']),
    rule,
    '',
  ].join('\n');
}
