/**
 * The scholarly load's `CITES` writer looks papers up by `elementId` (issue 25: the unique index seek of a writing
 * query takes a lock per lookup). The graph it leaves must be exactly the one of the previous writer, which looked
 * them up by `preprint_id`: random papers and citations (repeats within a row, across rows and from an earlier load,
 * rows longer than a batch, several lanes), loaded both ways into an emptied graph, compared node by node and edge
 * by edge; and an id that is not a `Paper` node's writes nothing.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { BatchWriter } from '../../../src/server/graph/batch-writer.js';
import { ensureGraphSchema } from '../../../src/server/graph/constraints.js';
import {
  CitationWriter,
  paperNodes,
  paperRow,
  paperWriter,
  type ScholarlyPaper,
} from '../../../src/server/graph/scholarly.js';
import { useNeo4j } from '../../support/neo4j.js';
import { mulberry32 } from '../../support/random.js';

const db = useNeo4j();

/** The previous `CITES` statement, verbatim: papers found by `preprint_id`. */
const PREVIOUS_CITATIONS = `UNWIND $rows AS row
  MATCH (a:Paper {preprint_id: row[0]})
  UNWIND row[1] AS cited
  WITH DISTINCT a, cited
  MATCH (b:Paper {preprint_id: cited})
  WHERE NOT (a)-[:CITES]->(b)
  CREATE (a)-[:CITES]->(b)`;

interface Dataset {
  readonly papers: ScholarlyPaper[];
  /** Citing paper → cited papers, repeats included. */
  readonly citations: [string, string[]][];
  /** Pairs already in the graph before the load (an earlier load). */
  readonly earlier: [string, string][];
}

function dataset(seed: number): Dataset {
  const r = mulberry32(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(r() * items.length)]!;
  const ids = Array.from({ length: 120 }, (_, i) => `2104.${String(i).padStart(5, '0')}`);
  const papers = ids.map((id, i) => ({
    preprint_id: id,
    openalex_id: `W${3_000_000 + i}`,
    doi: r() < 0.3 ? null : `10.5555/x.${i}`,
    title: r() < 0.1 ? null : `title ${i} ${pick(['quantum', 'Zürich', 'lattice'])}`,
    authors: Array.from({ length: Math.floor(r() * 4) }, (_, k) => `Author ${i}.${k}`),
    publication_date: r() < 0.2 ? null : '2021-04-01',
    cited_by_count: r() < 0.2 ? null : Math.floor(r() * 1000),
  }));
  const citations: [string, string[]][] = [];
  for (const id of ids) {
    const n = r() < 0.05 ? 40 : Math.floor(r() * 15);
    const cited = Array.from({ length: n }, () => pick(ids)).filter((to) => to !== id);
    if (cited.length > 0) citations.push([id, cited]);
    if (r() < 0.1) citations.push([id, [pick(ids)].filter((to) => to !== id)]);
  }
  const earlier: [string, string][] = Array.from({ length: 30 }, () => [pick(ids), pick(ids)]);
  return { papers, citations, earlier: earlier.filter(([a, b]) => a !== b) };
}

/** Every `Paper` with its properties and every relationship with its multiplicity, in a fixed order. */
async function graphDump(): Promise<{ nodes: unknown[]; edges: unknown[] }> {
  const nodes = await db.graph.driver.executeQuery(
    'MATCH (p:Paper) RETURN p.preprint_id AS id, properties(p) AS props ORDER BY id',
  );
  const edges = await db.graph.driver.executeQuery(
    'MATCH (a)-[r]->(b) RETURN a.preprint_id AS a, type(r) AS type, b.preprint_id AS b, count(*) AS n ORDER BY a, type, b',
  );
  return {
    nodes: nodes.records.map((rec) => rec.toObject()),
    edges: edges.records.map((rec) => ({ ...rec.toObject(), n: Number(rec.get('n')) })),
  };
}

/** An emptied graph holding the papers of an earlier load (with a property of another writer) and its `CITES`. */
async function earlierGraph(data: Dataset): Promise<void> {
  await db.graph.driver.executeQuery('MATCH (n) DETACH DELETE n');
  await db.graph.driver.executeQuery('UNWIND $ids AS id CREATE (:Paper {preprint_id: id, wiki_slug: id})', {
    ids: data.papers.slice(0, 40).map((p) => p.preprint_id),
  });
  await db.graph.driver.executeQuery(
    'UNWIND $pairs AS pair MATCH (a:Paper {preprint_id: pair[0]}), (b:Paper {preprint_id: pair[1]}) MERGE (a)-[:CITES]->(b)',
    { pairs: data.earlier.filter(([a, b]) => [a, b].every((id) => Number(id.slice(5)) < 40)) },
  );
}

async function loadPapers(data: Dataset): Promise<void> {
  const writer = paperWriter(db.graph, { batchRows: 7 });
  for (const paper of data.papers) await writer.add(paperRow(paper));
  await writer.close();
}

describe('CITES by elementId against CITES by preprint_id', () => {
  beforeEach(async () => {
    await ensureGraphSchema(db.graph);
  });

  it.each([1, 2, 3])('random papers and citations (seed %i): the same graph', async (seed) => {
    const data = dataset(seed);
    const options = { batchRows: 9, concurrency: 3 };

    await earlierGraph(data);
    await loadPapers(data);
    const previous = new BatchWriter<readonly [string, readonly string[]]>(db.graph, PREVIOUS_CITATIONS, options, {
      laneKey: (row) => row[0],
      weight: (row) => row[1].length,
    });
    await Promise.all(
      data.citations.flatMap(([a, cited]) => {
        const rows = [];
        for (let at = 0; at < cited.length; at += 9) rows.push(previous.add([a, cited.slice(at, at + 9)]));
        return rows;
      }),
    );
    await previous.close();
    const before = await graphDump();

    await earlierGraph(data);
    await loadPapers(data);
    const nodes = await paperNodes(
      db.graph,
      data.papers.map((p) => p.preprint_id),
    );
    expect(nodes.size).toBe(data.papers.length);
    const writer = new CitationWriter(db.graph, options);
    await Promise.all(
      data.citations.map(([a, cited]) =>
        writer.add(
          nodes.get(a)!,
          cited.map((id) => nodes.get(id)!),
        ),
      ),
    );
    await writer.close();
    const after = await graphDump();

    expect(after).toEqual(before);
    expect(after.edges.length).toBeGreaterThan(500);
    expect(after.edges.every((e) => (e as { n: number }).n === 1)).toBe(true);
  });

  it('an id that is not a Paper node, or a missing preprint_id: nothing written', async () => {
    await db.graph.driver.executeQuery('MATCH (n) DETACH DELETE n');
    await db.graph.driver.executeQuery("CREATE (:Paper {preprint_id: '2105.00001'}), (:Algorithm {wiki_id: 'a'})");
    const { records } = await db.graph.driver.executeQuery(
      "MATCH (a:Algorithm {wiki_id: 'a'}) RETURN elementId(a) AS node",
    );
    const nodes = await paperNodes(db.graph, ['2105.00001', '2105.99999']);
    expect([...nodes.keys()]).toEqual(['2105.00001']);
    const writer = new CitationWriter(db.graph);
    await writer.add(nodes.get('2105.00001')!, [records[0]!.get('node') as string]);
    await writer.add(records[0]!.get('node') as string, [nodes.get('2105.00001')!]);
    await writer.close();
    expect((await graphDump()).edges).toEqual([]);
  });
});
