/**
 * Graph query benchmark (run: `npx vitest run --config bench/support/vitest.config.ts graph-query`).
 *
 * A real Neo4j 5.26 (the tests' launcher, 2 GiB heap, full JIT) holding 5,000 `Paper` nodes with scholarly properties. The same query
 * returning 1,000 nodes runs through `POST /api/graph/query` on a real in-process pksd (system PAT, guard, read
 * transaction, streaming, value encoding, JSON; the client on a worker thread) and through neo4j-driver directly (a
 * read session, records materialised), alternating, in the same run. Target: driver time / HTTP time ≥ 0.8 (medians of 200 each).
 */
import { Worker } from 'node:worker_threads';
import neo4j from 'neo4j-driver';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { useNeo4j } from '../test/support/neo4j.js';
import { startTestServer, type TestServer } from '../test/support/server.js';
import { machine, mib, ms, percentile, report, verdict } from './support/papers-util.js';

const PAPERS = 5_000;
const ROWS = 1_000;
const RUNS = 200;
const QUERY = `MATCH (p:Paper) RETURN p ORDER BY p.preprint_id LIMIT ${ROWS}`;
const PAT = 'g'.repeat(24);

const db = useNeo4j({ forThroughput: true });
let server: TestServer;

beforeAll(async () => {
  await db.graph.driver.executeQuery(
    `UNWIND range(1, $n) AS i
     CREATE (:Paper {preprint_id: '2101.' + right('0000' + toString(i), 5), title: 'Paper number ' + toString(i),
       authors: ['Ada Abe', 'Boris Berg'], doi: '10.5555/p.' + toString(i), cited_by_count: i % 100,
       publication_date: '2021-01-01', has_pdf: true, versions: ['v1', 'v2']})`,
    { n: neo4j.int(PAPERS) },
  );
  server = await startTestServer({ GRAPHDB_URI: db.server.boltUri, SVC_SYSTEM_PAT: PAT, SVC_LOG_LEVEL: 'error' });
  client = new Worker(CLIENT, { eval: true });
});
afterAll(async () => {
  await client?.terminate();
  await server?.close();
});

// The HTTP client runs on a worker thread (as a real client is another process): plain JavaScript, `eval: true`.
const CLIENT = `
const { parentPort } = require('node:worker_threads');
const http = require('node:http');
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
parentPort.on('message', ({ url, headers, body }) => {
  const t0 = performance.now();
  const req = http.request(url, { method: 'POST', agent, headers: { ...headers, 'Content-Length': Buffer.byteLength(body) } }, (res) => {
    const chunks = [];
    res.on('data', (c) => chunks.push(c));
    res.on('end', () => {
      const json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      parentPort.postMessage({ ms: performance.now() - t0, records: json.records ? json.records.length : -1 });
    });
  });
  req.end(body);
});
`;
let client: Worker;

async function viaHttp(): Promise<number> {
  const answer = new Promise<{ ms: number; records: number }>((resolve) => client.once('message', resolve));
  client.postMessage({
    url: `${server.url}/api/graph/query`,
    headers: { Authorization: `Bearer ${PAT}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ query: QUERY }),
  });
  const { ms, records } = await answer;
  expect(records).toBe(ROWS);
  return ms;
}

async function viaDriver(): Promise<number> {
  const t0 = performance.now();
  const session = db.graph.driver.session({ defaultAccessMode: neo4j.session.READ });
  try {
    const result = await session.executeRead((tx) => tx.run(QUERY));
    const elapsed = performance.now() - t0;
    expect(result.records).toHaveLength(ROWS);
    return elapsed;
  } finally {
    await session.close();
  }
}

test('POST /api/graph/query (1,000 nodes) vs neo4j-driver directly', async () => {
  report(`graph query — ${machine()}`);
  for (let i = 0; i < 10; i++) {
    await viaHttp();
    await viaDriver();
  }
  const http: number[] = [];
  const driver: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    http.push(await viaHttp());
    driver.push(await viaDriver());
  }
  const h = percentile(http, 0.5);
  const d = percentile(driver, 0.5);
  report(`POST /api/graph/query: median ${ms(h)} (p90 ${ms(percentile(http, 0.9))})`);
  report(`neo4j-driver directly: median ${ms(d)} (p90 ${ms(percentile(driver, 0.9))})`);
  report(`ratio driver/HTTP: ${(d / h).toFixed(2)} (${verdict(d / h >= 0.8)} ≥ 0.8)`);
  report(`peak RSS: ${mib(process.resourceUsage().maxRSS * 1024)}`);
});
