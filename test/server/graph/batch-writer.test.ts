/**
 * Batched writes with transactions in flight (CONTRACT §6: `UNWIND $rows`, ≤ 500 rows per transaction): every row
 * lands exactly once even when concurrent batches share nodes or repeat a row; a statement error is thrown.
 */
import { describe, expect, it } from 'vitest';
import { BatchWriter } from '../../../src/server/graph/batch-writer.js';
import { CitationWriter, paperNodes } from '../../../src/server/graph/scholarly.js';
import { useNeo4j } from '../../support/neo4j.js';

const db = useNeo4j();

/** Creates `Paper` nodes of `ids`; resolves to a lookup of their nodes (what `CitationWriter` takes). */
async function createPapers(ids: readonly string[]): Promise<(id: string) => string> {
  await db.graph.driver.executeQuery('UNWIND $ids AS id CREATE (:Paper {preprint_id: id})', { ids });
  const nodes = await paperNodes(db.graph, ids);
  expect(nodes.size).toBe(ids.length);
  return (id) => nodes.get(id)!;
}

describe('BatchWriter', () => {
  it('commits batches of at most batchRows, several in flight', async () => {
    const writer = new BatchWriter<number>(db.graph, 'UNWIND $rows AS i CREATE (:Row {i: i, size: size($rows)})', {
      batchRows: 7,
      concurrency: 3,
    });
    for (let i = 0; i < 100; i++) await writer.add(i);
    await writer.close();
    const { records } = await db.graph.driver.executeQuery(
      'MATCH (r:Row) RETURN count(r) AS n, count(DISTINCT r.i) AS distinct, max(r.size) AS biggest',
    );
    expect(Number(records[0]!.get('n'))).toBe(100);
    expect(Number(records[0]!.get('distinct'))).toBe(100);
    expect(Number(records[0]!.get('biggest'))).toBe(7);
    expect(writer.written).toBe(100);
  });

  it('all-to-all citations among a few papers, many batches in flight: every edge exactly once', async () => {
    const ids = Array.from({ length: 25 }, (_, i) => `2101.${String(i).padStart(5, '0')}`);
    const node = await createPapers(ids);
    const writer = new CitationWriter(db.graph, { batchRows: 20, concurrency: 8 });
    for (const a of ids) for (const b of ids) if (a !== b) await writer.add(node(a), [node(b)]);
    await writer.close();
    const { records } = await db.graph.driver.executeQuery('MATCH (:Paper)-[r:CITES]->(:Paper) RETURN count(r) AS n');
    expect(Number(records[0]!.get('n'))).toBe(25 * 24);
  });

  it('citations repeated within a batch, across batches and from an earlier load: each pair once', async () => {
    const ids = ['2102.00001', '2102.00002', '2102.00003'];
    const node = await createPapers(ids);
    await db.graph.driver.executeQuery(
      "MATCH (a:Paper {preprint_id: '2102.00001'}), (b:Paper {preprint_id: '2102.00002'}) CREATE (a)-[:CITES]->(b)",
    );
    const writer = new CitationWriter(db.graph, { batchRows: 4, concurrency: 3 });
    const add = (citing: string, cited: string[]) => writer.add(node(citing), cited.map(node));
    await add('2102.00001', ['2102.00002', '2102.00003', '2102.00002']);
    await add('2102.00002', ['2102.00003']);
    await add('2102.00003', ['2102.00001']);
    await add('2102.00002', ['2102.00003']);
    await add('2102.00003', ['2102.00001', '2102.00001']);
    await add('2102.00001', ['2102.00002']);
    await writer.close();
    const { records } = await db.graph.driver.executeQuery(
      "MATCH (a:Paper)-[:CITES]->(b:Paper) WHERE a.preprint_id STARTS WITH '2102.' " +
        "RETURN a.preprint_id + '>' + b.preprint_id AS pair ORDER BY pair",
    );
    expect(records.map((r) => r.get('pair') as string)).toEqual([
      '2102.00001>2102.00002',
      '2102.00001>2102.00003',
      '2102.00002>2102.00003',
      '2102.00003>2102.00001',
    ]);
  });

  it('weighted rows: a batch never exceeds batchRows of weight, also when adds are not awaited one by one', async () => {
    const writer = new BatchWriter<number[]>(
      db.graph,
      'UNWIND $rows AS row UNWIND row AS i CREATE (:Weighted {i: i, weight: reduce(n = 0, r IN $rows | n + size(r))})',
      { batchRows: 10, concurrency: 2 },
      { weight: (row) => row.length, laneKey: (row) => String(row.length) },
    );
    let next = 0;
    const sizes = [3, 7, 1, 10, 4, 4, 4, 2, 9, 1, 6, 5];
    const adds = sizes.map((size) => writer.add(Array.from({ length: size }, () => next++)));
    await Promise.all(adds);
    await writer.close();
    const { records } = await db.graph.driver.executeQuery(
      'MATCH (w:Weighted) RETURN count(w) AS n, count(DISTINCT w.i) AS distinct, max(w.weight) AS biggest',
    );
    expect(Number(records[0]!.get('n'))).toBe(next);
    expect(Number(records[0]!.get('distinct'))).toBe(next);
    expect(Number(records[0]!.get('biggest'))).toBeLessThanOrEqual(10);
    expect(writer.written).toBe(next);
    await expect(writer.add(Array.from({ length: 11 }, () => 0))).rejects.toThrow(
      'a row of weight 11 exceeds the batch of 10',
    );
  });

  it('a citing paper with more cited papers than a batch holds: split over batches, each pair once', async () => {
    const cited = Array.from({ length: 23 }, (_, i) => `2103.${String(i + 1).padStart(5, '0')}`);
    const node = await createPapers(['2103.00000', ...cited]);
    const writer = new CitationWriter(db.graph, { batchRows: 5 });
    await writer.add(node('2103.00000'), cited.map(node));
    await writer.close();
    const { records } = await db.graph.driver.executeQuery(
      "MATCH (:Paper {preprint_id: '2103.00000'})-[r:CITES]->(b:Paper) RETURN count(r) AS n, count(DISTINCT b) AS d",
    );
    expect([Number(records[0]!.get('n')), Number(records[0]!.get('d'))]).toEqual([23, 23]);
  });

  it('a failing statement rejects close() with the database error', async () => {
    const writer = new BatchWriter<number>(db.graph, 'UNWIND $rows AS i RETURN 1 / 0 AS boom', { batchRows: 2 });
    await writer.add(1);
    await writer.add(2);
    await expect(writer.close()).rejects.toThrow('/ by zero');
  });
});
