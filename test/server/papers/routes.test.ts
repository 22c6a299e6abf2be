/**
 * The papers dispatcher (CONTRACT §9.1): route table, guards, OpenAPI, suffix peeling.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { peelAction } from '../../../src/server/routes/papers.js';
import { AUTH, startBackend, type Backend } from './helpers.js';

describe('peelAction', () => {
  it.each([
    ['2501.00010v1/markdown/status', 'markdown/status', '2501.00010v1', null],
    ['quant-ph/9508027v1/pdf/status', 'pdf/status', 'quant-ph/9508027v1', null],
    ['10.1103/physrev.1/markdown', 'markdown', '10.1103/physrev.1', null],
    ['2501.00010v1/pdf', 'pdf', '2501.00010v1', null],
    ['2501.00010v1/upload-pdf', 'upload-pdf', '2501.00010v1', null],
    ['quant-ph/9508027v1/upload-parser', 'upload-parser', 'quant-ph/9508027v1', null],
    ['2501.00010v1/parser-claim/abc', 'parser-claim/id', '2501.00010v1', 'abc'],
    ['quant-ph/9508027v1/parser-claim', 'parser-claim', 'quant-ph/9508027v1', null],
  ])('%s', (rest, action, id, claimId) => {
    expect(peelAction(rest)).toEqual({ action, id, claimId });
  });
  it.each(['2501.00010v1/upload-markdown', 'stats', '', 'upload-pdf', '/upload-pdf', '2501.00010v1'])(
    '%j → no action',
    (rest) => {
      expect(peelAction(rest)).toBeNull();
    },
  );
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
