/**
 * Batched writes with transactions in flight (CONTRACT §6: `UNWIND $rows`, ≤ 500 rows per transaction): every row
 * lands exactly once even when concurrent batches deadlock on shared nodes; a statement error is thrown.
 */
import { describe, expect, it } from 'vitest';
import { BatchWriter } from '../../../src/server/graph/batch-writer.js';
import { citationWriter } from '../../../src/server/graph/scholarly.js';
import { useNeo4j } from '../../support/neo4j.js';

const db = useNeo4j();

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
    await db.graph.driver.executeQuery('UNWIND $ids AS id CREATE (:Paper {preprint_id: id})', { ids });
    const writer = citationWriter(db.graph, { batchRows: 20, concurrency: 8 });
    for (const a of ids) for (const b of ids) if (a !== b) await writer.add([a, b]);
    await writer.close();
    const { records } = await db.graph.driver.executeQuery('MATCH (:Paper)-[r:CITES]->(:Paper) RETURN count(r) AS n');
    expect(Number(records[0]!.get('n'))).toBe(25 * 24);
  });

  it('a failing statement rejects close() with the database error', async () => {
    const writer = new BatchWriter<number>(db.graph, 'UNWIND $rows AS i RETURN 1 / 0 AS boom', { batchRows: 2 });
    await writer.add(1);
    await writer.add(2);
    await expect(writer.close()).rejects.toThrow('/ by zero');
  });
});
