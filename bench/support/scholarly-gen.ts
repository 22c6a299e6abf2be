/**
 * Generated OpenAlex works for the scholarly benchmarks: realistic line sizes (authorships, concepts, topics,
 * locations, references, an abstract index — about 5 KiB a line), written straight into a gzip stream.
 */
import { createWriteStream } from 'node:fs';
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { SnapshotBucket } from '../../src/server/scholarly/bucket.js';
import { mulberry32 } from '../../test/support/random.js';

const WORDS = 'the of and a quantum state to in for with field spin lattice noise gate code error theory model'.split(
  ' ',
);
const BASE = 3_000_000_000;

export interface WorkShape {
  /** Index of the work (its id is W<BASE + index>). */
  readonly index: number;
  readonly arxiv: string | null;
  readonly quantum: boolean;
  readonly refs: readonly number[];
}

export const workUrl = (index: number): string => `https://openalex.org/W${BASE + index}`;

/** One work line (no newline). */
export function workLine(w: WorkShape, r: () => number): string {
  const words = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(r() * WORDS.length)]).join(' ');
  const inverted: Record<string, number[]> = {};
  for (let k = 0; k < 150; k++) (inverted[`${WORDS[Math.floor(r() * WORDS.length)]}${k % 50}`] ??= []).push(k);
  const locations: Record<string, unknown>[] = [
    {
      is_oa: false,
      landing_page_url: `https://doi.org/10.5555/b.${w.index}`,
      pdf_url: null,
      source: { display_name: words(3) },
    },
  ];
  if (w.arxiv !== null)
    locations.push({ is_oa: true, landing_page_url: `https://arxiv.org/abs/${w.arxiv}v1`, pdf_url: null });
  return JSON.stringify({
    id: workUrl(w.index),
    doi: `https://doi.org/10.5555/b.${w.index}`,
    title: words(10),
    display_name: words(10),
    publication_year: 2021,
    publication_date: '2021-06-01',
    ids: { openalex: workUrl(w.index), doi: `https://doi.org/10.5555/b.${w.index}` },
    language: 'en',
    primary_location: locations[0],
    type: 'article',
    authorships: Array.from({ length: 4 }, (_, k) => ({
      author_position: 'middle',
      author: { id: `https://openalex.org/A${w.index * 4 + k}`, display_name: words(2), orcid: null },
      institutions: [{ id: 'https://openalex.org/I1', display_name: words(4), country_code: 'US' }],
      raw_author_name: words(2),
    })),
    cited_by_count: Math.floor(r() * 100),
    concepts: Array.from({ length: 5 }, (_, k) => ({
      id: `https://openalex.org/C${k}`,
      display_name: k === 0 && w.quantum ? 'Quantum computer' : words(2).replace(/quantum/g, 'classical'),
      level: 1,
      score: 0.2 + r() * 0.7,
    })),
    topics: [
      {
        id: 'https://openalex.org/T1',
        display_name: w.quantum ? 'Quantum Computing Algorithms' : 'Statistical Mechanics',
        score: 0.9,
        subfield: { id: 'https://openalex.org/subfields/1', display_name: 'Condensed Matter Physics' },
        field: { id: 'https://openalex.org/fields/1', display_name: 'Physics and Astronomy' },
      },
    ],
    locations,
    referenced_works: w.refs.map(workUrl),
    related_works: Array.from({ length: 10 }, () => workUrl(Math.floor(r() * 1e7))),
    abstract_inverted_index: inverted,
    updated_date: '2025-01-01T00:00:00.000000',
  });
}

/**
 * Streams lines from `make(i)` into a gzip file until `count` lines or, with `minBytes`, until the compressed file
 * reaches that size; resolves to its size and the number of lines.
 */
export async function writeGzipLines(
  file: string,
  count: number,
  make: (i: number) => string,
  minBytes = Infinity,
): Promise<{ size: number; lines: number }> {
  await mkdir(path.dirname(file), { recursive: true });
  const gzip = createGzip();
  const out = createWriteStream(file);
  gzip.pipe(out);
  let lines = 0;
  while (lines < count && out.bytesWritten < minBytes) {
    if (!gzip.write(make(lines++) + '\n')) await new Promise((resolve) => gzip.once('drain', resolve));
  }
  gzip.end();
  await finished(out);
  return { size: (await stat(file)).size, lines };
}

/**
 * A filtered snapshot bucket (what the filter writes): `works` works with arXiv ids in parts of 10,000, each citing
 * `refs` distinct others. `batch` (0–9) picks disjoint work ids and arXiv ids (the year), for a second load into
 * the same graph. Resolves to the number of citations.
 */
export async function writeFilteredBucket(
  bucket: SnapshotBucket,
  tempDir: string,
  works: number,
  refs: number,
  batch = 0,
): Promise<{ citations: number }> {
  const r = mulberry32(11);
  const perPart = 10_000;
  const entries: { url: string; meta: { content_length: number; record_count: number } }[] = [];
  let citations = 0;
  await mkdir(tempDir, { recursive: true });
  for (let start = 0, p = 0; start < works; start += perPart, p++) {
    const count = Math.min(perPart, works - start);
    const file = path.join(tempDir, `part-${p}.gz`);
    const { size } = await writeGzipLines(file, count, (k) => {
      const local = start + k;
      const index = batch * 100_000 + local;
      const cited = new Set<number>();
      while (cited.size < refs) {
        const target = batch * 100_000 + Math.floor(r() * works);
        if (target !== index) cited.add(target);
      }
      citations += cited.size;
      const arxiv = `${21 - batch}${String(1 + (local % 12)).padStart(2, '0')}.${String(local).padStart(5, '0')}`;
      return workLine({ index, arxiv, quantum: true, refs: [...cited] }, r);
    });
    const key = `works/updated_date=2025-01-01/part_${String(p).padStart(4, '0')}.jsonl.gz`;
    await bucket.putFile(key, file, { record_count: String(count), source_url: `s3://openalex/bench/${p}` });
    await rm(file);
    entries.push({ url: key, meta: { content_length: size, record_count: count } });
  }
  const manifest = path.join(tempDir, 'manifest');
  await writeFile(manifest, JSON.stringify({ entries }));
  await bucket.putFile('works/manifest', manifest, {});
  return { citations };
}

/**
 * An upstream snapshot root (`data/works/manifest` and one part) whose single part is at least `minBytes` of gzip,
 * shaped like the real snapshot (where ~1% of works have an arXiv location and the kept share is small): 2% quantum
 * works with arXiv ids (the seeds) citing mostly each other, 3% other works with arXiv ids, the rest without; other
 * works cite works all over a 50M-id space and only rarely a quantum one.
 */
export async function writeUpstreamPart(
  root: string,
  minBytes: number,
): Promise<{ file: string; size: number; lines: number }> {
  const r = mulberry32(5);
  const rel = 'data/works/updated_date=2025-01-01/part_000.gz';
  const file = path.join(root, rel);
  const quantumSoFar: number[] = [];
  const anyWork = () => 1_000_000 + Math.floor(r() * 50_000_000);
  const aQuantumWork = () => quantumSoFar[Math.floor(r() * quantumSoFar.length)] ?? anyWork();
  const result = await writeGzipLines(
    file,
    Infinity,
    (index) => {
      const quantum = r() < 0.02;
      const arxiv =
        quantum || r() < 0.2
          ? `21${String(1 + (index % 12)).padStart(2, '0')}.${String(index % 100000).padStart(5, '0')}`
          : null;
      const refs = Array.from({ length: Math.floor(r() * 30) }, () =>
        (quantum && r() < 0.7) || r() < 0.0005 ? aQuantumWork() : anyWork(),
      );
      if (quantum) quantumSoFar.push(index);
      return workLine({ index, arxiv, quantum, refs }, r);
    },
    minBytes,
  );
  await writeFile(
    path.join(root, 'data/works/manifest'),
    JSON.stringify({
      entries: [{ url: `s3://openalex/${rel}`, meta: { content_length: result.size, record_count: result.lines } }],
    }),
  );
  return { file, ...result };
}
