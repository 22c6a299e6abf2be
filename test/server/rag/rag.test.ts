/**
 * CONTRACT §11.7 and §12.6: chunk search against a running pksd, the Qdrant double (through the official client)
 * and the embed double — registration, healthz states, request rules, fusion/dense-only queries, filters,
 * reranking and its fallback, upstream errors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chunkPoint } from '../../support/upstreams/qdrant.js';
import { accessEnv } from '../access/support/harness.js';
import { AUTH, startAccessServer, type AccessServer } from '../access/support/server.js';
import { startRagDoubles, type RagDoubles } from './support.js';

let rag: RagDoubles;
let s: AccessServer;

beforeAll(async () => {
  rag = await startRagDoubles();
  s = await startAccessServer(rag.env);
  rag.qdrant.points = [
    chunkPoint(1, 'short', 0.9),
    chunkPoint(2, 'a much longer chunk of text', 0.8),
    chunkPoint(3, 'mid length', 0.7),
  ];
});
afterAll(async () => {
  await s?.close();
  await rag?.close();
});

const search = (body: unknown, headers: Record<string, string> = AUTH) =>
  s.fetch('/api/rag/search', {
    method: 'POST',
    headers: { ...headers, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('healthz (anonymous)', () => {
  it.each([
    [200, 200, 'ok'],
    [503, 200, 'degraded'],
    [200, 500, 'degraded'],
    [500, 503, 'down'],
  ])('vector DB %i, embed server %i → %s', async (vdb, emb, status) => {
    rag.qdrant.healthStatus = vdb;
    rag.embed.healthStatus = emb;
    try {
      const res = await s.fetch('/api/rag/healthz');
      expect([res.status, await res.json()]).toEqual([200, { status }]);
    } finally {
      rag.qdrant.healthStatus = 200;
      rag.embed.healthStatus = 200;
    }
  });
});

describe('search', () => {
  it('fusion of dense and sparse prefetches, reranked, truncated to top_k; the upstream credentials are sent', async () => {
    const res = await search({
      query: '  phase estimation ',
      top_k: 2,
      rerank_pool: 1,
      filters: { yymm: '0811', version: 3 },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      query: string;
      took_s: number;
      reranked: boolean;
      results: Record<string, unknown>[];
    };
    expect(body.query).toBe('phase estimation');
    expect(body.reranked).toBe(true);
    expect(typeof body.took_s).toBe('number');
    // rerank_pool 1 is raised to top_k 2: the two best fused points, reordered by the reranker (longer first).
    expect(body.results.map((r) => r['preprint_id'])).toEqual(['0811.3172v3', '0811.3171v3']);
    expect(body.results[0]).toEqual({
      preprint_id: '0811.3172v3',
      canonical: '0811.3172',
      yymm: '0811',
      version: 3,
      title: 'Paper 2',
      authors: ['A. Author'],
      categories: ['quant-ph'],
      section_path: ['2 Methods'],
      chunk_index: 2,
      snippet: 'a much longer chunk of text',
      score: 'a much longer chunk of text'.length / 1000,
      md_object_key: 'markdown/0811/0811.3172v3.md',
      char_start: 200,
      char_end: 299,
      image_refs: [],
    });
    expect(rag.qdrant.queries.at(-1)).toEqual({
      prefetch: [
        { query: [0.16, 0.5, 0.25], using: 'dense', limit: 2 },
        { query: { indices: [3, 17], values: [0.8, 0.2] }, using: 'sparse', limit: 2 },
      ],
      query: { fusion: 'rrf' },
      limit: 2,
      with_payload: true,
      filter: {
        must: [
          { key: 'yymm', match: { value: '0811' } },
          { key: 'version', match: { value: 3 } },
        ],
      },
    });
    const qreq = rag.qdrant.requests.at(-1)!;
    expect(qreq.url).toBe('/collections/pks_papers_v1/points/query');
    expect(qreq.headers['api-key']).toBe('qdrant-key');
    const ereq = rag.embed.requests.find((r) => r.url === '/embed?lane=query')!;
    expect(ereq.headers['authorization']).toBe('Bearer embed-token');
    expect(JSON.parse(ereq.body.toString())).toEqual({ texts: ['phase estimation'], return_sparse: true });
  });

  it('dense only when no sparse vector comes back (or use_sparse=false); without rerank the limit is top_k', async () => {
    const res = await search({ query: 'q', top_k: 3, rerank: false, use_sparse: false });
    const body = (await res.json()) as { reranked: boolean; results: { score: number }[] };
    expect(body.reranked).toBe(false);
    expect(body.results.map((r) => r.score)).toEqual([0.9, 0.8, 0.7]);
    expect(rag.qdrant.queries.at(-1)).toEqual({
      query: [0.01, 0.5, 0.25],
      using: 'dense',
      limit: 3,
      with_payload: true,
    });
  });

  it('a failed rerank keeps the fusion order with reranked=false', async () => {
    rag.embed.answerNext('rerank', { status: 500, body: 'boom' });
    const body = (await (await search({ query: 'q', top_k: 3 })).json()) as {
      reranked: boolean;
      results: { score: number }[];
    };
    expect(body.reranked).toBe(false);
    expect(body.results.map((r) => r.score)).toEqual([0.9, 0.8, 0.7]);
    expect(rag.qdrant.queries.at(-1)!['limit']).toBe(50);
  });

  it.each([
    ['blank query', { query: '   ' }, 'query: must be 1..2048 characters after trimming'],
    ['2049-character query', { query: 'x'.repeat(2049) }, 'query: must be 1..2048 characters after trimming'],
    ['top_k 0', { query: 'q', top_k: 0 }, 'top_k: must be >= 1'],
    ['top_k 51', { query: 'q', top_k: 51 }, 'top_k: must be <= 50'],
    ['rerank_pool 201', { query: 'q', rerank_pool: 201 }, 'rerank_pool: must be <= 200'],
    ['unknown field', { query: 'q', extra: 1 }, "unknown field 'extra'"],
  ])('400 for a %s', async (_what, body, detail) => {
    const res = await search(body);
    expect([res.status, ((await res.json()) as { detail: string }).detail]).toEqual([400, detail]);
  });

  it('upstream failures → 502 search upstream error', async () => {
    rag.embed.answerNext('embed', { status: 503, body: 'down' });
    const embedDown = await search({ query: 'q' });
    expect([embedDown.status, await embedDown.json()]).toEqual([
      502,
      { detail: 'search upstream error: embed server HTTP 503' },
    ]);
    rag.qdrant.answerNextQuery({ status: 500, body: '{"status":{"error":"boom"}}' });
    const vdbDown = await search({ query: 'q' });
    expect(vdbDown.status).toBe(502);
    expect(((await vdbDown.json()) as { detail: string }).detail).toMatch(/^search upstream error: /);
  });

  it('needs papers:read', async () => {
    expect((await search({ query: 'q' }, {})).status).toBe(401);
  });
});

describe('registration', () => {
  it('not registered without both URLs, or with paper access off', async () => {
    for (const env of [
      { ...accessEnv(rag.d), SVC_RAG_VECTORDB_URL: rag.qdrant.baseUrl },
      {
        ...accessEnv(rag.d),
        SVC_PAPER_ACCESS_ENABLED: 'false',
        SVC_RAG_VECTORDB_URL: rag.qdrant.baseUrl,
        SVC_RAG_EMBED_URL: rag.embed.baseUrl,
      },
    ]) {
      const off = await startAccessServer(env);
      try {
        expect((await off.fetch('/api/rag/healthz')).status).toBe(404);
        expect((await off.fetch('/api/rag/search', { method: 'POST', headers: AUTH })).status).toBe(404);
      } finally {
        await off.close();
      }
    }
  });
});
