/**
 * Synthetic wiki generator for tests and benchmarks: `generateWiki(dir, n)` writes `n` valid pages (deterministic,
 * seeded) with frontmatter, a `## Definition` section, a few paragraphs and wikilinks of all four forms.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { mulberry32 } from '../support/random.js';

export interface GenerateOptions {
  /** PRNG seed (default 1). */
  seed?: number;
  /** Every `sourceEvery`-th page is a `source` paper page (default 10; 0 = none). */
  sourceEvery?: number;
  /** Approximate number of body paragraphs per page (default 4). */
  paragraphs?: number;
  /** Date written into created_at/updated_at (default 2026-01-15). */
  date?: string;
}

export interface GeneratedWiki {
  dir: string;
  ids: string[];
  /** Total bytes written. */
  bytes: number;
}

const WORDS = (
  'qubit superposition entanglement amplitude phase gate circuit unitary measurement basis hadamard controlled ' +
  'fourier transform eigenvalue eigenvector oracle search period factoring modular exponentiation error correction ' +
  'stabilizer syndrome logical physical decoherence fidelity noise channel density matrix operator hamiltonian ' +
  'evolution adiabatic annealing variational ansatz optimisation classical register ancilla teleportation bell ' +
  'state tensor product hilbert space probability interference reflection rotation bloch sphere pauli clifford ' +
  'toffoli threshold surface lattice topological anyon braiding readout calibration compiler transpiler depth width'
).split(' ');

const CATEGORIES = ['algorithm', 'primitive', 'technique', 'problem', 'framework'];
const PREFIX: Record<string, string> = {
  algorithm: 'algo',
  primitive: 'prim',
  technique: 'concept',
  problem: 'concept',
  framework: 'concept',
};
const STATUSES = ['draft', 'review', 'published'];

/** Write `n` pages under `dir` (created if needed); returns their ids in creation order. */
export async function generateWiki(dir: string, n: number, options: GenerateOptions = {}): Promise<GeneratedWiki> {
  const random = mulberry32(options.seed ?? 1);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const sourceEvery = options.sourceEvery ?? 10;
  const paragraphs = options.paragraphs ?? 4;
  const date = options.date ?? '2026-01-15';

  const specs = Array.from({ length: n }, (_, i) => {
    const isSource = sourceEvery > 0 && i % sourceEvery === sourceEvery - 1;
    const category = isSource ? 'paper' : CATEGORIES[i % CATEGORIES.length]!;
    const w1 = pick(WORDS);
    const w2 = pick(WORDS);
    const id = isSource
      ? `paper-preprint-${10 + (i % 15)}${String(1 + (i % 12)).padStart(2, '0')}.${String(i).padStart(5, '0')}v1`
      : `${PREFIX[category]}-${w1}-${w2}-${i}`;
    return { i, id, category, isSource, title: `${cap(w1)} ${cap(w2)} ${i}` };
  });

  await mkdir(dir, { recursive: true });
  const dirs = ['concepts', 'sources/papers'];
  for (const d of dirs) await mkdir(path.join(dir, d), { recursive: true });

  let bytes = 0;
  const writes: Promise<void>[] = [];
  for (const spec of specs) {
    const other = (): string => specs[Math.floor(random() * n)]!.id;
    const tags = [pick(WORDS), pick(WORDS)];
    const fm = [
      '---',
      `id: ${spec.id}`,
      `title: ${spec.title}`,
      `type: ${spec.isSource ? 'source' : 'concept'}`,
      `category: ${spec.category}`,
      `tags: [${tags.join(', ')}]`,
      `created_at: ${date}`,
      `updated_at: ${date}`,
      `status: ${STATUSES[spec.i % STATUSES.length]}`,
      `related: [${other()}]`,
      ...(spec.isSource ? [`doi: 10.5555/synthetic.${spec.i}`, 'doi_source: manual'] : []),
      '---',
    ];
    const body: string[] = [
      `# ${spec.title}`,
      '',
      '## Definition',
      '',
      sentence(random, 18) + ` See [[${other()}]] and [[${other()}|a related page]].`,
    ];
    for (let p = 0; p < paragraphs; p++) {
      body.push(
        '',
        `## Part ${p + 1}`,
        '',
        sentence(random, 40) + ` Compare [[${other()}#details]], and [[#definition]].`,
      );
    }
    body.push('', '```python', `# [[not-a-link]] inside code`, 'print("hello")', '```', '');
    const text = fm.join('\n') + '\n' + body.join('\n');
    bytes += Buffer.byteLength(text);
    const sub = spec.isSource ? 'sources/papers' : 'concepts';
    writes.push(writeFile(path.join(dir, sub, `${spec.id}.md`), text));
    if (writes.length >= 256) await Promise.all(writes.splice(0));
  }
  await Promise.all(writes);
  return { dir, ids: specs.map((s) => s.id), bytes };
}

function sentence(random: () => number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(WORDS[Math.floor(random() * WORDS.length)]!);
  const text = out.join(' ');
  return `${cap(text)}.`;
}

function cap(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}
