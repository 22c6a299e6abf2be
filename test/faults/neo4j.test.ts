/**
 * Issue 9, item 9: Neo4j stopping during the write-through of an upload. The upload succeeds with
 * `X-Catalog-Sync: deferred` (CONTRACT §6.5), the server keeps serving, and `pksd papers sync` repairs the graph once
 * Neo4j is back. Runs the built `bin/pksd` (`npm run build` first).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { graphClientFor } from '../support/neo4j.js';
import { startNeo4jProcess, type Neo4jProcess } from './support/neo4j-process.js';
import { AUTH, pdfBytes, pksdCommand, startPksd, uploadPdf, type Pksd } from './support/pksd.js';
import { until } from './support/processes.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

/** `has_pdf` of every `Paper` node, by preprint id. */
async function papers(neo4j: Neo4jProcess): Promise<Record<string, unknown>> {
  const graph = graphClientFor({ boltUri: neo4j.boltUri, username: 'neo4j', password: 'x' });
  try {
    const session = graph.driver.session();
    try {
      const result = await session.run('MATCH (p:Paper) RETURN p.preprint_id AS id, p.has_pdf AS has_pdf ORDER BY id');
      return Object.fromEntries(result.records.map((r) => [r.get('id') as string, r.get('has_pdf') as unknown]));
    } finally {
      await session.close();
    }
  } finally {
    await graph.close();
  }
}

describe('Neo4j stops during write-through', () => {
  it('the upload succeeds deferred, the server serves, and papers sync repairs the graph', async () => {
    const neo4j = await startNeo4jProcess();
    cleanups.push(() => neo4j.stop());
    const p: Pksd = await startPksd({ GRAPHDB_URI: neo4j.boltUri, GRAPHDB_USERNAME: 'neo4j', GRAPHDB_PASSWORD: 'x' });
    cleanups.push(() => p.remove());

    const a = await uploadPdf(p, '2501.00001v1', pdfBytes('paper A'));
    expect(a.status).toBe(201);
    expect(a.headers.get('x-catalog-sync')).toBeNull();
    expect(await papers(neo4j)).toEqual({ '2501.00001': true });

    // Stopped with the write-through under way: the object is stored, the graph write waits on a frozen Neo4j,
    // which then dies.
    neo4j.freeze();
    const pending = uploadPdf(p, '2501.00002v1', pdfBytes('paper B'));
    const stored = path.join(p.dir, 'raw/pdf/2501/2501.00002v1.pdf');
    await until('the PDF to be stored', () => existsSync(stored));
    await neo4j.kill();
    const b = await pending;
    expect(b.status).toBe(201);
    expect(b.headers.get('x-catalog-sync')).toBe('deferred');
    expect((await p.fetch('/api/health', { headers: AUTH })).status).toBe(200);

    // Down: later uploads are deferred too, and the server keeps serving.
    const c = await uploadPdf(p, '2501.00003v1', pdfBytes('paper C'));
    expect(c.status).toBe(201);
    expect(c.headers.get('x-catalog-sync')).toBe('deferred');
    expect(await (await p.fetch('/api/papers/stats', { headers: AUTH })).json()).toMatchObject({ total: 3 });

    // Back (same address, same data): the graph lacks B and C until papers sync repairs it.
    await neo4j.restart();
    expect(await papers(neo4j)).toEqual({ '2501.00001': true });
    const sync = await pksdCommand(p, ['papers', 'sync', '--full', '--from-objects']);
    expect(sync.stderr).not.toMatch(/failed/);
    expect(sync.code).toBe(0);
    expect(sync.stdout).toMatch(/^papers: 3$/m);
    expect(await papers(neo4j)).toEqual({ '2501.00001': true, '2501.00002': true, '2501.00003': true });
  }, 240_000);

  it('a stopped (frozen) Neo4j delays an upload by a bounded time, then the upload succeeds deferred', async () => {
    const neo4j = await startNeo4jProcess();
    cleanups.push(() => neo4j.stop());
    const p: Pksd = await startPksd({ GRAPHDB_URI: neo4j.boltUri, GRAPHDB_USERNAME: 'neo4j', GRAPHDB_PASSWORD: 'x' });
    cleanups.push(() => p.remove());
    expect((await uploadPdf(p, '2501.00001v1', pdfBytes('paper A'))).status).toBe(201);

    neo4j.freeze();
    try {
      const answer = await Promise.race([
        uploadPdf(p, '2501.00002v1', pdfBytes('paper B')),
        new Promise<null>((resolve) => setTimeout(() => resolve(null), 30_000).unref()),
      ]);
      expect(answer, 'no answer within 30 s while Neo4j is stopped').not.toBeNull();
      expect(answer!.status).toBe(201);
      expect(answer!.headers.get('x-catalog-sync')).toBe('deferred');
      expect((await p.fetch('/api/health', { headers: AUTH })).status).toBe(200);
    } finally {
      neo4j.thaw();
    }
    const sync = await pksdCommand(p, ['papers', 'sync', '--full', '--from-objects']);
    expect(sync.code).toBe(0);
    expect(await papers(neo4j)).toEqual({ '2501.00001': true, '2501.00002': true });
  }, 120_000);
});
