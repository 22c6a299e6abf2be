/**
 * Quantum simulator benchmark (run: `npx vitest run --config bench/support/vitest.config.ts quantum`; see
 * bench/README.md).
 *
 * Side by side in the same run with qiskit-aer restricted to one thread (project venv): a 20-qubit random circuit
 * of depth 20 (target ≤ 1 s and ≤ 3× aer's statevector simulator), the 20-qubit QFT (target ≤ 0.3 s) and the full
 * unitary of a 10-qubit random depth-20 circuit (target ≤ 1 s; baseline aer's unitary simulator). Both sides run
 * the same circuit (aer executes the program `pks codegen` writes) and the final states are compared. Best of 3
 * runs each; targets are reported, not asserted.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import {
  circuitDepth,
  circuitUnitary,
  designCircuit,
  gate,
  generateCode,
  loadQuantumIR,
  simulateStatevector,
  type Circuit,
  type Gate,
  type QuantumIR,
} from '../src/quantum/index.js';
import { mulberry32 } from '../test/support/random.js';
import { peakRssMiB } from './support/load.js';
import { runQiskitScript } from './support/qiskit.js';

const ROUNDS = 3;

/** Times `create_circuit()` of a generated Qiskit program on AerSimulator with one thread; best of ROUNDS. */
const AER_SCRIPT = String.raw`
import json, resource, sys, time
import numpy as np
from qiskit import transpile
from qiskit_aer import AerSimulator

jobs = json.load(open(sys.argv[1]))["jobs"]
out = []
for job in jobs:
    scope = {"__name__": "pks_bench"}
    exec(compile(job["program"], "<generated>", "exec"), scope)
    circuit = scope["create_circuit"]()
    circuit.remove_final_measurements(inplace=True)
    method = job["method"]
    if method == "statevector":
        circuit.save_statevector()
    else:
        circuit.save_unitary()
    sim = AerSimulator(method=method, max_parallel_threads=1, max_parallel_experiments=1, max_parallel_shots=1)
    compiled = transpile(circuit, sim, optimization_level=0)
    times = []
    cpu = []
    for _ in range(job["rounds"]):
        t0 = time.perf_counter()
        c0 = time.process_time()
        result = sim.run(compiled).result()
        cpu.append(time.process_time() - c0)
        times.append(time.perf_counter() - t0)
    data = result.get_statevector() if method == "statevector" else result.get_unitary()
    np.ascontiguousarray(np.asarray(data), dtype="<c16").tofile(job["dump"])
    out.append({"name": job["name"], "seconds": times, "cpu_seconds": cpu, "aer_time_taken": result.time_taken})
json.dump({"results": out, "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}, sys.stdout)
`;
import { machine } from './support/papers-util.js';

interface AerResult {
  name: string;
  seconds: number[];
  cpu_seconds: number[];
  aer_time_taken: number;
}

const lines: string[] = [];
const report = (line: string) => {
  lines.push(line);
  console.log(line);
};
const ms = (s: number) => `${(s * 1000).toFixed(1)} ms`;
const verdict = (ok: boolean) => (ok ? 'meets target' : 'MISSES target');

/** Layers in which every qubit is touched exactly once: depth is exactly `depth`. */
function randomLayers(n: number, depth: number, seed: number): Circuit {
  const rng = mulberry32(seed);
  const one = ['H', 'X', 'Y', 'Z', 'S', 'SDG', 'T', 'TDG', 'SX', 'RX', 'RY', 'RZ', 'P', 'U'];
  const two = ['CNOT', 'CZ', 'SWAP', 'CP', 'CRZ', 'CRY'];
  const angle = () => (rng() - 0.5) * 4 * Math.PI;
  const gates: Gate[] = [];
  for (let layer = 0; layer < depth; layer++) {
    const qs = Array.from({ length: n }, (_, q) => q);
    for (let i = qs.length - 1; i > 0; i--) {
      const j = Math.floor(rng() * (i + 1));
      [qs[i], qs[j]] = [qs[j]!, qs[i]!];
    }
    while (qs.length > 0) {
      if (qs.length >= 2 && rng() < 0.5) {
        const [a, b] = [qs.pop()!, qs.pop()!];
        const kind = two[Math.floor(rng() * two.length)]!;
        if (kind === 'SWAP') gates.push(gate('SWAP', [a, b]));
        else if (kind === 'CP') gates.push(gate('P', [b], [a], { theta: angle() }));
        else if (kind === 'CRZ') gates.push(gate('RZ', [b], [a], { theta: angle() }));
        else if (kind === 'CRY') gates.push(gate('RY', [b], [a], { theta: angle() }));
        else gates.push(gate(kind, [b], [a]));
      } else {
        const q = qs.pop()!;
        const name = one[Math.floor(rng() * one.length)]!;
        const params: Record<string, number> =
          name === 'U'
            ? { theta: angle(), phi: angle(), lambda: angle() }
            : ['RX', 'RY', 'RZ', 'P'].includes(name)
              ? { theta: angle() }
              : {};
        gates.push(gate(name, [q], [], params));
      }
    }
  }
  return loadQuantumIR({ circuit: { name: `random_${n}x${depth}`, num_qubits: n, gates } }).circuit;
}

function irOf(c: Circuit): QuantumIR {
  return loadQuantumIR({ algorithm_id: c.name, circuit: c });
}

/** Best wall-clock and best CPU time of ROUNDS runs (CPU time is the steadier figure on a shared machine). */
function best(fn: () => unknown): { best: number; first: number; cpu: number } {
  const times: number[] = [];
  const cpu: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    fn();
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1e6);
    times.push((performance.now() - t0) / 1000);
  }
  return { best: Math.min(...times), first: times[0]!, cpu: Math.min(...cpu) };
}

function reverseBits(i: number, n: number): number {
  let r = 0;
  for (let b = 0; b < n; b++) r |= ((i >> b) & 1) << (n - 1 - b);
  return r;
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pks-quantum-bench-'));
  report(`${machine()}`);
});
afterAll(async () => {
  report(`peak RSS (node): ${peakRssMiB().toFixed(0)} MiB`);
  await rm(dir, { recursive: true, force: true });
});

test('quantum simulator benchmark', async () => {
  const random20 = randomLayers(20, 20, 2026);
  const qft20 = designCircuit(
    { id: 'qft20', name: 'qft', primitives: ['primitive_qft'], inputParams: {}, qubitCount: null, notes: [] },
    { optimizationLevel: 0, params: { n: 20 } },
  ).ir.circuit;
  const random10 = randomLayers(10, 20, 7);
  expect(circuitDepth(random20)).toBe(20);

  const cases = [
    { name: 'random 20q depth 20', circuit: random20, method: 'statevector' as const, target: 1.0, ratioTarget: 3 },
    { name: 'QFT 20q', circuit: qft20, method: 'statevector' as const, target: 0.3, ratioTarget: null },
    { name: 'unitary 10q depth 20', circuit: random10, method: 'unitary' as const, target: 1.0, ratioTarget: null },
  ];

  const jobs = cases.map((c, i) => ({
    name: c.name,
    method: c.method,
    rounds: ROUNDS,
    dump: path.join(dir, `aer-${i}.bin`),
    program: generateCode(irOf(c.circuit), 'qiskit'),
  }));

  const mine = cases.map((c) => {
    let result: Float64Array = new Float64Array();
    const timing = best(() => {
      result = c.method === 'statevector' ? simulateStatevector(c.circuit) : circuitUnitary(c.circuit).data;
    });
    return { ...timing, result };
  });

  const aer = (await runQiskitScript(AER_SCRIPT, dir, jobs)) as { results: AerResult[]; peak_rss_mib: number };

  for (const [i, c] of cases.entries()) {
    const a = aer.results[i]!;
    const aerBest = Math.min(...a.seconds);
    const m = mine[i]!;
    // Same circuit on both sides: compare the results (aer orders qubits the other way round).
    const bytes = await readFile(jobs[i]!.dump);
    const theirs = new Float64Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 8);
    const n = c.circuit.num_qubits;
    let worst = 0;
    if (c.method === 'statevector') {
      for (let k = 0; k < 2 ** n; k++) {
        const j = reverseBits(k, n);
        worst = Math.max(
          worst,
          Math.hypot(m.result[2 * k]! - theirs[2 * j]!, m.result[2 * k + 1]! - theirs[2 * j + 1]!),
        );
      }
    } else {
      const dim = 2 ** n;
      for (let r = 0; r < dim; r++)
        for (let col = 0; col < dim; col++) {
          const src = 2 * (col * dim + r);
          const dst = 2 * (reverseBits(r, n) * dim + reverseBits(col, n));
          worst = Math.max(worst, Math.hypot(m.result[src]! - theirs[dst]!, m.result[src + 1]! - theirs[dst + 1]!));
        }
    }
    const ratio = m.best / aerBest;
    const aerCpu = Math.min(...a.cpu_seconds);
    const targets = [`${verdict(m.best <= c.target)} ≤ ${c.target} s`];
    if (c.ratioTarget !== null) targets.push(`${verdict(ratio <= c.ratioTarget)} ≤ ${c.ratioTarget}× aer`);
    report(
      `${c.name} (${c.circuit.gates.length} gates): pks ${ms(m.best)} (first run ${ms(m.first)}, CPU ${ms(m.cpu)}), ` +
        `aer 1 thread ${ms(aerBest)} (CPU ${ms(aerCpu)}, aer time_taken ${ms(a.aer_time_taken)}), ` +
        `ratio pks/aer ${ratio.toFixed(2)} (CPU ${(m.cpu / aerCpu).toFixed(2)}); ` +
        `max |pks − aer| ${worst.toExponential(1)}; ${targets.join(', ')}`,
    );
    expect(worst).toBeLessThan(1e-9);
  }
  report(`peak RSS (python + aer): ${aer.peak_rss_mib.toFixed(0)} MiB`);
});
