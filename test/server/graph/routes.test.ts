/**
 * `GET /api/graph/stats`, `GET /api/graph/schema`, `POST /api/graph/query` over HTTP (CONTRACT §14): each error body,
 * the validation that applies even without a graph, and the success bodies from a real Neo4j.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/server/app.js';
import { openIdentity } from '../../../src/server/auth/identity.js';
import { CredentialChain } from '../../../src/server/auth/system-pat.js';
import { createGraphClient, type GraphClient } from '../../../src/server/graph/driver.js';
import { GraphService } from '../../../src/server/graph/service.js';
import { graphProbe, localDirProbe, wikiProbe } from '../../../src/server/health/probes.js';
import { HealthService } from '../../../src/server/health/service.js';
import type { App } from '../../../src/server/http/context.js';
import { openPaperAssets } from '../../../src/server/papers/assets.js';
import { openWiki } from '../../../src/server/wiki/service.js';
import { freePort } from '../../support/free-port.js';
import { useNeo4j } from '../../support/neo4j.js';
import { testConfig } from '../../support/server.js';

const SYSTEM_PAT = 'system-pat-for-graph-routes-01';
const AUTH = { authorization: `Bearer ${SYSTEM_PAT}` };

interface Harness {
  readonly app: App;
  close(): Promise<void>;
}

/** The app as `pksd serve` builds it, with the graph service for `graphUri` (none: not configured). */
async function harness(graphUri: string | null): Promise<Harness> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pksd-graph-'));
  const config = testConfig(dir, { SVC_SYSTEM_PAT: SYSTEM_PAT, ...(graphUri ? { GRAPHDB_URI: graphUri } : {}) });
  const logger = pino({ level: 'silent' });
  const identity = await openIdentity(config, logger);
  const papers = await openPaperAssets(config, logger, { s3: null, graph: null });
  const wiki = await openWiki(config, logger);
  const client: GraphClient | null = config.graph ? createGraphClient(config.graph) : null;
  const app = await buildApp({
    config,
    logger,
    credentials: new CredentialChain(config.systemPat, identity.verifiers),
    health: new HealthService({
      rawstore: localDirProbe(config.rawDir),
      graphdb: graphProbe(client, config.graph?.uri ?? null),
      wiki: wikiProbe(config.wikiDir),
    }),
    identity,
    papers,
    wiki,
    webRoot: path.join(dir, 'no-web'),
    graph: new GraphService(client, { queryTimeoutSeconds: config.graph?.queryTimeoutSeconds ?? null }),
  });
  await app.ready();
  return {
    app,
    async close() {
      await app.close();
      await papers.close();
      await wiki.close();
      await identity.close();
      await client?.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function query(h: Harness, payload: string | object) {
  const res = await h.app.inject({
    method: 'POST',
    url: '/api/graph/query',
    headers: { ...AUTH, 'content-type': 'application/json' },
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });
  return { status: res.statusCode, body: res.json() as Record<string, unknown>, headers: res.headers };
}

describe('graph not configured', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness(null);
  });
  afterAll(async () => {
    await h?.close();
  });

  it.each(['/api/graph/stats', '/api/graph/schema'])('GET %s → 200 {error} naming GRAPHDB_URI', async (url) => {
    const res = await h.app.inject({ method: 'GET', url, headers: AUTH });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.json()).toEqual({ error: 'graph not configured (GRAPHDB_URI empty)' });
  });

  it('POST /api/graph/query → 200 {error} for a valid query', async () => {
    expect(await query(h, { query: 'RETURN 1' })).toMatchObject({
      status: 200,
      body: { error: 'graph not configured (GRAPHDB_URI empty)' },
    });
  });

  it.each([
    ['invalid JSON', '{"query": ', /^parse body: /],
    ['no query', {}, 'query required'],
    ['empty query', { query: '' }, 'query required'],
    ['blank query', { query: ' \n ' }, 'query required'],
    [
      'LOAD CSV',
      { query: "LOAD CSV FROM 'file:///etc/passwd' AS r RETURN r" },
      'LOAD CSV is not allowed in graph queries',
    ],
    ['load csv split', { query: "load\ncsv from 'x' as r return r" }, 'LOAD CSV is not allowed in graph queries'],
    ['apoc.load', { query: "CALL apoc.load.json('x')" }, 'apoc.load.* is not allowed in graph queries'],
    ['apoc.export', { query: 'CALL apoc.export.csv.all("x", {})' }, 'apoc.export.* is not allowed in graph queries'],
    ['apoc.import', { query: 'CALL apoc.import.graphml("x", {})' }, 'apoc.import.* is not allowed in graph queries'],
    ['unknown field', { query: 'RETURN 1', params: {} }, "unknown field 'params'"],
    ['query not a string', { query: { text: 'RETURN 1' } }, /^query: /],
    ['limit not an integer', { query: 'RETURN 1', limit: 2.5 }, /^limit: /],
  ])('%s → 400 even without a graph', async (_label, payload, detail) => {
    const res = await query(h, payload);
    expect(res.status).toBe(400);
    expect(Object.keys(res.body)).toEqual(['detail']);
    if (typeof detail === 'string') expect(res.body['detail']).toBe(detail);
    else expect(res.body['detail']).toMatch(detail);
  });

  it('needs a credential (graph:read)', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/api/graph/stats' });
    expect(res.statusCode).toBe(401);
  });
});

describe('graph unreachable', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness(`bolt://127.0.0.1:${await freePort()}`);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('stats and schema → 200 {error}; query → 200 {query, error}', async () => {
    for (const url of ['/api/graph/stats', '/api/graph/schema']) {
      const res = await h.app.inject({ method: 'GET', url, headers: AUTH });
      expect(res.statusCode).toBe(200);
      expect(Object.keys(res.json() as object)).toEqual(['error']);
    }
    const res = await query(h, { query: 'MATCH (n) RETURN n', limit: 3 });
    expect(res).toMatchObject({
      status: 200,
      body: { query: 'MATCH (n) RETURN n LIMIT 3', error: expect.any(String) },
    });
    expect(Object.keys(res.body).sort()).toEqual(['error', 'query']);
  });
});

describe('graph configured (real Neo4j)', () => {
  const db = useNeo4j();
  let h: Harness;
  beforeAll(async () => {
    h = await harness(db.server.boltUri);
    await db.graph.driver.executeQuery(
      "CREATE (:Paper {preprint_id: '2101.00001'})-[:CITES]->(:Paper:Extra {preprint_id: '2101.00002', n: 9007199254740993})",
    );
  });
  afterAll(async () => {
    await h?.close();
  });

  it('GET /api/graph/stats and /api/graph/schema', async () => {
    const stats = await h.app.inject({ method: 'GET', url: '/api/graph/stats', headers: AUTH });
    expect(stats.json()).toEqual({
      nodes: 2,
      relationships: 1,
      labels: ['Extra', 'Paper'],
      label_counts: { Extra: 1, Paper: 2 },
    });
    const schema = await h.app.inject({ method: 'GET', url: '/api/graph/schema', headers: AUTH });
    expect(schema.json()).toEqual({
      labels: ['Extra', 'Paper'],
      relationship_types: ['CITES'],
      property_keys: ['n', 'preprint_id'],
    });
  });

  it('POST /api/graph/query: the query as run, columns, encoded records, truncated', async () => {
    const res = await query(h, { query: 'MATCH (a)-[r:CITES]->(b) RETURN a.preprint_id AS a, b.n AS n;' });
    expect(res).toEqual({
      status: 200,
      headers: expect.any(Object),
      body: {
        query: 'MATCH (a)-[r:CITES]->(b) RETURN a.preprint_id AS a, b.n AS n LIMIT 50',
        columns: ['a', 'n'],
        records: [{ a: '2101.00001', n: '9007199254740993' }],
        truncated: false,
      },
    });
  });

  it.each([
    ["CREATE (:Evil {x: 'LOAD CSV'}) RETURN 1 AS one", 'the graph is read-only: CREATE is not allowed'],
    ["MATCH (n) SET n.x = 'LOAD CSV' RETURN 1 AS one", 'the graph is read-only: SET is not allowed'],
  ])("a write is refused by its plan: 400 in the contract's words, nothing written (%s)", async (text, detail) => {
    const res = await query(h, { query: text });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail });
    expect(JSON.stringify(res.body)).not.toContain('read access mode');
    const stats = await h.app.inject({ method: 'GET', url: '/api/graph/stats', headers: AUTH });
    expect((stats.json() as { nodes: number }).nodes).toBe(2);
  });

  it('a 10,001-row result → 10,000 records and truncated', async () => {
    const res = await query(h, { query: 'UNWIND range(1, 10001) AS i RETURN i LIMIT 10001' });
    expect(res.body['truncated']).toBe(true);
    expect((res.body['records'] as unknown[]).length).toBe(10_000);
  });
});
