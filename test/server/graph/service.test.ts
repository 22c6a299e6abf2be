/**
 * The graph endpoints' domain (CONTRACT §14) against a real Neo4j 5.26: stats and schema, the read-only query
 * (writes rejected by the database, the graph unchanged), the JSON encoding of every value type, the 10,000-record
 * cap, the query timeout, and the `{error}` answers when the graph is unconfigured or unreachable.
 */
import neo4j from 'neo4j-driver';
import { beforeAll, describe, expect, it } from 'vitest';
import { GraphService } from '../../../src/server/graph/service.js';
import type { GraphQueryResult } from '../../../src/shared/api/graph.js';
import { InvalidInputError } from '../../../src/shared/domain-errors.js';
import { freePort } from '../../support/free-port.js';
import { graphClientFor, useNeo4j } from '../../support/neo4j.js';

const db = useNeo4j();
let service: GraphService;

/** `query`'s answer as a client reads it: a success arrives as JSON text. */
async function answer(svc: GraphService, text: string, limit: number | undefined): Promise<unknown> {
  const result = await svc.query(text, limit);
  return typeof result === 'string' ? (JSON.parse(result) as GraphQueryResult) : result;
}

async function write(cypher: string, params: Record<string, unknown> = {}): Promise<void> {
  await db.graph.driver.executeQuery(cypher, params, { routing: 'WRITE' });
}

/** Every node and relationship with labels, types and properties, plus the token lists: "the graph" for equality. */
async function dump(): Promise<unknown> {
  const { records } = await db.graph.driver.executeQuery(
    `CALL { MATCH (n) RETURN collect([elementId(n), labels(n), properties(n)]) AS nodes }
     CALL { MATCH ()-[r]->() RETURN collect([elementId(r), type(r), properties(r)]) AS rels }
     CALL { CALL db.labels() YIELD label RETURN collect(label) AS labels }
     CALL { CALL db.relationshipTypes() YIELD relationshipType RETURN collect(relationshipType) AS types }
     CALL { CALL db.propertyKeys() YIELD propertyKey RETURN collect(propertyKey) AS keys }
     RETURN nodes, rels, labels, types, keys`,
  );
  return records[0]!.toObject();
}

beforeAll(async () => {
  service = new GraphService(db.graph);
  await write(
    `CREATE (a:Paper {preprint_id: '2101.00001', title: 'A', cited_by_count: 3})
     CREATE (b:Paper {preprint_id: '2101.00002', title: 'B'})
     CREATE (c:Concept:Algorithm {wiki_id: 'algo-x'})
     CREATE (:Concept {wiki_id: 'concept-y'})
     CREATE (a)-[:CITES]->(b), (b)-[:USES {source: 'wiki'}]->(c)`,
  );
  await write('CREATE (:Bytes {b: $b})', { b: new Int8Array([1, 2, 3, -1]) });
});

describe('stats and schema', () => {
  it('counts every node, relationship and label (a node with two labels counts for both)', async () => {
    expect(await service.stats()).toEqual({
      nodes: 5,
      relationships: 2,
      labels: ['Algorithm', 'Bytes', 'Concept', 'Paper'],
      label_counts: { Algorithm: 1, Bytes: 1, Concept: 2, Paper: 2 },
    });
  });

  it('lists labels, relationship types and property keys, sorted', async () => {
    expect(await service.schema()).toEqual({
      labels: ['Algorithm', 'Bytes', 'Concept', 'Paper'],
      relationship_types: ['CITES', 'USES'],
      property_keys: expect.arrayContaining(['b', 'cited_by_count', 'preprint_id', 'source', 'title', 'wiki_id']),
    });
    const { property_keys } = (await service.schema()) as { property_keys: string[] };
    expect(property_keys).toEqual([...property_keys].sort());
  });
});

describe('read-only queries', () => {
  const ADMIN = 'administration commands are not allowed in graph queries';
  const readOnly = (what: string) => `the graph is read-only: ${what} is not allowed`;
  const writes: [string, string, string][] = [
    ['CREATE', 'CREATE (n:Evil) RETURN n', readOnly('CREATE')],
    ['CREATE of a named path', 'CREATE p = (:Evil)-[:R]->(:Evil) RETURN p', readOnly('CREATE')],
    ['MERGE', "MERGE (n:Paper {preprint_id: 'new'}) RETURN n", readOnly('MERGE')],
    ['SET', "MATCH (n:Paper) SET n.title = 'x' RETURN n", readOnly('SET')],
    ['REMOVE', 'MATCH (n:Paper) REMOVE n.title RETURN n', readOnly('SET')],
    ['DELETE', 'MATCH ()-[r:CITES]->() DELETE r RETURN 1 AS one', readOnly('DELETE')],
    ['DETACH DELETE', 'MATCH (n) DETACH DELETE n RETURN count(*) AS n', readOnly('DETACH DELETE')],
    ['label change', 'MATCH (n:Paper) SET n:Evil RETURN n', readOnly('SET')],
    [
      'CALL db.createLabel',
      "CALL db.createLabel('Evil') WITH 1 AS one RETURN one",
      'procedure db.createLabel is not allowed in graph queries',
    ],
    [
      'CALL db.createProperty',
      "CALL db.createProperty('evil') WITH 1 AS one RETURN one",
      'procedure db.createProperty is not allowed in graph queries',
    ],
    [
      'CALL db.createRelationshipType',
      "CALL db.createRelationshipType('EVIL') WITH 1 AS one RETURN one",
      'procedure db.createRelationshipType is not allowed in graph queries',
    ],
    ['a write inside CALL { }', 'CALL { CREATE (:Evil) } RETURN 1 AS one', readOnly('CREATE')],
    [
      'a write inside CALL { } IN TRANSACTIONS',
      'UNWIND [1] AS i CALL { WITH i CREATE (:Evil) } IN TRANSACTIONS RETURN i',
      readOnly('CALL { … } IN TRANSACTIONS'),
    ],
    ['FOREACH', 'MATCH (n:Paper) FOREACH (x IN [1] | CREATE (:Evil)) RETURN n', readOnly('FOREACH')],
    ['schema command', 'CREATE INDEX evil IF NOT EXISTS FOR (n:Evil) ON (n.x)', ADMIN],
    ['a write after a leading comment', '/* hi */ MATCH (n:Paper) SET n.x = 1 RETURN n', readOnly('SET')],
  ];

  it.each(writes)('%s is refused with 400 and the graph is unchanged', async (_label, query, detail) => {
    const before = await dump();
    await expect(answer(service, query, 10)).rejects.toThrow(new InvalidInputError(detail));
    expect(await dump()).toEqual(before);
  });

  it.each([
    ['upper case', "LOAD CSV FROM 'file:///etc/passwd' AS row RETURN row"],
    ['lower case', "load csv from 'file:///etc/passwd' as row return row"],
    ['split across lines', "LOAD\nCSV FROM 'file:///etc/passwd' AS row RETURN row"],
    ['a comment between the words', "LOAD /* x */ CSV FROM 'file:///etc/passwd' AS row RETURN row"],
  ])('LOAD CSV (%s) is refused before reaching the database', async (_label, query) => {
    const before = await dump();
    await expect(answer(service, query, 10)).rejects.toThrow(
      new InvalidInputError('LOAD CSV is not allowed in graph queries'),
    );
    expect(await dump()).toEqual(before);
  });

  it('LOAD CSV inside a string literal or a comment runs', async () => {
    expect(await answer(service, "RETURN 'LOAD CSV FROM x' AS text // LOAD CSV", 10)).toEqual({
      query: "RETURN 'LOAD CSV FROM x' AS text // LOAD CSV\nLIMIT 10",
      columns: ['text'],
      records: [{ text: 'LOAD CSV FROM x' }],
      truncated: false,
    });
  });

  it('a syntax error is {query, error}, quoting only what was sent', async () => {
    const result = (await answer(service, 'MATCH (n RETURN n', undefined)) as { query: string; error: string };
    expect(result).toEqual({ query: 'MATCH (n RETURN n LIMIT 50', error: expect.stringContaining('Invalid input') });
    expect(result.error).toContain('(line 1, column 10 (offset: 9))\n"MATCH (n RETURN n"\n          ^');
    expect(result.error).not.toMatch(/EXPLAIN|LIMIT 50/);
  });

  it('a syntax error in the appended LIMIT names it as appended', async () => {
    const result = (await answer(service, 'CALL db.labels()', undefined)) as { query: string; error: string };
    expect(result).toEqual({
      query: 'CALL db.labels() LIMIT 50',
      error: expect.stringContaining(
        '(at the "LIMIT 50" the server appended because the query has no LIMIT of its own)',
      ),
    });
    expect(result.error).not.toMatch(/EXPLAIN|"CALL db\.labels\(\) LIMIT 50"/);
  });
});

describe('value encoding', () => {
  it('scalars, big integers, non-finite floats, lists and maps', async () => {
    const result = await answer(
      service,
      `RETURN 1 AS one, -5 AS neg, 9007199254740991 AS safe, 9007199254740992 AS unsafe,
              -9223372036854775808 AS min, 1.5 AS float, 0.0/0.0 AS nan, 1.0/0.0 AS inf, -1.0/0.0 AS ninf,
              'text' AS s, true AS t, null AS nothing, [1, 'a', [2.5, null]] AS list,
              {a: 1, b: {c: 'x', d: [9223372036854775807]}} AS map`,
      undefined,
    );
    expect(result).toMatchObject({
      records: [
        {
          one: 1,
          neg: -5,
          safe: 9007199254740991,
          unsafe: '9007199254740992',
          min: '-9223372036854775808',
          float: 1.5,
          nan: 'NaN',
          inf: 'Infinity',
          ninf: '-Infinity',
          s: 'text',
          t: true,
          nothing: null,
          list: [1, 'a', [2.5, null]],
          map: { a: 1, b: { c: 'x', d: ['9223372036854775807'] } },
        },
      ],
    });
  });

  it('temporal values as ISO 8601 strings', async () => {
    const result = await answer(
      service,
      `RETURN date('2024-02-29') AS d, datetime('2024-01-02T03:04:05.123456789+01:00') AS dt,
              datetime({year: 2024, month: 1, day: 2, hour: 3, timezone: 'Europe/Berlin'}) AS zoned,
              localdatetime('2024-01-02T03:04:05') AS ldt, time('12:00:00Z') AS t, localtime('12:34:56.5') AS lt,
              duration('P1Y2M3DT4H5M6.5S') AS du`,
      undefined,
    );
    expect(result).toMatchObject({
      records: [
        {
          d: '2024-02-29',
          dt: '2024-01-02T03:04:05.123456789+01:00',
          zoned: '2024-01-02T03:00:00+01:00[Europe/Berlin]',
          ldt: '2024-01-02T03:04:05',
          t: '12:00:00Z',
          lt: '12:34:56.500000000',
          du: 'P1Y2M3DT4H5M6.500000000S',
        },
      ],
    });
  });

  it('points, byte arrays', async () => {
    const result = await answer(
      service,
      `MATCH (b:Bytes) RETURN point({x: 1, y: 2}) AS p2, point({x: 1, y: 2, z: 3.5}) AS p3,
              point({latitude: 55.6, longitude: 12.5}) AS geo, b.b AS bytes`,
      undefined,
    );
    expect(result).toMatchObject({
      records: [
        {
          p2: { srid: 7203, x: 1, y: 2 },
          p3: { srid: 9157, x: 1, y: 2, z: 3.5 },
          geo: { srid: 4326, x: 12.5, y: 55.6 },
          bytes: Buffer.from([1, 2, 3, 255]).toString('base64'),
        },
      ],
    });
  });

  it('nodes, relationships and paths with elementIds', async () => {
    const { records } = await db.graph.driver.executeQuery(
      `MATCH (a:Paper {preprint_id: '2101.00001'})-[r:CITES]->(b)-[u:USES]->(c)
       RETURN elementId(a) AS a, elementId(r) AS r, elementId(b) AS b, elementId(u) AS u, elementId(c) AS c`,
    );
    const id = records[0]!.toObject() as Record<string, string>;
    const result = await answer(
      service,
      `MATCH p = (a:Paper {preprint_id: '2101.00001'})-[r:CITES]->(b)-[:USES]->(c) RETURN a, r, p`,
      undefined,
    );
    const a = {
      id: id['a'],
      labels: ['Paper'],
      properties: { preprint_id: '2101.00001', title: 'A', cited_by_count: 3 },
    };
    const r = { id: id['r'], type: 'CITES', start_node: id['a'], end_node: id['b'], properties: {} };
    expect(result).toEqual({
      query: expect.any(String),
      columns: ['a', 'r', 'p'],
      records: [
        {
          a,
          r,
          p: {
            nodes: [
              a,
              { id: id['b'], labels: ['Paper'], properties: { preprint_id: '2101.00002', title: 'B' } },
              { id: id['c'], labels: ['Concept', 'Algorithm'], properties: { wiki_id: 'algo-x' } },
            ],
            relationships: [
              r,
              { id: id['u'], type: 'USES', start_node: id['b'], end_node: id['c'], properties: { source: 'wiki' } },
            ],
          },
        },
      ],
      truncated: false,
    });
  });
});

describe('record cap and limits', () => {
  it('a 10,001-row result returns 10,000 records and truncated', async () => {
    const result = await answer(service, 'UNWIND range(1, 10001) AS i RETURN i LIMIT 10001', undefined);
    expect(result).toMatchObject({ truncated: true });
    const { records } = result as GraphQueryResult;
    expect(records).toHaveLength(10_000);
    expect(records.at(-1)).toEqual({ i: 10_000 });
  });

  it('exactly 10,000 rows are not truncated; the limit clamps to 10,000', async () => {
    const result = await answer(service, 'UNWIND range(1, 20000) AS i RETURN i', 50_000);
    expect(result).toMatchObject({ query: 'UNWIND range(1, 20000) AS i RETURN i LIMIT 10000', truncated: false });
    expect((result as { records: unknown[] }).records).toHaveLength(10_000);
  });

  it('a query that fails past the cap answers with its error, not with the first 10,000 records', async () => {
    const query = 'UNWIND range(1, 10500) AS i RETURN 1 / (10200 - i) AS x LIMIT 10500';
    expect(await answer(service, query, undefined)).toEqual({ query, error: '/ by zero' });
  });

  it('a huge result is cut without reading it all', async () => {
    const result = await answer(service, 'UNWIND range(1, 100000000) AS i RETURN i LIMIT 100000000', undefined);
    expect(result).toMatchObject({ truncated: true });
    expect((result as { records: unknown[] }).records).toHaveLength(10_000);
  });

  it('the query timeout setting ends a long query with {query, error}', async () => {
    const timed = new GraphService(db.graph, { queryTimeoutSeconds: 1 });
    const result = await answer(
      timed,
      'UNWIND range(1, 2000000000) AS i WITH i WHERE i < 0 RETURN count(i) AS n',
      undefined,
    );
    expect(result).toEqual({ query: expect.any(String), error: expect.stringMatching(/timeout|terminated/i) });
  });
});

describe('graph unavailable', () => {
  it('not configured: {error} naming GRAPHDB_URI on all three; the query is still validated first', async () => {
    const none = new GraphService(null);
    const error = { error: 'graph not configured (GRAPHDB_URI empty)' };
    expect(await none.stats()).toEqual(error);
    expect(await none.schema()).toEqual(error);
    expect(await answer(none, 'RETURN 1', undefined)).toEqual(error);
    await expect(answer(none, '  ', undefined)).rejects.toThrow(new InvalidInputError('query required'));
  });

  it('unreachable: {error} with the driver message; the query route adds the query', async () => {
    const port = await freePort();
    const dead = graphClientFor({ boltUri: `bolt://127.0.0.1:${port}`, username: 'neo4j', password: 'x' });
    try {
      const down = new GraphService(dead);
      expect(await down.stats()).toEqual({ error: expect.stringMatching(/ECONNREFUSED|connect/i) });
      expect(await down.schema()).toEqual({ error: expect.stringMatching(/ECONNREFUSED|connect/i) });
      expect(await answer(down, 'RETURN 1', 5)).toEqual({
        query: 'RETURN 1 LIMIT 5',
        error: expect.stringMatching(/ECONNREFUSED|connect/i),
      });
    } finally {
      await dead.close();
    }
  });
});

it('integers written by the service round-trip as numbers', async () => {
  await write('CREATE (:Counter {n: $n})', { n: neo4j.int(42) });
  expect(await answer(service, 'MATCH (c:Counter) RETURN c.n AS n', undefined)).toMatchObject({ records: [{ n: 42 }] });
});
