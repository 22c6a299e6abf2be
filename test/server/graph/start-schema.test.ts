import neo4j from 'neo4j-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRAPH_SCHEMA_STATEMENTS } from '../../../src/server/graph/constraints.js';
import { graphEnv, startNeo4j, type Neo4jServer } from '../../support/neo4j.js';
import { startTestServer, type TestServer } from '../../support/server.js';

describe('server start with a graph', () => {
  let graph: Neo4jServer;
  let srv: TestServer;
  beforeAll(async () => {
    graph = await startNeo4j();
    srv = await startTestServer(graphEnv(graph));
  });
  afterAll(async () => {
    await srv?.close();
    await graph?.stop();
  });

  it('creates the constraints and indexes of CONTRACT §6.4 in the background', async () => {
    const driver = neo4j.driver(graph.boltUri, neo4j.auth.basic(graph.username, graph.password));
    try {
      const names = async () => {
        const constraints = await driver.executeQuery('SHOW CONSTRAINTS YIELD name RETURN name');
        const indexes = await driver.executeQuery('SHOW INDEXES YIELD name RETURN name');
        return [...constraints.records, ...indexes.records].map((r) => r.get('name') as string);
      };
      // Wait for the background job to report completion (bounded), then read the schema once.
      const deadline = Date.now() + 30_000;
      while (!srv.logs.text.includes('graph constraints and indexes ensured') && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const found = await names();
      for (const name of [
        'paper_preprint_id',
        'algorithm_wiki_id',
        'primitive_wiki_id',
        'author_wiki_id',
        'concept_wiki_id',
        'paper_openalex_id',
        'paper_doi',
        'paper_wiki_id',
      ]) {
        expect(found).toContain(name);
      }
      expect(GRAPH_SCHEMA_STATEMENTS.length).toBeGreaterThanOrEqual(8);
      expect(srv.logs.text).toContain('graph constraints and indexes ensured');
    } finally {
      await driver.close();
    }
  });
});
