/**
 * The papers dispatcher (CONTRACT §9.1): route table, guards, OpenAPI, suffix peeling.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paramsSchema } from '../../../src/server/http/query-schema.js';
import { dispatchOf, paramsOf, peelingOrder, type PaperAction } from '../../../src/server/routes/papers.js';
import { claimIdParam, definePaperAction, versionedIdParam } from '../../../src/server/routes/papers/action.js';
import { AUTH, startBackend, type Backend } from './helpers.js';

describe('dispatchOf: the action and path parameters a path peels to', () => {
  const action = (method: PaperAction['method'], path: string): PaperAction => ({
    method,
    path,
    schema: { summary: path, tags: [], response: {} },
    handle: async () => undefined,
  });
  const paths = [
    '/api/papers/{preprint_id}/upload-pdf',
    '/api/papers/{preprint_id}/markdown',
    '/api/papers/{preprint_id}/markdown/status',
    '/api/papers/{preprint_id}/pdf',
    '/api/papers/{preprint_id}/pdf/status',
    '/api/papers/{preprint_id}/parser-claim',
    '/api/papers/{preprint_id}/parser-claim/{claim_id}',
    '/api/papers/{preprint_id}/images/{name}',
    '/api/papers/{preprint_id}/images/zip',
    '/api/papers/{preprint_id}',
    '/api/v1/papers/{preprint_id}/mineru-lease',
  ];
  const actions = peelingOrder(paths.map((p) => action('GET', p)));
  const peel = (prefix: string, rest: string) => {
    const found = dispatchOf(actions, prefix, rest);
    return found ? { path: found.action.path, ...found.params } : null;
  };
  it.each([
    ['2501.00010v1/markdown/status', '/api/papers/{preprint_id}/markdown/status', '2501.00010v1', null],
    ['quant-ph/9508027v1/pdf/status', '/api/papers/{preprint_id}/pdf/status', 'quant-ph/9508027v1', null],
    ['10.1103/physrev.1/markdown', '/api/papers/{preprint_id}/markdown', '10.1103/physrev.1', null],
    ['2501.00010v1/pdf', '/api/papers/{preprint_id}/pdf', '2501.00010v1', null],
    ['2501.00010v1/upload-pdf', '/api/papers/{preprint_id}/upload-pdf', '2501.00010v1', null],
    ['2501.00010v1/parser-claim/abc', '/api/papers/{preprint_id}/parser-claim/{claim_id}', '2501.00010v1', 'abc'],
    ['quant-ph/9508027v1/parser-claim', '/api/papers/{preprint_id}/parser-claim', 'quant-ph/9508027v1', null],
    ['2501.00010v1/images/zip', '/api/papers/{preprint_id}/images/zip', '2501.00010v1', null],
    ['2501.00010', '/api/papers/{preprint_id}', '2501.00010', null],
    ['quant-ph/9508027', '/api/papers/{preprint_id}', 'quant-ph/9508027', null],
  ])('%s', (rest, path, id, claimId) => {
    expect(peel('/api/papers/', rest)).toEqual({
      path,
      preprint_id: id,
      ...(claimId === null ? {} : { claim_id: claimId }),
    });
  });
  it('an image name keeps its slashes and the id ends at the first /images/', () => {
    expect(peel('/api/papers/', '2501.00010v1/images/sub/a.png/markdown')).toEqual({
      path: '/api/papers/{preprint_id}/images/{name}',
      preprint_id: '2501.00010v1',
      name: 'sub/a.png/markdown',
    });
  });
  it('the v1 prefix dispatches only its own actions', () => {
    expect(peel('/api/v1/papers/', '2501.00010v1/mineru-lease')).toEqual({
      path: '/api/v1/papers/{preprint_id}/mineru-lease',
      preprint_id: '2501.00010v1',
    });
    expect(peel('/api/v1/papers/', '2501.00010v1/markdown')).toBeNull();
  });
  it.each(['', '/upload-pdf', 'upload-pdf'])('%j → no action but the bare id', (rest) => {
    const found = dispatchOf(peelingOrder(paths.slice(0, -2).map((p) => action('GET', p))), '/api/papers/', rest);
    expect(found).toBeNull();
  });
});

describe('path parameters: each action declares its own', () => {
  const release = (params: Parameters<typeof paramsSchema>[0]) =>
    definePaperAction({
      method: 'DELETE',
      path: '/api/papers/{preprint_id}/parser-claim/{claim_id}',
      params: paramsSchema(params),
      schema: { summary: 'release', tags: [], response: {} },
      handle: async () => undefined,
    });
  it('params naming exactly the path parameters are what the document shows', () => {
    const params = paramsOf(release({ preprint_id: versionedIdParam, claim_id: claimIdParam }));
    expect(Object.keys(params.properties).sort()).toEqual(['claim_id', 'preprint_id']);
    expect(params.properties['claim_id']).toMatchObject({ type: 'string', pattern: '^[^/]+$' });
  });
  it.each([
    [{ preprint_id: versionedIdParam }, '{preprint_id}', '{claim_id, preprint_id}'],
    [
      { preprint_id: versionedIdParam, claim_id: claimIdParam, name: claimIdParam },
      '{claim_id, name, preprint_id}',
      '{claim_id, preprint_id}',
    ],
  ])('params %# that do not match the path are a wiring fault, refused at registration', (params, declared, inPath) => {
    expect(() => paramsOf(release(params))).toThrow(
      `papers action /api/papers/{preprint_id}/parser-claim/{claim_id}: params declare ${declared}, the path has ${inPath}`,
    );
  });
});

describe('papers routes', () => {
  let b: Backend;
  beforeAll(async () => {
    b = await startBackend('local', null);
  });
  afterAll(async () => {
    await b?.close();
  });

  it('route table: guards per method', () => {
    const table = b.server.server.app.routeTable.filter((r) => r.url.startsWith('/api/papers'));
    const read = { kind: 'scope', obj: 'papers', act: 'read' };
    const write = { kind: 'scope', obj: 'papers', act: 'write' };
    expect(table).toEqual(
      expect.arrayContaining([
        { method: 'GET', url: '/api/papers/*', guard: read },
        { method: 'POST', url: '/api/papers/*', guard: write, rateLimitClass: 'write' },
        { method: 'DELETE', url: '/api/papers/*', guard: write, rateLimitClass: 'write' },
        { method: 'GET', url: '/api/papers/stats', guard: read },
        { method: 'GET', url: '/api/papers/needs-parser', guard: read },
        ...['upload-pdf', 'upload-parser', 'parser-claim'].map((action) => ({
          method: 'POST',
          url: `/api/papers/{preprint_id}/${action}`,
          guard: write,
          rateLimitClass: 'write',
          dispatched: true,
        })),
        {
          method: 'DELETE',
          url: '/api/papers/{preprint_id}/parser-claim/{claim_id}',
          guard: write,
          rateLimitClass: 'write',
          dispatched: true,
        },
      ]),
    );
  });

  it.each([
    '/api/papers/stats',
    '/api/papers/needs-parser',
    '/api/papers',
    '/api/papers/status/batch?ids=2501.00001v1',
    '/api/papers/lookup?ids=arxiv:2501.00001',
    '/api/papers/jobs',
    '/api/papers/2501.00001v1',
    '/api/papers/2505.00001v1/figures',
    '/api/papers/2507.00001v1/images/zip',
  ])('GET %s needs papers:read (401 without a credential)', async (path) => {
    expect((await b.server.fetch(path)).status).toBe(401);
  });

  it('a credential reads', async () => {
    expect((await b.server.fetch('/api/papers/stats', { headers: AUTH })).status).toBe(200);
  });

  it('a wrong method on a dispatcher path is 405', async () => {
    const res = await b.server.fetch('/api/papers/2501.00010v1/upload-pdf', { method: 'PUT' });
    expect(res.status).toBe(405);
  });

  it('needs-parser limit must be an integer', async () => {
    const res = await b.server.fetch('/api/papers/needs-parser?limit=ten', { headers: AUTH });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ detail: 'limit must be an integer' });
  });

  it('the OpenAPI document lists every dispatcher action as its own path', async () => {
    const doc = (await (await b.server.fetch('/swagger/doc.json')).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    expect(Object.keys(doc.paths['/api/papers/{preprint_id}/upload-pdf'] ?? {})).toEqual(['post']);
    expect(Object.keys(doc.paths['/api/papers/{preprint_id}/upload-parser'] ?? {})).toEqual(['post']);
    expect(Object.keys(doc.paths['/api/papers/{preprint_id}/parser-claim'] ?? {})).toEqual(['post']);
    expect(Object.keys(doc.paths['/api/papers/{preprint_id}/parser-claim/{claim_id}'] ?? {})).toEqual(['delete']);
    expect(doc.paths['/api/papers/stats']).toBeDefined();
    expect(doc.paths['/api/papers/needs-parser']).toBeDefined();
  });

  it("each action's path parameters are documented from its params, all required", async () => {
    const doc = (await (await b.server.fetch('/swagger/doc.json')).json()) as {
      paths: Record<string, Record<string, { parameters?: { name: string; in: string }[] }>>;
    };
    const pathParams = (path: string, method: string) =>
      doc.paths[path]?.[method]?.parameters?.filter((p) => p.in === 'path');
    expect(pathParams('/api/papers/{preprint_id}/parser-claim/{claim_id}', 'delete')).toEqual([
      expect.objectContaining({ name: 'preprint_id', type: 'string', pattern: expect.any(String), required: true }),
      { name: 'claim_id', in: 'path', type: 'string', pattern: '^[^/]+$', required: true },
    ]);
    expect(pathParams('/api/papers/{preprint_id}/figures', 'get')).toEqual([
      expect.objectContaining({ name: 'preprint_id', type: 'string', minLength: 1, required: true }),
    ]);
    expect(pathParams('/api/papers/stats', 'get') ?? []).toEqual([]);
  });
});
