/**
 * The query answer written as JSON text while records stream (CONTRACT §14), against the model it replaces:
 * `JSON.stringify({query, columns, records, truncated})` of the encoded records. The assembly by a property over
 * arbitrary strings and JSON values; the streamed answer of a real Neo4j 5.26 for every value type, an empty and a
 * truncated result; keys called `__proto__`; and the bytes `POST /api/graph/query` sends.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeRecord, queryResultJson } from '../../../src/server/graph/query-json.js';
import { GraphService } from '../../../src/server/graph/service.js';
import { useNeo4j } from '../../support/neo4j.js';
import { startTestServer, type TestServer } from '../../support/server.js';

/** Strings with quotes, backslashes, control characters, non-BMP characters and lone surrogates. */
const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom('', '"', '\\', '\u0000', '\u001f', '\u2028', '\ud800', 'a\udc00b', '😀', '__proto__', '1', 'é"\n\t'),
);
const value = fc.oneof(
  fc.jsonValue({ stringUnit: 'binary', maxDepth: 4 }),
  fc.constantFrom(-0, 1e21, 5e-324, Number.MAX_SAFE_INTEGER, -Number.MAX_VALUE),
);
const record = fc.dictionary(text, value, { maxKeys: 5 });

describe('the answer text', () => {
  it('equals JSON.stringify of the answer object', () => {
    fc.assert(
      fc.property(
        text,
        fc.array(text, { maxLength: 4 }),
        fc.array(record, { maxLength: 5 }),
        fc.boolean(),
        (query, columns, records, truncated) => {
          const written = queryResultJson(query, columns, records.map((r) => JSON.stringify(r)).join(','), truncated);
          expect(written).toBe(JSON.stringify({ query, columns, records, truncated }));
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('streamed answers of a real Neo4j', () => {
  const db = useNeo4j();
  let service: GraphService;
  beforeAll(async () => {
    service = new GraphService(db.graph);
    await db.graph.driver.executeQuery(
      `CREATE (a:Paper {preprint_id: '2101.00001', title: 'Quote " backslash \\\\ tab \\t é 😀', n: 9007199254740993,
                        tags: ['x', 'y'], score: 0.5})
       CREATE (b:Paper:Extra {preprint_id: '2101.00002'})
       CREATE (a)-[:CITES {since: date('2024-01-02')}]->(b)`,
      {},
      { routing: 'WRITE' },
    );
    await db.graph.driver.executeQuery(
      'CREATE (:Bytes {b: $b})',
      { b: new Int8Array([1, 2, 3, -1]) },
      { routing: 'WRITE' },
    );
  });

  /** The model: the records the driver returns for `query`, encoded, and serialised as one object. */
  async function model(query: string, truncated = false): Promise<string> {
    const { records, keys } = await db.graph.driver.executeQuery(query, {}, { routing: 'READ' });
    const kept = truncated ? records.slice(0, 10_000) : records;
    return JSON.stringify({ query, columns: keys, records: kept.map(encodeRecord), truncated });
  }

  it.each([
    [
      'scalars, integers, non-finite floats',
      `RETURN 1 AS one, -5 AS neg, 9007199254740991 AS safe, 9007199254740992 AS unsafe,
              -9223372036854775808 AS min, 1.5 AS float, -0.0 AS negzero, 0.0/0.0 AS nan, 1.0/0.0 AS inf,
              -1.0/0.0 AS ninf, 'text' AS s, true AS t, false AS f, null AS nothing LIMIT 5`,
    ],
    [
      'strings with quotes, escapes, controls and non-BMP characters',
      `RETURN 'a"b\\\\c\\nd\\te\\u0001f\\u001f\\u2028 é 😀' AS s, ['"', '\\\\'] AS l LIMIT 5`,
    ],
    [
      'lists and maps, nested',
      `RETURN [1, 'a', [2.5, null, [true]], {k: [9223372036854775807]}] AS list,
              {a: 1, b: {c: 'x', d: [-9223372036854775807]}, \`1\`: 'int-like key', \`\`: 'empty key'} AS map LIMIT 5`,
    ],
    [
      'temporal values',
      `RETURN date('2024-02-29') AS d, datetime('2024-01-02T03:04:05.123456789+01:00') AS dt,
              datetime({year: 2024, month: 1, day: 2, hour: 3, timezone: 'Europe/Berlin'}) AS zoned,
              localdatetime('2024-01-02T03:04:05') AS ldt, time('12:00:00Z') AS t, localtime('12:34:56.5') AS lt,
              duration('P1Y2M3DT4H5M6.5S') AS du LIMIT 5`,
    ],
    [
      'points and byte arrays',
      `MATCH (b:Bytes) RETURN point({x: 1, y: 2}) AS p2, point({x: 1, y: 2, z: 3.5}) AS p3,
              point({latitude: 55.6, longitude: 12.5}) AS geo, b.b AS bytes LIMIT 5`,
    ],
    ['nodes, relationships and paths', 'MATCH p = (a:Paper)-[r:CITES]->(b) RETURN a, r, b, p LIMIT 5'],
    ['several records', 'UNWIND range(1, 25) AS i RETURN i, toString(i) AS s, [i, -i] AS l LIMIT 25'],
    ['no records', 'MATCH (n:Nothing) RETURN n LIMIT 5'],
  ])('%s: the streamed text is the model', async (_label, query) => {
    expect(await service.query(query, undefined)).toBe(await model(query));
  });

  it('a truncated result: the first 10,000 records and truncated, as the model writes them', async () => {
    const query = 'UNWIND range(1, 10001) AS i RETURN i, {n: i, s: toString(i)} AS m LIMIT 10001';
    expect(await service.query(query, undefined)).toBe(await model(query, true));
  });

  it('keys called __proto__ stay entries: a property, a map key, a column', async () => {
    await db.graph.driver.executeQuery("CREATE (:Proto {`__proto__`: 'p', b: 1})", {}, { routing: 'WRITE' });
    const answer = await service.query(
      'MATCH (n:Proto) RETURN n.b AS `__proto__`, {`__proto__`: {x: 1}, a: 2} AS m, properties(n) AS props LIMIT 5',
      undefined,
    );
    const parsed = JSON.parse(answer as string) as { columns: string[]; records: Record<string, object>[] };
    expect(parsed.columns).toEqual(['__proto__', 'm', 'props']);
    const record = parsed.records[0]!;
    expect(Object.entries(record).map(([key]) => key)).toEqual(['__proto__', 'm', 'props']);
    expect(Object.getOwnPropertyDescriptor(record, '__proto__')?.value).toBe(1);
    expect(Object.entries(record['m']!)).toEqual([
      ['__proto__', { x: 1 }],
      ['a', 2],
    ]);
    expect(Object.entries(record['props']!).sort()).toEqual([
      ['__proto__', 'p'],
      ['b', 1],
    ]);
  });

  describe('over HTTP', () => {
    const PAT = 'graph-query-json-system-pat-01';
    let server: TestServer;
    beforeAll(async () => {
      server = await startTestServer({ GRAPHDB_URI: db.server.boltUri, SVC_SYSTEM_PAT: PAT });
    });
    afterAll(async () => {
      await server?.close();
    });

    it('POST /api/graph/query sends the answer text as UTF-8 JSON', async () => {
      const query = 'MATCH p = (a:Paper)-[r:CITES]->(b) RETURN a, r, p, a.title AS title LIMIT 5';
      const res = await server.fetch('/api/graph/query', {
        method: 'POST',
        headers: { authorization: `Bearer ${PAT}`, 'content-type': 'application/json', 'accept-encoding': 'identity' },
        body: JSON.stringify({ query }),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const body = Buffer.from(await res.arrayBuffer());
      expect(res.headers.get('content-length')).toBe(String(body.length));
      expect(body.toString('utf8')).toBe(await model(query));
      expect((JSON.parse(body.toString('utf8')) as { records: { title: string }[] }).records[0]!.title).toBe(
        'Quote " backslash \\ tab \t é 😀',
      );
    });
  });
});
