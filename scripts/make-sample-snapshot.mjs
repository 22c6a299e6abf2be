#!/usr/bin/env node
// Generates assets/sample-snapshot/: a small synthetic OpenAlex works snapshot in the upstream layout
// (data/works/manifest plus gzip JSON Lines parts, CONTRACT §12.3) for the development server. A few hundred
// quantum-computing works with arXiv ids and citations among them, plus unrelated works the bootstrap filters out.
// Deterministic (the project's seeded PRNG, from the build): rerunning it reproduces the same files.
// Usage: npm run build && node scripts/make-sample-snapshot.mjs
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { mulberry32 } from '../dist/shared/random.js';

const root = path.resolve(import.meta.dirname, '../assets/sample-snapshot');
const QUANTUM_WORKS = 320;
const OTHER_WORKS = 80;

const r = mulberry32(20260501);
const pick = (list) => list[Math.floor(r() * list.length)];

const SUBJECTS = [
  'surface codes',
  'variational quantum eigensolvers',
  'quantum approximate optimization',
  'boson sampling',
  'superconducting qubits',
  'trapped-ion quantum computers',
  'quantum error mitigation',
  'magic state distillation',
  'quantum phase estimation',
  'Grover search',
  'quantum walks',
  'topological quantum computation',
  'measurement-based quantum computation',
  'quantum supremacy experiments',
  'quantum machine learning',
  'fault-tolerant quantum computation',
  'quantum Fourier transform circuits',
  'Hamiltonian simulation',
  'quantum random access memory',
  'entanglement distillation',
];
const FORMS = [
  'Efficient %s',
  'Scalable %s',
  'A note on %s',
  'Benchmarking %s',
  'Noise-resilient %s',
  'Lower bounds for %s',
  'Resource estimates for %s',
  'Experimental demonstration of %s',
  'Improved decoders for %s',
  '%s revisited',
];
const OTHER_SUBJECTS = ['graph colouring', 'protein folding', 'labour economics', 'river sediment transport'];
const GIVEN = ['Ada', 'Boris', 'Chen', 'Dana', 'Emil', 'Fatima', 'Goran', 'Hana', 'Ivo', 'Jia', 'Kai', 'Lena'];
const FAMILY = ['Abe', 'Berg', 'Cohen', 'Diaz', 'Eriksen', 'Fujita', 'Garcia', 'Huang', 'Ito', 'Jansen', 'Kovac'];
const QUANTUM_TOPICS = [
  ['Quantum Computing Algorithms and Architecture', 'Artificial Intelligence', 'Computer Science'],
  ['Quantum Information and Cryptography', 'Atomic and Molecular Physics, and Optics', 'Physics and Astronomy'],
  ['Quantum many-body systems', 'Condensed Matter Physics', 'Physics and Astronomy'],
];

/** Two real anchor papers (the sample wiki has a page for Shor's), the rest generated. */
const ANCHORS = [
  {
    arxiv: 'quant-ph/9508027',
    year: 1995,
    title: 'Polynomial-Time Algorithms for Prime Factorization and Discrete Logarithms on a Quantum Computer',
    authors: ['Peter W. Shor'],
  },
  {
    arxiv: 'quant-ph/9605043',
    year: 1996,
    title: 'A fast quantum mechanical algorithm for database search',
    authors: ['Lov K. Grover'],
  },
];

const title = (subjects) =>
  pick(FORMS)
    .replace('%s', pick(subjects))
    .replace(/^./, (c) => c.toUpperCase());
const authors = () => Array.from({ length: 1 + Math.floor(r() * 4) }, () => `${pick(GIVEN)} ${pick(FAMILY)}`);
const workUrl = (n) => `https://openalex.org/W${9_000_000_000 + n}`;

const works = [];
for (let i = 0; i < QUANTUM_WORKS; i++) {
  const anchor = ANCHORS[i];
  const year = anchor?.year ?? 2016 + Math.floor((i / QUANTUM_WORKS) * 9);
  const arxiv =
    anchor?.arxiv ??
    `${String(year).slice(2)}${String(1 + (i % 12)).padStart(2, '0')}.${String(10000 + i * 7).padStart(5, '0')}`;
  const [topic, subfield, field] = pick(QUANTUM_TOPICS);
  // Citations go to earlier works (a DAG), more to the anchors and the early, well-known ones.
  const refs = new Set();
  const count = i === 0 ? 0 : Math.min(i, 2 + Math.floor(r() * 12));
  while (refs.size < count) refs.add(r() < 0.3 ? Math.floor(r() * Math.min(i, 12)) : Math.floor(r() * i));
  works.push({
    n: i,
    arxiv,
    year,
    title: anchor?.title ?? title(SUBJECTS),
    authors: anchor?.authors ?? authors(),
    topic: { display_name: topic, subfield, field, score: 0.9 },
    concept: { display_name: 'Quantum computer', score: 0.6 },
    refs: [...refs].sort((a, b) => a - b),
  });
}
for (let i = 0; i < OTHER_WORKS; i++) {
  const n = QUANTUM_WORKS + i;
  works.push({
    n,
    arxiv: i % 2 === 0 ? `2${String(100 + (i % 12))}.${String(50000 + i).padStart(5, '0')}` : null,
    year: 2018 + (i % 7),
    title: title(OTHER_SUBJECTS),
    authors: authors(),
    topic: {
      display_name: 'Statistical Methods',
      subfield: 'Statistics and Probability',
      field: 'Mathematics',
      score: 0.8,
    },
    concept: { display_name: 'Computer science', score: 0.4 },
    refs: [],
  });
}

function openAlexWork(w) {
  const cited = works.filter((o) => o.refs.includes(w.n)).length;
  const locations = [{ is_oa: false, landing_page_url: `https://doi.org/10.5555/sample.${w.n}`, pdf_url: null }];
  if (w.arxiv)
    locations.push({
      is_oa: true,
      landing_page_url: `https://arxiv.org/abs/${w.arxiv}`,
      pdf_url: `https://arxiv.org/pdf/${w.arxiv}`,
    });
  return {
    id: workUrl(w.n),
    doi: `https://doi.org/10.5555/sample.${w.n}`,
    title: w.title,
    display_name: w.title,
    publication_year: w.year,
    publication_date: `${w.year}-${String(1 + (w.n % 12)).padStart(2, '0')}-${String(1 + (w.n % 28)).padStart(2, '0')}`,
    ids: { openalex: workUrl(w.n), doi: `https://doi.org/10.5555/sample.${w.n}` },
    type: 'article',
    authorships: w.authors.map((name, k) => ({
      author_position: k === 0 ? 'first' : 'middle',
      author: { id: `https://openalex.org/A${9_000_000 + w.n * 10 + k}`, display_name: name },
      raw_author_name: name,
    })),
    cited_by_count: cited,
    topics: [
      {
        id: 'https://openalex.org/T10000',
        display_name: w.topic.display_name,
        score: w.topic.score,
        subfield: { id: 'https://openalex.org/subfields/1', display_name: w.topic.subfield },
        field: { id: 'https://openalex.org/fields/1', display_name: w.topic.field },
      },
    ],
    concepts: [
      { id: 'https://openalex.org/C1', display_name: w.concept.display_name, level: 1, score: w.concept.score },
    ],
    primary_location: locations[0],
    locations,
    referenced_works: w.refs.map(workUrl),
    updated_date: '2025-01-01T00:00:00.000000',
  };
}

rmSync(root, { recursive: true, force: true });
const parts = [works.slice(0, 200), works.slice(200)];
const entries = parts.map((list, p) => {
  const rel = `data/works/updated_date=2025-01-01/part_${String(p).padStart(3, '0')}.gz`;
  const bytes = gzipSync(list.map((w) => JSON.stringify(openAlexWork(w)) + '\n').join(''), { level: 9 });
  mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  writeFileSync(path.join(root, rel), bytes);
  return { url: `s3://openalex/${rel}`, meta: { content_length: bytes.length, record_count: list.length } };
});
writeFileSync(
  path.join(root, 'data/works/manifest'),
  JSON.stringify(
    {
      entries,
      meta: { content_length: entries.reduce((n, e) => n + e.meta.content_length, 0), record_count: works.length },
    },
    null,
    2,
  ) + '\n',
);
writeFileSync(
  path.join(root, 'README.md'),
  'Synthetic OpenAlex works snapshot (upstream layout) for `scripts/dev-server.sh`, made by\n' +
    '`node scripts/make-sample-snapshot.mjs`. Titles, authors and OpenAlex ids are generated (two anchor papers\n' +
    'keep their real arXiv ids and titles); do not edit by hand, rerun the script.\n',
);
console.error(`wrote ${works.length} works in ${entries.length} parts to ${root}`);
