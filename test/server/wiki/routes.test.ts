import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, startTestServer, type TestServer } from '../../support/server.js';
import { page } from './git-fixture.js';

const PAT = 'x'.repeat(20);
const auth = { Authorization: `Bearer ${PAT}` };

let base: string;
let server: TestServer;

const get = async (pathname: string) => {
  const res = await server.fetch(pathname, { headers: auth });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers };
};

/** A request with the path sent exactly as written (fetch would normalise `..` segments). */
function rawGet(pathname: string): Promise<{ status: number; body: string }> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, path: pathname, method: 'GET', headers: auth },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), 'pks-wiki-routes-'));
  const wiki = path.join(base, 'wiki');
  await cp(path.join(REPO_ROOT, 'sample-wiki'), wiki, { recursive: true });
  await mkdir(path.join(wiki, 'drafts'));
  // No status: served as draft.
  await writeFile(
    path.join(wiki, 'drafts', 'concept-draft.md'),
    '---\nid: concept-draft\ntitle: A draft\ntype: concept\ncategory: technique\ncreated_at: 2026-02-01\n---\n\nDraft about [[concept-qubit]].\n',
  );
  await writeFile(
    path.join(wiki, 'drafts', 'comp-x.md'),
    page('comp-x', 'Comparison X', 'Compares things.', { type: 'comparison', category: '""' }),
  );
  // Not served: no frontmatter.
  await writeFile(path.join(wiki, 'drafts', 'broken.md'), '# no frontmatter\n');
  // A secret next to the wiki that no id may reach.
  await writeFile(path.join(base, 'secret.md'), page('secret', 'Secret', 'TOP-SECRET'));
  server = await startTestServer({ SVC_WIKI_DIR: wiki, SVC_SYSTEM_PAT: PAT });
});
afterAll(async () => {
  await server?.close();
  await rm(base, { recursive: true, force: true });
});

describe('GET /api/pages', () => {
  it('lists non-source pages sorted by id with the list shape', async () => {
    const { status, body, headers } = await get('/api/pages');
    expect(status).toBe(200);
    expect(headers.get('content-type')).toBe('application/json; charset=utf-8');
    const pages = body['pages'] as Record<string, unknown>[];
    expect(body['total']).toBe(16);
    expect(pages).toHaveLength(16);
    const ids = pages.map((p) => p['id'] as string);
    expect(ids).toEqual([...ids].sort());
    expect(ids).not.toContain('paper-preprint-quant-ph-9508027v2');
    expect(pages.find((p) => p['id'] === 'prim-phase-estimation')).toEqual({
      id: 'prim-phase-estimation',
      title: 'Quantum phase estimation',
      type: 'concept',
      category: 'primitive',
      status: 'published',
      tags: ['eigenvalues', 'primitive'],
    });
    expect(pages.find((p) => p['id'] === 'comp-x')).toMatchObject({ category: '', tags: [] });
    expect(pages.find((p) => p['id'] === 'concept-draft')).toMatchObject({ status: 'draft' });
  });

  it('filters by page_type, status and tags', async () => {
    const ids = async (query: string) =>
      ((await get(`/api/pages?${query}`)).body['pages'] as { id: string }[]).map((p) => p.id);
    expect(await ids('page_type=source')).toEqual(['paper-preprint-quant-ph-9508027v2']);
    expect(await ids('page_type=comparison')).toEqual(['comp-x']);
    expect(await ids('page_type=Concept')).toEqual([]);
    expect(await ids('status=review')).toEqual(['concept-quantum-error-correction', 'concept-surface-code']);
    expect(await ids('status=draft')).toEqual(['concept-draft']);
    expect(await ids('tags=PRIMITIVE,%20fourier')).toEqual([
      'prim-amplitude-amplification',
      'prim-phase-estimation',
      'prim-quantum-fourier-transform',
    ]);
    expect(await ids('tags=factoring')).toEqual(['algo-shors-algorithm']);
    expect(await ids('tags=factoring&page_type=source')).toEqual(['paper-preprint-quant-ph-9508027v2']);
    expect(await ids('status=published&tags=search')).toEqual([
      'algo-grovers-algorithm',
      'prim-amplitude-amplification',
    ]);
    expect((await get('/api/pages?tags=nothing-has-this')).body).toEqual({ total: 0, pages: [] });
  });
});

describe('GET /api/pages/{page_id}', () => {
  it('returns the page detail shape', async () => {
    const { status, body } = await get('/api/pages/algo-shors-algorithm');
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual([
      'id',
      'title',
      'type',
      'category',
      'tags',
      'status',
      'created_at',
      'updated_at',
      'related',
      'doi',
      'content',
      'links',
      'backlinks',
      'frontmatter',
    ]);
    expect(body).toMatchObject({
      id: 'algo-shors-algorithm',
      title: "Shor's algorithm",
      type: 'concept',
      category: 'algorithm',
      tags: ['factoring', 'algorithm', 'number-theory', 'cryptography'],
      status: 'published',
      created_at: '2026-11-07T00:00:00Z',
      updated_at: '2026-11-20T00:00:00Z',
      related: ['prim-phase-estimation', 'prim-quantum-fourier-transform', 'paper-preprint-quant-ph-9508027v2'],
      doi: null,
    });
    expect(body['content']).toMatch(/^# Shor's algorithm\n\n## Definition/);
    expect(body['links']).toEqual([
      'concept-quantum-error-correction',
      'paper-preprint-quant-ph-9508027v2',
      'person-peter-shor',
      'prim-phase-estimation',
      'prim-quantum-fourier-transform',
    ]);
    expect(body['backlinks']).toContain('person-peter-shor');
    expect(body['backlinks']).not.toContain('algo-shors-algorithm');
    expect(body['frontmatter']).toMatchObject({
      id: 'algo-shors-algorithm',
      created_at: '2026-11-07',
      updated_at: '2026-11-20',
    });
  });

  it('serves source pages, with nested frontmatter kept', async () => {
    const { status, body } = await get('/api/pages/paper-preprint-quant-ph-9508027v2');
    expect(status).toBe(200);
    expect(body['doi']).toBe('10.1137/S0097539795293172');
    expect((body['frontmatter'] as Record<string, unknown>)['external_links']).toEqual([
      { label: 'arXiv abstract', url: 'https://arxiv.org/abs/quant-ph/9508027', kind: 'preprint' },
      expect.objectContaining({ kind: 'doi' }),
    ]);
  });

  it('answers 404 with the page id for unknown and invalid ids', async () => {
    expect(await get('/api/pages/nope')).toMatchObject({ status: 404, body: { detail: 'Page not found: nope' } });
    expect((await get('/api/pages/broken')).status).toBe(404);
  });

  it('never reads outside the wiki for hostile ids', async () => {
    const cases: [string, string][] = [
      ['..%2F..%2Fetc%2Fpasswd', '../../etc/passwd'],
      ['..%2Fsecret', '../secret'],
      ['%2E%2E', '..'],
      ['secret%00', 'secret\u0000'],
      ['%00', '\u0000'],
      ['concept-qubit%2F..%2F..%2Fsecret', 'concept-qubit/../../secret'],
      ['..%5Csecret', '..\\secret'],
    ];
    for (const [encoded, decoded] of cases) {
      const { status, body } = await rawGet(`/api/pages/${encoded}`);
      expect(status, encoded).toBe(404);
      expect(JSON.parse(body), encoded).toEqual({ detail: `Page not found: ${decoded}` });
      expect(body).not.toContain('TOP-SECRET');
      expect(body).not.toContain('root:');
    }
    for (const [raw, id] of [
      ['/api/pages/../../etc/passwd', '../../etc/passwd'],
      ['/api/pages/concept-qubit/../../../secret', 'concept-qubit/../../../secret'],
      ['/api/pages/a/b', 'a/b'],
      ['/api/pages/..', '..'],
    ]) {
      const { status, body } = await rawGet(raw!);
      expect(status, raw).toBe(404);
      expect(JSON.parse(body), raw).toEqual({ detail: `Page not found: ${id}` });
    }
    for (const raw of ['/api/pages/%ZZ', '/api/pages/%E0%A4%A']) {
      const { status, body } = await rawGet(raw);
      expect([400, 404], raw).toContain(status);
      expect(body).not.toContain('root:');
      expect(body).not.toContain('TOP-SECRET');
    }
  });
});

describe('GET /api/stats', () => {
  it('counts served pages', async () => {
    const { status, body } = await get('/api/stats');
    expect(status).toBe(200);
    expect(body).toEqual({
      total_pages: 17,
      entries: 16,
      sources: 1,
      by_type: { concept: 15, entity: 0, source: 1, comparison: 1 },
      by_status: { draft: 1, review: 2, published: 14 },
      by_category: { algorithm: 2, foundation: 4, gate: 2, paper: 1, person: 1, primitive: 3, technique: 3 },
      synced_to_graph: 0,
      needs_sync: 17,
      invalid_pages: 1,
    });
  });
});

describe('GET /api/search', () => {
  interface Results {
    query: string;
    total: number;
    results: { id: string; title: string; type: string; category: string; snippet: string; score: number }[];
  }
  const search = async (query: string) => {
    const res = await get(`/api/search?${query}`);
    return { status: res.status, body: res.body as unknown as Results };
  };

  it('ranks matches and returns the result shape', async () => {
    const { status, body } = await search('q=phase%20estimation');
    expect(status).toBe(200);
    expect(body.query).toBe('phase estimation');
    expect(body.total).toBeGreaterThan(1);
    const top = body.results[0]!;
    expect(Object.keys(top)).toEqual(['id', 'title', 'type', 'category', 'snippet', 'score']);
    expect(top).toMatchObject({
      id: 'prim-phase-estimation',
      title: 'Quantum phase estimation',
      category: 'primitive',
    });
    expect(top.snippet.length).toBeLessThanOrEqual(160);
    expect(Number(top.score.toFixed(4))).toBe(top.score);
    const scores = body.results.map((r) => r.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it('applies limit (clamped) and counts total before it', async () => {
    const all = await search('q=quantum&limit=100');
    const one = await search('q=quantum&limit=1');
    expect(one.body.results).toHaveLength(1);
    expect(one.body.total).toBe(all.body.total);
    expect((await search('q=quantum&limit=0')).body.results).toHaveLength(1);
    expect((await search('q=quantum&limit=100000')).body.results).toHaveLength(Math.min(100, all.body.total));
    expect((await search('q=quantum')).body.results).toHaveLength(Math.min(10, all.body.total));
  });

  it('excludes sources unless include_sources is true', async () => {
    const ids = async (query: string) => (await search(query)).body.results.map((r) => r.id);
    expect(await ids('q=factorization%20discrete%20logarithms')).not.toContain('paper-preprint-quant-ph-9508027v2');
    for (const v of ['true', '1', 'TRUE']) {
      expect(await ids(`q=factorization%20discrete%20logarithms&include_sources=${v}`)).toContain(
        'paper-preprint-quant-ph-9508027v2',
      );
    }
    expect(await ids('q=factorization%20discrete%20logarithms&include_sources=0')).not.toContain(
      'paper-preprint-quant-ph-9508027v2',
    );
  });

  it('answers the empty result for an empty query', async () => {
    expect((await search('q=')).body).toEqual({ query: '', total: 0, results: [] });
    expect((await search('')).body).toEqual({ query: '', total: 0, results: [] });
  });

  it('rejects malformed booleans and integers with 400', async () => {
    expect(await search('q=qubit&include_sources=yes')).toEqual({
      status: 400,
      body: { detail: 'include_sources must be a boolean' },
    });
    expect((await search('q=qubit&limit=ten')).status).toBe(400);
  });
});

describe('wiki read guards', () => {
  it('requires a credential on every read route', async () => {
    for (const p of [
      '/api/pages',
      '/api/pages/concept-qubit',
      '/api/stats',
      '/api/search?q=x',
      '/api/wiki/sync/status',
    ]) {
      const res = await server.fetch(p);
      expect(res.status, p).toBe(401);
      expect(res.headers.get('x-svc-server-version')).toBeTruthy();
    }
  });
});

describe('OpenAPI', () => {
  it('documents the wiki routes', async () => {
    const res = await server.fetch('/swagger/doc.json');
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { paths: Record<string, Record<string, unknown>> };
    for (const p of ['/api/pages', '/api/pages/{page_id}', '/api/stats', '/api/search', '/api/wiki/sync/status']) {
      expect(doc.paths[p], p).toHaveProperty('get');
    }
    expect(doc.paths['/api/wiki/sync/pull']).toHaveProperty('post');
  });
});
