/**
 * ASCII drawing of a circuit for `pks designer -v`: one row per qubit (`-` wire), a connector row between
 * neighbours (`|` where a gate spans them). Gates share a column when their qubit spans do not overlap.
 */
import type { Circuit, Gate } from '../ir/types.js';

const short = (x: number): string => String(Number(x.toFixed(3)));

function targetLabel(g: Gate): string {
  switch (g.name) {
    case 'CNOT':
    case 'CCX':
      return 'X';
    case 'CZ':
      return 'Z';
    case 'SWAP':
      return 'x';
    case 'MEASURE':
      return 'M';
    case 'BARRIER':
      return '#';
    case 'U':
      return `U(${short(g.params.theta ?? 0)},${short(g.params.phi ?? 0)},${short(g.params.lambda ?? 0)})`;
    default:
      return g.params.theta === undefined ? g.name : `${g.name}(${short(g.params.theta)})`;
  }
}

interface Placed {
  /** Row (qubit) → label. */
  cells: Map<number, string>;
  /** Rows the vertical line covers, min..max. */
  min: number;
  max: number;
}

export function drawCircuit(circuit: Circuit): string {
  const n = circuit.num_qubits;
  const columns: Placed[][] = [];
  const lastColumn = new Array<number>(n).fill(-1);
  for (const g of circuit.gates) {
    const targets =
      g.name === 'BARRIER' && g.target_qubits.length === 0 ? Array.from({ length: n }, (_, q) => q) : g.target_qubits;
    const qs = [...targets, ...g.control_qubits];
    if (qs.length === 0) continue;
    const min = Math.min(...qs);
    const max = Math.max(...qs);
    const cells = new Map<number, string>();
    targets.forEach((q, j) => cells.set(q, g.name === 'MEASURE' ? `M${g.classical_bits[j] ?? ''}` : targetLabel(g)));
    for (const q of g.control_qubits) cells.set(q, '*');
    let col = 0;
    for (let r = min; r <= max; r++) col = Math.max(col, lastColumn[r]! + 1);
    for (let r = min; r <= max; r++) lastColumn[r] = col;
    (columns[col] ??= []).push({ cells, min, max: g.name === 'BARRIER' ? min : max });
  }

  const labels = circuit.qubit_labels.map((l, q) => `${l || `q${q}`}: `);
  const prefix = Math.max(0, ...labels.map((l) => l.length));
  const wires = labels.map((l) => l.padEnd(prefix));
  const gaps = Array.from({ length: Math.max(0, n - 1) }, () => ' '.repeat(prefix));
  for (const column of columns) {
    const width = Math.max(1, ...column.flatMap((p) => [...p.cells.values()].map((s) => s.length)));
    for (let q = 0; q < n; q++) {
      const placed = column.find((p) => p.cells.has(q) || (q >= p.min && q <= p.max));
      const label = placed === undefined ? '' : (placed.cells.get(q) ?? '|');
      const left = Math.floor((width - label.length) / 2);
      wires[q] += `--${'-'.repeat(left)}${label}${'-'.repeat(width - label.length - left)}`;
      if (q < n - 1) {
        const spans = column.some((p) => q >= p.min && q + 1 <= p.max);
        const mid = Math.floor((width - 1) / 2);
        gaps[q] += `  ${' '.repeat(mid)}${spans ? '|' : ' '}${' '.repeat(width - 1 - mid)}`;
      }
    }
  }
  const lines: string[] = [];
  for (let q = 0; q < n; q++) {
    lines.push(`${wires[q]}--`);
    if (q < n - 1) lines.push(gaps[q]!.trimEnd());
  }
  return lines.join('\n');
}
