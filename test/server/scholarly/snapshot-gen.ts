/**
 * A generated OpenAlex snapshot (CONTRACT §12.3) in the upstream layout: `data/works/manifest` plus gzip JSON
 * Lines parts over two `updated_date=` directories, and an `authors` entity. Works carry arXiv locations of every
 * form (new style, old style `quant-ph/` and other archives, `export.` and PDF URLs), topics, concepts with scores
 * around the 0.3 threshold, and references inside and outside the snapshot. Lines vary in formatting the way JSON
 * allows (key order, spaces, `\/` and `\u` escapes, CRLF), so byte-faithfulness is tested, not assumed.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { mulberry32 } from '../../support/random.js';

export interface GeneratedPart {
  /** `s3://openalex/data/works/updated_date=…/part_00N.gz`. */
  readonly url: string;
  /** Each line's exact bytes (without the `\n`). */
  readonly lines: readonly Buffer[];
}

export interface GeneratedSnapshot {
  readonly root: string;
  readonly parts: readonly GeneratedPart[];
  /** Source bytes of each line by work id. */
  readonly lineOf: ReadonlyMap<number, Buffer>;
}

export interface SnapshotOptions {
  readonly works?: number;
  readonly seed?: number;
  /** Works per part. */
  readonly perPart?: number;
  /** Words of abstract per work (line size). */
  readonly abstractWords?: number;
}

const TOPICS = ['Quantum Computing and Algorithms', 'Topological Insulators', 'Superconductivity', 'Graph Theory'];
const SUBFIELDS = ['Atomic and Molecular Physics, and Optics', 'Condensed Matter Physics', 'quantum information'];
const FIELDS = ['Physics and Astronomy', 'Computer Science', 'Mathematics'];
const CONCEPTS = ['Quantum entanglement', 'Qubit', 'Lattice (order)', 'Algorithm', 'Quantum'];
const ARCHIVES = ['cond-mat', 'hep-th', 'math.QA'];
const WORDS = 'the of quantum state qubit error code lattice gate field a in noise spin Zürich café'.split(' ');

export const WORK_BASE = 2_000_000_000;

function workObject(i: number, n: number, r: () => number, abstractWords: number): Record<string, unknown> {
  const id = WORK_BASE + i;
  const kind = r();
  let arxiv: string | null = null;
  if (kind < 0.3) arxiv = null;
  // Every 50th work names the paper of the work before it (OpenAlex has such duplicates).
  else if (kind < 0.7) {
    const j = i % 50 === 49 ? i - 1 : i;
    arxiv = `${2100 + (j % 12)}.${String(10000 + j).padStart(5, '0')}`;
  } else if (kind < 0.82) arxiv = `quant-ph/${String(9500000 + i).padStart(7, '0')}`;
  else arxiv = `${ARCHIVES[i % ARCHIVES.length]}/${String(9600000 + i).padStart(7, '0')}`;
  const form = r();
  const locations: Record<string, unknown>[] = [
    { is_oa: false, landing_page_url: `https://doi.org/10.5555/w${i}`, pdf_url: null },
  ];
  if (arxiv !== null) {
    if (form < 0.5) locations.push({ is_oa: true, landing_page_url: `https://arxiv.org/abs/${arxiv}v${1 + (i % 3)}` });
    else if (form < 0.75) locations.push({ is_oa: true, pdf_url: `http://export.arxiv.org/pdf/${arxiv}v2.pdf` });
    else locations.push({ is_oa: true, landing_page_url: `https://www.arxiv.org/abs/${arxiv}`, pdf_url: null });
  }
  const topics = Array.from({ length: Math.floor(r() * 3) }, () => ({
    id: 'https://openalex.org/T1',
    display_name: TOPICS[Math.floor(r() * TOPICS.length)],
    score: Math.round(r() * 100) / 100,
    subfield: { id: 'https://openalex.org/subfields/1', display_name: SUBFIELDS[Math.floor(r() * SUBFIELDS.length)] },
    field: { id: 'https://openalex.org/fields/1', display_name: FIELDS[Math.floor(r() * FIELDS.length)] },
  }));
  const scores = [0.29, 0.3, 0.31, 0.05, 0.9];
  const concepts = Array.from({ length: Math.floor(r() * 3) }, () => ({
    id: 'https://openalex.org/C1',
    display_name: CONCEPTS[Math.floor(r() * CONCEPTS.length)],
    level: 1,
    score: scores[Math.floor(r() * scores.length)],
  }));
  const refs = Array.from({ length: Math.floor(r() * 8) }, () => {
    const target = r() < 0.85 ? Math.floor(r() * n) : n + Math.floor(r() * 1000);
    return `https://openalex.org/W${WORK_BASE + target}`;
  });
  const words = Array.from({ length: abstractWords }, () => WORDS[Math.floor(r() * WORDS.length)]!);
  const inverted: Record<string, number[]> = {};
  words.forEach((w, k) => (inverted[w] ??= []).push(k));
  return {
    id: `https://openalex.org/W${id}`,
    doi: r() < 0.7 ? `https://doi.org/10.5555/W${i}` : null,
    title: r() < 0.9 ? `Work ${i}: ${words.slice(0, 6).join(' ')}` : null,
    display_name: `Display ${i}`,
    publication_date: `20${String(10 + (i % 15))}-0${1 + (i % 9)}-1${i % 10}`,
    ids: { openalex: `https://openalex.org/W${id}`, doi: `https://doi.org/10.5555/W${i}` },
    authorships: Array.from({ length: 1 + (i % 3) }, (_, k) => ({
      author: { id: `https://openalex.org/A${k}`, display_name: k === 2 ? null : `Author ${i}-${k}` },
      raw_author_name: `Raw ${i}-${k}`,
    })),
    cited_by_count: Math.floor(r() * 50),
    topics,
    concepts,
    locations,
    primary_location: locations[0],
    referenced_works: refs,
    related_works: [`https://openalex.org/W${WORK_BASE + Math.floor(r() * n)}`],
    abstract_inverted_index: inverted,
  };
}

/** JSON text of a work in one of several legal spellings. */
function spell(obj: Record<string, unknown>, i: number): string {
  const json = JSON.stringify(i % 7 === 3 ? Object.fromEntries(Object.entries(obj).reverse()) : obj);
  switch (i % 11) {
    case 1:
      return json.replace(/\//g, '\\/'); // escaped slashes, also inside the arXiv and work URLs
    case 2:
      return json.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    case 4:
      return json.replace(/":/g, '": ').replace(/,"/g, ', "');
    case 5:
      // An ASCII escape inside the work's own id and in the arXiv host: only parsing can see them.
      return json
        .replace('"https://openalex.org/W', '"https://openalex.org/\\u0057')
        .replace('arxiv.org', 'arxiv\\u002eorg');
    case 6:
      return `${json}\r`; // CRLF line ending: the \r belongs to the line's bytes
    default:
      return json;
  }
}

/** Writes the snapshot under `root` and returns every line's bytes. */
export async function generateSnapshot(root: string, options: SnapshotOptions = {}): Promise<GeneratedSnapshot> {
  const n = options.works ?? 600;
  const perPart = options.perPart ?? 200;
  const r = mulberry32(options.seed ?? 7);
  const parts: GeneratedPart[] = [];
  const lineOf = new Map<number, Buffer>();
  const dirs = ['updated_date=2025-01-01', 'updated_date=2025-02-15'];
  for (let start = 0, p = 0; start < n; start += perPart, p++) {
    const dir = dirs[p % 2 === 0 ? 0 : 1]!;
    const rel = `data/works/${dir}/part_${String(Math.floor(p / 2)).padStart(3, '0')}.gz`;
    const lines: Buffer[] = [];
    for (let i = start; i < Math.min(n, start + perPart); i++) {
      const line = Buffer.from(spell(workObject(i, n, r, options.abstractWords ?? 20), i), 'utf8');
      lines.push(line);
      lineOf.set(WORK_BASE + i, line);
    }
    await mkdir(path.join(root, path.dirname(rel)), { recursive: true });
    await writeFile(path.join(root, rel), gzipSync(Buffer.concat(lines.flatMap((l) => [l, Buffer.from('\n')]))));
    parts.push({ url: `s3://openalex/${rel}`, lines });
  }
  await writeFile(
    path.join(root, 'data/works/manifest'),
    JSON.stringify({
      entries: parts.map((p) => ({ url: p.url, meta: { content_length: 0, record_count: p.lines.length } })),
      meta: { content_length: 0, record_count: n },
    }),
  );
  // An entity whose parts are copied unmodified.
  const authors = ['updated_date=2025-01-01/part_000.gz', 'updated_date=2025-01-01/part_001.gz'];
  for (const [k, rel] of authors.entries()) {
    await mkdir(path.join(root, 'data/authors', path.dirname(rel)), { recursive: true });
    await writeFile(
      path.join(root, 'data/authors', rel),
      gzipSync(`{"id":"https://openalex.org/A${k}"}\n`, { level: 1 }),
    );
  }
  await writeFile(
    path.join(root, 'data/authors/manifest'),
    JSON.stringify({ entries: authors.map((rel) => ({ url: `s3://openalex/data/authors/${rel}`, meta: {} })) }),
  );
  return { root, parts, lineOf };
}
