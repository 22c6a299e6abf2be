/**
 * `GET /api/papers/{id}` (CONTRACT §18.2): the exact 404 and 200 bodies with paper access off (stored ids only, a
 * DOI through the index's `doi` column) and on (every §11.1 form, `X-Svc-*` headers, the jobs of the paper); the
 * route never starts a job.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rfc3339 } from '../../../src/shared/time.js';
import { parseVersionedId } from '../../../src/shared/ids.js';
import type { PaperDetail } from '../../../src/shared/api/registry.js';
import { AUTH as ACCESS_AUTH, startAccessStack, stopAccessStack, type AccessStack } from '../access/support/server.js';
import { AUTH, pdfBytes, sha, startBackend, uploadPdf, type Backend } from './helpers.js';

async function get(base: { fetch(p: string, i?: RequestInit): Promise<Response> }, path: string, auth = AUTH) {
  const res = await base.fetch(path, { headers: auth });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers };
}

describe('paper access off: stored ids only', () => {
  let b: Backend;
  beforeAll(async () => {
    b = await startBackend('local', null);
  });
  afterAll(() => b?.close());

  it.each([
    ['a versionless id', '2501.00099'],
    ['a versioned id', '2501.00099v2'],
    ['a bare old-style number', '9901001'],
    ['a DOI no stored row carries', '10.1234/none'],
  ])('%s with nothing stored: 404 not hosted', async (_name, id) => {
    const res = await get(b.server, `/api/papers/${id}`);
    expect([res.status, res.body]).toEqual([404, { detail: `not hosted: ${id}` }]);
  });

  it('an invalid DOI: 400 naming it; a path that is no id stays an unknown path', async () => {
    expect((await get(b.server, '/api/papers/10.12/x')).body).toEqual({
      detail: 'invalid DOI: expected 10.<4-9 digits>/<suffix>',
      doi: '10.12/x',
    });
    const unknown = await b.server.fetch('/api/papers/not-an-id');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ detail: 'no GET handler for /api/papers/not-an-id' });
    expect((await b.server.fetch('/api/papers/2501.00010')).status).toBe(401);
  });

  it('a stored paper: every version, the active claim, no metadata, no jobs (exact body)', async () => {
    const v1 = pdfBytes('detail v1');
    const v2 = pdfBytes('detail v2, longer');
    expect((await uploadPdf(b.server, '2501.00010v1', v1)).status).toBe(201);
    expect((await uploadPdf(b.server, '2501.00010v2', v2)).status).toBe(201);
    const claim = await b.server.fetch('/api/papers/2501.00010v2/parser-claim', {
      method: 'POST',
      headers: { ...AUTH, 'X-Pks-User': 'carol' },
    });
    expect(claim.status).toBe(201);
    const claimed = (await claim.json()) as { requester: string; expires_at: string };
    const index = b.server.server.papers.index;
    const updated = (id: string) => rfc3339(index.get(id)!.updated_at);
    const expected: PaperDetail = {
      preprint_id: '2501.00010',
      versions: [
        {
          version: 1,
          has_pdf: true,
          has_md: false,
          pdf_size: v1.length,
          pdf_sha256: sha(v1),
          md_size: null,
          image_count: 0,
          updated_at: updated('2501.00010v1'),
        },
        {
          version: 2,
          has_pdf: true,
          has_md: false,
          pdf_size: v2.length,
          pdf_sha256: sha(v2),
          md_size: null,
          image_count: 0,
          updated_at: updated('2501.00010v2'),
        },
      ],
      metadata: null,
      claim: { holder: claimed.requester, expires_at: claimed.expires_at },
      jobs: { markdown: null, pdf: null },
    };
    for (const id of ['2501.00010', '2501.00010v1', '2501.00010v7', 'arXiv:2501.00010']) {
      expect(await get(b.server, `/api/papers/${encodeURIComponent(id)}`)).toMatchObject({
        status: 200,
        body: expected,
      });
    }
  });

  it('a DOI resolves through the index row that carries it; an old-style id in any spelling', async () => {
    expect((await uploadPdf(b.server, '2501.00020v1', pdfBytes('doi'))).status).toBe(201);
    b.server.server.papers.index.update(parseVersionedId('2501.00020v1')!, { doi: '10.5555/abc.def' });
    for (const doi of ['10.5555/ABC.DEF', 'doi:10.5555/abc.def', 'https://doi.org/10.5555/abc.def']) {
      const res = await get(b.server, `/api/papers/${encodeURIComponent(doi)}`);
      expect(res.status).toBe(200);
      expect(res.body['preprint_id']).toBe('2501.00020');
    }
    expect((await uploadPdf(b.server, '9508027v1', pdfBytes('old'))).status).toBe(201);
    for (const id of ['9508027', 'quant-ph/9508027', 'quant-ph%2F9508027v1']) {
      const res = await get(b.server, `/api/papers/${id}`);
      expect(res.status).toBe(200);
      expect(res.body['preprint_id']).toBe('quant-ph/9508027');
      expect(res.body['versions']).toHaveLength(1);
    }
  });
});

describe('paper access on: any §11.1 form, jobs shown, none started', () => {
  let stack: AccessStack;
  beforeAll(async () => {
    stack = await startAccessStack();
  });
  afterAll(() => stopAccessStack(stack));

  it('the PDF job of a paper in flight, as its status route shows it; versions empty until stored', async () => {
    const { d, s } = stack;
    d.arxiv.papers.set('2502.00001', { latestVersion: 1, pdfs: new Map([[1, pdfBytes('in flight')]]) });
    d.arxiv.pdfGate.close();
    try {
      expect((await s.fetch('/api/papers/2502.00001v1/pdf', { headers: ACCESS_AUTH })).status).toBe(202);
      // Steady: the download waits at the double for its answer.
      await expect.poll(() => d.arxiv.pdfGate.held).toBe(1);
      const status = await get(s, '/api/papers/2502.00001v1/pdf/status', ACCESS_AUTH);
      const res = await get(s, '/api/papers/2502.00001v1', ACCESS_AUTH);
      expect([res.status, res.body]).toEqual([
        200,
        {
          preprint_id: '2502.00001',
          versions: [],
          metadata: null,
          claim: null,
          jobs: { markdown: null, pdf: status.body },
        },
      ]);
      expect(status.body).toMatchObject({ state: 'running', phase: 'fetching_pdf' });
    } finally {
      d.arxiv.pdfGate.open();
    }
  });

  it('a versionless id resolves upstream (X-Svc-* headers); an id arXiv lacks is the resolution 404', async () => {
    const { d, s } = stack;
    d.arxiv.papers.set('2502.00002', { latestVersion: 3, pdfs: new Map() });
    d.arxiv.entries.set('2502.00002', { title: 'T', authors: ['A'], abstract: 'B', published: '2025-02-01' });
    const res = await get(s, '/api/papers/2502.00002', ACCESS_AUTH);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-svc-resolved-id')).toBe('2502.00002v3');
    expect(res.headers.get('x-svc-defaults-applied')).toBe(
      'version=v3 (no version specified; latest published version used)',
    );
    expect(res.body['metadata']).toMatchObject({ title: 'T', source: 'arxiv' });

    expect(await get(s, '/api/papers/2502.09999', ACCESS_AUTH)).toMatchObject({
      status: 404,
      body: { detail: 'arXiv has no paper 2502.09999', requested_id: '2502.09999' },
    });
  });

  it('nothing stored, no job and no metadata: 404 not hosted, and no job was started', async () => {
    const { d, s } = stack;
    d.arxiv.papers.set('2502.00003', { latestVersion: 1, pdfs: new Map([[1, pdfBytes('never')]]) });
    const pdfsBefore = d.arxiv.requestsTo('pdf').length;
    const res = await get(s, '/api/papers/2502.00003v1', ACCESS_AUTH);
    expect([res.status, res.body]).toEqual([404, { detail: 'not hosted: 2502.00003v1' }]);
    expect((await get(s, '/api/papers/2502.00003v1/pdf/status', ACCESS_AUTH)).body['state']).toBe('none');
    expect(d.arxiv.requestsTo('pdf').length).toBe(pdfsBefore);
  });
});
