/**
 * A first scholarly load (no `Paper`, no `CITES` in the graph yet) creates its papers and citations instead of
 * merging them (issue 25). The graph it leaves must be exactly the one of the merging path: random snapshots
 * (several works naming one paper, a work id on several lines, repeated, self and unknown references, works
 * without an arXiv id, missing fields), loaded once into an empty graph and once into a graph that already holds a `Paper` and a `CITES` (which
 * makes the load merge), compared node by node and edge by edge without those two; also with the citations read
 * from the bucket again. And the create path's fallback: papers that exist after all are merged, not duplicated
 * or failed.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureGraphSchema } from '../../../src/server/graph/constraints.js';
import { paperRow, paperWriter, scholarlyGraphCounts } from '../../../src/server/graph/scholarly.js';
import { LocalSnapshotBucket } from '../../../src/server/scholarly/bucket.js';
import { loadSnapshot, type LoadReport } from '../../../src/server/scholarly/load.js';
import { LocalObjectStore } from '../../../src/server/storage/local-store.js';
import { useNeo4j } from '../../support/neo4j.js';
import { mulberry32 } from '../../support/random.js';

const db = useNeo4j();
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pks-first-load-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const workUrl = (n: number): string => `https://openalex.org/W${5_000_000 + n}`;

/** A filtered snapshot bucket of random works in two parts. */
async function randomBucket(seed: number): Promise<LocalSnapshotBucket> {
  const r = mulberry32(seed);
  const works = 160;
  const arxivIds = Array.from({ length: 90 }, (_, i) => `2203.${String(i).padStart(5, '0')}`);
  const lines = Array.from({ length: works }, (_, n) => {
    const arxiv = r() < 0.85 ? arxivIds[Math.floor(r() * arxivIds.length)]! : null;
    const refs = Array.from({ length: r() < 0.05 ? 60 : Math.floor(r() * 14) }, () =>
      r() < 0.1 ? workUrl(1_000 + n) : workUrl(Math.floor(r() * works)),
    );
    if (r() < 0.2) refs.push(workUrl(n), 'not a work');
    // Some lines repeat an earlier work's id (the filter keeps every line): with or without an arXiv id.
    const id = n > 0 && r() < 0.1 ? workUrl(Math.floor(r() * n)) : workUrl(n);
    return JSON.stringify({
      id,
      doi: r() < 0.3 ? null : `https://doi.org/10.5555/R.${n}`,
      title: r() < 0.1 ? null : `title ${n} ${r() < 0.5 ? 'Zürich' : 'lattice'}`,
      display_name: `display ${n}`,
      publication_date: r() < 0.2 ? null : '2022-03-01',
      cited_by_count: r() < 0.2 ? null : Math.floor(r() * 500),
      authorships: Array.from({ length: Math.floor(r() * 4) }, (_, k) => ({ author: { display_name: `A ${n}.${k}` } })),
      locations:
        arxiv === null ? [] : [{ landing_page_url: `https://arxiv.org/abs/${arxiv}v${1 + Math.floor(r() * 3)}` }],
      referenced_works: refs,
    });
  });
  const bucket = new LocalSnapshotBucket(path.join(dir, `bucket-${seed}`));
  const entries: { url: string }[] = [];
  for (const [p, part] of [lines.slice(0, 70), lines.slice(70)].entries()) {
    const file = path.join(dir, `part-${seed}-${p}.gz`);
    await writeFile(file, gzipSync(part.join('\n') + '\n'));
    const key = `works/updated_date=2025-01-01/part_${p}.gz`;
    await bucket.putFile(key, file, { record_count: String(part.length) });
    entries.push({ url: key });
  }
  const manifest = path.join(dir, `manifest-${seed}`);
  await writeFile(manifest, JSON.stringify({ entries }));
  await bucket.putFile('works/manifest', manifest, {});
  return bucket;
}

/** A `Paper` and a `CITES` that are not the snapshot's: with them in the graph, the load merges. */
const MARKER = `CREATE (:Paper {preprint_id: 'marker-a'})-[:CITES]->(:Paper {preprint_id: 'marker-b'})`;

/** Every node with its labels and properties and every relationship with its multiplicity, markers left out. */
async function graphDump(): Promise<{ nodes: unknown[]; edges: unknown[] }> {
  const nodes = await db.graph.driver.executeQuery(
    `MATCH (p) WHERE NOT p.preprint_id STARTS WITH 'marker-'
     RETURN labels(p) AS labels, properties(p) AS props ORDER BY p.preprint_id`,
  );
  const edges = await db.graph.driver.executeQuery(
    `MATCH (a)-[r]->(b) WHERE NOT a.preprint_id STARTS WITH 'marker-'
     RETURN a.preprint_id AS a, type(r) AS type, b.preprint_id AS b, properties(r) AS props, count(*) AS n
     ORDER BY a, type, b`,
  );
  return {
    nodes: nodes.records.map((rec) => rec.toObject()),
    edges: edges.records.map((rec) => ({ ...rec.toObject(), n: Number(rec.get('n')) })),
  };
}

async function load(bucket: LocalSnapshotBucket, referenceBudget?: number): Promise<LoadReport> {
  const store = new LocalObjectStore(path.join(dir, 'raw'));
  await store.start();
  return loadSnapshot({
    bucket,
    graph: db.graph,
    store,
    logger: pino({ level: 'silent' }),
    progress: () => {},
    dryRun: false,
    writer: { batchRows: 7, concurrency: 3 },
    ...(referenceBudget === undefined ? {} : { referenceBudget }),
  });
}

const emptyGraph = async (): Promise<void> => {
  await db.graph.driver.executeQuery('MATCH (n) DETACH DELETE n');
};

describe('a first load creates; the graph is the merging load’s', () => {
  it.each([
    [1, undefined],
    [2, undefined],
    [3, 40],
  ])('random snapshot (seed %i, reference budget %s): the same graph', async (seed, referenceBudget) => {
    await ensureGraphSchema(db.graph);
    const bucket = await randomBucket(seed);

    await emptyGraph();
    await db.graph.driver.executeQuery(MARKER);
    expect(await scholarlyGraphCounts(db.graph)).toEqual({ papers: 2, citations: 1 });
    const merged = await load(bucket, referenceBudget);
    const mergedGraph = await graphDump();

    await emptyGraph();
    expect(await scholarlyGraphCounts(db.graph)).toEqual({ papers: 0, citations: 0 });
    const created = await load(bucket, referenceBudget);
    const createdGraph = await graphDump();

    expect(created).toEqual(merged);
    expect(createdGraph).toEqual(mergedGraph);
    expect(createdGraph.nodes.length).toBe(created.papersMerged);
    expect(createdGraph.edges.length).toBeGreaterThan(300);
    expect(createdGraph.edges.every((e) => (e as { n: number }).n === 1)).toBe(true);
    // Some paper has several works, and a title fell back to the display name.
    expect(created.papersMerged).toBeLessThan(140);
    expect(JSON.stringify(createdGraph.nodes)).toContain('"title":"display ');
  });

  it('papers that exist after all (another writer): their batches are merged, nothing duplicated or failed', async () => {
    await ensureGraphSchema(db.graph);
    const papers = Array.from({ length: 40 }, (_, i) => ({
      preprint_id: `2204.${String(i).padStart(5, '0')}`,
      openalex_id: `W${i}`,
      doi: i % 3 === 0 ? null : `10.5555/p.${i}`,
      title: `title ${i}`,
      authors: i % 4 === 0 ? [] : [`Author ${i}`],
      publication_date: null,
      cited_by_count: i % 5 === 0 ? null : i,
    }));
    const existing = `UNWIND $ids AS id CREATE (:Paper {preprint_id: id, wiki_slug: id, doi: 'old'})`;
    const ids = { ids: papers.filter((_, i) => i % 9 === 4).map((p) => p.preprint_id) };
    const write = async (allNew: boolean) => {
      await emptyGraph();
      await db.graph.driver.executeQuery(existing, ids);
      const writer = paperWriter(db.graph, { batchRows: 6, concurrency: 2 }, { allNew });
      for (const paper of papers) await writer.add(paperRow(paper));
      await writer.close();
      expect(writer.written).toBe(papers.length);
      return graphDump();
    };
    const merged = await write(false);
    const created = await write(true);
    expect(created).toEqual(merged);
    expect(created.nodes).toHaveLength(40);
    expect(JSON.stringify(created.nodes)).toContain('"wiki_slug":"2204.00004"');
  });
});
