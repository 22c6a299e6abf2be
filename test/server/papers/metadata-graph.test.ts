/**
 * Paper metadata and the graph (CONTRACT §18.1, §6.1) on a real Neo4j: a `Paper` node with a title is the answer
 * (no upstream call), metadata that arrives gives a node without a title its title and authors, and lookups find
 * papers by DOI and OpenAlex id in the graph (`corpus_available: true`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Lookup, PaperDetail } from '../../../src/shared/api/registry.js';
import { cypherRows, graphEnv, startNeo4j, type Neo4jServer } from '../../support/neo4j.js';
import { AUTH, startAccessStack, stopAccessStack, type AccessStack } from '../access/support/server.js';
import { multipart, pdfBytes } from './helpers.js';

let neo: Neo4jServer;
let stack: AccessStack;
beforeAll(async () => {
  neo = await startNeo4j();
  stack = await startAccessStack(graphEnv(neo));
  // A fresh JVM compiles the write-through's Cypher on first use, which on a loaded machine can outlast the
  // upload's graph deadline: one upload, awaited until its node exists, warms it.
  await upload('2412.00002v1');
  for (let i = 0; ; i++) {
    if ((await query("MATCH (p:Paper {preprint_id: '2412.00002'}) RETURN p")).length > 0) break;
    if (i === 240) throw new Error('the warm-up upload never reached the graph (120 s)');
    await new Promise((r) => setTimeout(r, 500));
  }
  // The same for the metadata read (a read the graph does not answer within its deadline falls back to the cache).
  await query("MATCH (p:Paper {preprint_id: '2412.00002'}) SET p.title = 'Warm-up'");
  for (let i = 0; ; i++) {
    const res = await stack.s.fetch('/api/papers/2412.00002v1', { headers: AUTH });
    if (((await res.json()) as PaperDetail).metadata?.source === 'graph') break;
    if (i === 240) throw new Error('the metadata read never answered from the graph (120 s)');
    await new Promise((r) => setTimeout(r, 500));
  }
}, 180_000);
afterAll(async () => {
  await stopAccessStack(stack ?? {});
  await neo?.stop();
});

const query = (cypher: string, params: Record<string, unknown> = {}) => cypherRows(neo, cypher, params);

async function upload(id: string): Promise<void> {
  const { body, contentType } = multipart([{ name: 'pdf', filename: 'p.pdf', content: pdfBytes(id) }]);
  const res = await stack.s.fetch(`/api/papers/${id}/upload-pdf`, {
    method: 'POST',
    headers: { ...AUTH, 'Content-Type': contentType },
    body,
  });
  expect(res.status).toBe(201);
}

const queries = (versionless: string) =>
  stack.d.arxiv
    .requestsTo('query')
    .filter((r) => new URL(r.url, 'http://x').searchParams.get('id_list') === versionless).length;

describe('metadata and the graph', () => {
  it('a Paper node with a title is the answer (source graph), with no upstream call', async () => {
    await query(
      `MERGE (p:Paper {preprint_id: '2401.00001'})
       SET p.title = 'Graph title', p.authors = ['G. Raph', 'N. Ode'], p.publication_date = '2024-01-05',
           p.doi = '10.2000/g1', p.openalex_id = 'W77', p.cited_by_count = 12`,
    );
    stack.d.arxiv.entries.set('2401.00001', {
      title: 'The arXiv title',
      authors: ['Someone Else'],
      abstract: 'x',
      published: '2024-01-01',
    });
    const res = await stack.s.fetch('/api/papers/2401.00001v1', { headers: AUTH });
    expect(res.status).toBe(200);
    expect(((await res.json()) as PaperDetail).metadata).toEqual({
      title: 'Graph title',
      authors: ['G. Raph', 'N. Ode'],
      abstract: '',
      published: '2024-01-05',
      doi: '10.2000/g1',
      openalex_id: 'W77',
      cited_by_count: 12,
      source: 'graph',
    });
    expect(queries('2401.00001')).toBe(0);
  });

  it('metadata fetched after an upload gives the Paper node its title and authors', async () => {
    stack.d.arxiv.entries.set('2401.00002', {
      title: 'Fetched title',
      authors: ['A. One', 'B. Two'],
      abstract: 'Fetched abstract.',
      published: '2024-01-02',
    });
    await upload('2401.00002v1');
    await expect
      .poll(async () => {
        // Each read gives the node its title again if an earlier write did not get through (a loaded machine).
        await (await stack.s.fetch('/api/papers/2401.00002v1', { headers: AUTH })).arrayBuffer();
        const rows = await query("MATCH (p:Paper {preprint_id: '2401.00002'}) RETURN p.title AS t, p.authors AS a");
        return rows[0] ?? null;
      })
      .toEqual({ t: 'Fetched title', a: ['A. One', 'B. Two'] });
    expect(queries('2401.00002')).toBe(1);
    // From now on the node answers; the cached abstract completes it.
    const res = await stack.s.fetch('/api/papers/2401.00002v1', { headers: AUTH });
    expect(((await res.json()) as PaperDetail).metadata).toEqual({
      title: 'Fetched title',
      authors: ['A. One', 'B. Two'],
      abstract: 'Fetched abstract.',
      published: '2024-01-02',
      doi: null,
      openalex_id: null,
      cited_by_count: null,
      source: 'graph',
    });
  });

  it('lookup finds papers in the graph by arXiv id, DOI and OpenAlex id', async () => {
    const res = await stack.s.fetch(
      `/api/papers/lookup?ids=${encodeURIComponent('arxiv:2401.00001,doi:10.2000/G1,openalex:W77,arxiv:2401.00002v1')}`,
      { headers: AUTH },
    );
    expect(res.status).toBe(200);
    const known = {
      resolved: true,
      hosted: false,
      has_md: false,
      title: 'Graph title',
      authors: ['G. Raph', 'N. Ode'],
    };
    expect(await res.json()).toEqual({
      results: [
        { ref: 'arxiv:2401.00001', ...known, year: 2024 },
        { ref: 'doi:10.2000/G1', ...known, year: 2024 },
        { ref: 'openalex:W77', ...known, year: 2024 },
        {
          ref: 'arxiv:2401.00002v1',
          resolved: true,
          hosted: true,
          has_md: false,
          preprint_id: '2401.00002',
          title: 'Fetched title',
          authors: ['A. One', 'B. Two'],
          year: 2024,
        },
      ],
      corpus_available: true,
    } satisfies Lookup);
    expect(stack.d.openalex.requests).toHaveLength(0);
  });
});
