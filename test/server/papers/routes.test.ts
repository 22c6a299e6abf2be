/**
 * The papers dispatcher (CONTRACT §9.1): route table, guards, OpenAPI, suffix peeling.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatchOf, peelingOrder, type PaperAction } from '../../../src/server/routes/papers.js';
import { AUTH, startBackend, type Backend } from './helpers.js';

describe('dispatchOf: the action and id a path peels to', () => {
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
    return found ? { path: found.action.path, ...found.dispatch } : null;
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
    expect(peel('/api/papers/', rest)).toEqual({ path, id, claimId });
  });
  it('an image name keeps its slashes and the id ends at the first /images/', () => {
    expect(peel('/api/papers/', '2501.00010v1/images/sub/a.png/markdown')).toEqual({
      path: '/api/papers/{preprint_id}/images/{name}',
      id: '2501.00010v1',
      claimId: null,
      name: 'sub/a.png/markdown',
    });
  });
  it('the v1 prefix dispatches only its own actions', () => {
    expect(peel('/api/v1/papers/', '2501.00010v1/mineru-lease')).toEqual({
      path: '/api/v1/papers/{preprint_id}/mineru-lease',
      id: '2501.00010v1',
      claimId: null,
    });
    expect(peel('/api/v1/papers/', '2501.00010v1/markdown')).toBeNull();
  });
  it.each(['', '/upload-pdf', 'upload-pdf'])('%j → no action but the bare id', (rest) => {
    const found = dispatchOf(peelingOrder(paths.slice(0, -2).map((p) => action('GET', p))), '/api/papers/', rest);
    expect(found).toBeNull();
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

  it('stats and needs-parser require a credential', async () => {
    expect((await b.server.fetch('/api/papers/stats')).status).toBe(401);
    expect((await b.server.fetch('/api/papers/needs-parser')).status).toBe(401);
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
});
