/**
 * Graph write-through from uploads (CONTRACT §6.5) and graph-backed claims over HTTP (§5.1), on a real Neo4j.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pksd } from '../../support/cli.js';
import { cypherRows, graphEnv, startNeo4j, type Neo4jServer } from '../../support/neo4j.js';
import { AUTH, multipart, pdfBytes, sha, startBackend, uploadPdf, type Backend } from './helpers.js';
import { makeZip } from './zip.js';

let neo: Neo4jServer;
let b: Backend;
beforeAll(async () => {
  neo = await startNeo4j();
  b = await startBackend('local', null, graphEnv(neo));
  // A fresh JVM compiles the write-through's Cypher on its first use, which on a loaded machine can outlast the
  // upload's 10 s graph deadline. One upload of another paper, awaited until its node exists, warms it, so the
  // tests below see a graph that answers like a running one.
  await uploadPdf(b.server, '2412.00002v1', pdfBytes('warm-up'));
  for (let i = 0; ; i++) {
    if ((await query("MATCH (p:Paper {preprint_id: '2412.00002'}) RETURN p")).length > 0) break;
    if (i === 240) throw new Error('the warm-up upload never reached the graph (120 s)');
    await new Promise((r) => setTimeout(r, 500));
  }
});
afterAll(async () => {
  await b?.close();
  await neo?.stop();
});

const query = (cypher: string, params: Record<string, unknown> = {}) => cypherRows(neo, cypher, params);

async function uploadZip(id: string, zip: Buffer) {
  const { body, contentType } = multipart([{ name: 'parser_zip', filename: 'r.zip', content: zip }]);
  return b.server.fetch(`/api/papers/${id}/upload-parser`, {
    method: 'POST',
    headers: { ...AUTH, 'Content-Type': contentType },
    body,
  });
}

describe('graph write-through', () => {
  it('MERGEs the versionless Paper node with asset properties; no X-Catalog-Sync when the graph took it', async () => {
    const v1 = pdfBytes('v1');
    const v2 = pdfBytes('v2 longer');
    expect((await uploadPdf(b.server, '2501.00010v1', v1)).headers.get('x-catalog-sync')).toBeNull();
    await uploadPdf(b.server, '2501.00010v2', v2);
    const zip = makeZip([
      { name: 'full.md', content: '# one' },
      { name: 'images/a.png', content: 'A' },
      { name: 'images/b.png', content: 'B' },
    ]);
    const res = await uploadZip('2501.00010v1', zip);
    expect(res.status).toBe(201);
    expect(res.headers.get('x-catalog-sync')).toBeNull();

    const [node] = await query('MATCH (p:Paper {preprint_id: $id}) RETURN p', { id: '2501.00010' });
    const props = (node!['p'] as { properties: Record<string, unknown> }).properties;
    expect(props).toMatchObject({
      preprint_id: '2501.00010',
      yymm: '2501',
      versions: ['2501.00010v1', '2501.00010v2'],
      pdf_versions: ['2501.00010v1', '2501.00010v2'],
      md_versions: ['2501.00010v1'],
      has_pdf: true,
      has_md: true,
      pdf_sha256: sha(v2),
      md_sha256: sha('# one'),
    });
    expect(Number(props['latest_pdf_version'])).toBe(2);
    expect(Number(props['latest_md_version'])).toBe(1);
    expect(Number(props['pdf_size'])).toBe(v2.length);
    expect(Number(props['image_count'])).toBe(2);
    expect(props['assets_updated_at']).toBeDefined();
  });

  it('old-style ids merge on the versionless canonical id with the category', async () => {
    await uploadPdf(b.server, '9508027v1', pdfBytes('old'));
    const rows = await query('MATCH (p:Paper {preprint_id: $id}) RETURN p.pdf_versions AS v', {
      id: 'quant-ph/9508027',
    });
    expect(rows).toEqual([{ v: ['quant-ph/9508027v1'] }]);
  });
});

describe('graph-backed claims over HTTP', () => {
  it('claim → ParserClaim node; 409 while held; upload-parser deletes it', async () => {
    await uploadPdf(b.server, '2501.00077v1', pdfBytes('claim'));
    const res = await b.server.fetch('/api/papers/2501.00077v1/parser-claim?ttl_seconds=600', {
      method: 'POST',
      headers: AUTH,
    });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Record<string, unknown>;
    const [node] = await query(
      'MATCH (c:ParserClaim {preprint_id: $id}) RETURN c.claim_id AS claim_id, c.requester AS requester, c.ttl_seconds AS ttl',
      {
        id: '2501.00077v1',
      },
    );
    expect(node).toMatchObject({ claim_id: body['claim_id'], requester: 'system-pat' });
    expect(Number(node!['ttl'])).toBe(600);

    const again = await b.server.fetch('/api/papers/2501.00077v1/parser-claim', { method: 'POST', headers: AUTH });
    expect(again.status).toBe(409);

    const needs = (await (
      await b.server.fetch('/api/papers/needs-parser?include_claimed=true', { headers: AUTH })
    ).json()) as {
      papers: { preprint_id: string; claimed: boolean }[];
    };
    expect(needs.papers.find((p) => p.preprint_id === '2501.00077v1')).toMatchObject({ claimed: true });

    expect((await uploadZip('2501.00077v1', makeZip([{ name: 'full.md', content: '# c' }]))).status).toBe(201);
    expect(await query('MATCH (c:ParserClaim {preprint_id: $id}) RETURN c', { id: '2501.00077v1' })).toEqual([]);
  });
});

describe('papers sync graph step', () => {
  it('sets asset properties from the listing and clears nodes no longer backed (without deleting them)', async () => {
    await query(
      "MERGE (p:Paper {preprint_id: '2412.99999'}) SET p.has_pdf = true, p.versions = ['2412.99999v1'], p.pdf_versions = ['2412.99999v1'], p.title = 'kept'",
    );
    const env = {
      SVC_RAW_DIR: b.server.config.rawDir,
      SVC_DATA_DIR: b.server.config.dataDir,
      SVC_DB_DATA_DIR: b.server.config.dbDataDir,
      ...graphEnv(neo),
    };
    const run = await pksd(['papers', 'sync', '--full', '--from-objects'], env);
    expect(run.code, run.stderr).toBe(0);
    const papers = Number(/^papers: (\d+)$/m.exec(run.stdout)![1]);
    const touched = Number(/^graph papers touched: (\d+)$/m.exec(run.stdout)![1]);
    expect(papers).toBeGreaterThan(0);
    expect(touched).toBeGreaterThanOrEqual(2); // every listed paper's node plus the stale one
    const [stale] = await query(
      "MATCH (p:Paper {preprint_id: '2412.99999'}) RETURN p.has_pdf AS has_pdf, p.versions AS versions, p.title AS title",
    );
    expect(stale).toEqual({ has_pdf: false, versions: [], title: 'kept' });
    const [fresh] = await query(
      "MATCH (p:Paper {preprint_id: '2501.00010'}) RETURN p.pdf_versions AS v, p.has_md AS md",
    );
    expect(fresh).toEqual({ v: ['2501.00010v1', '2501.00010v2'], md: true });
  });
});
