/**
 * CONTRACT §11.1: resolving `{id_or_doi}` — the defaults, their texts and headers on every answer, the error
 * table row for row, and the lookup caches (LRU, positive/negative lifetimes, coalescing, detached lookups).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arxivWork } from '../../support/upstreams/openalex.js';
import { OffsetClock } from './support/clocks.js';
import { accessEnv, MAILTO, type Doubles } from './support/harness.js';
import { addPaper, jsonOf, pollJson } from './support/papers.js';
import { startAccessServer, startAccessStack, stopAccessStack, type AccessServer } from './support/server.js';

const CATEGORY = 'category=quant-ph (no category prefix; server default for bare old-style numbers)';
const VERSION2 = 'version=v2 (no version specified; latest published version used)';
const DOI_TEXT = (id: string) => `doi_resolved_via_openalex (DOI -> arXiv id ${id})`;

let d: Doubles;
let s: AccessServer;
const clock = new OffsetClock();

beforeAll(async () => {
  ({ d, s } = await startAccessStack({}, { clock }));
  addPaper(d.arxiv, 'quant-ph/9508027', 2);
  addPaper(d.arxiv, '2501.00010', 2);
  d.openalex.works.set('10.1137/s0097539795293172', arxivWork('10.1137/s0097539795293172', 'quant-ph/9508027v2'));
});
afterAll(() => stopAccessStack({ d, s }));

const absRequests = () => d.arxiv.requestsTo('abs').length;

describe('defaults applied, reported in headers and bodies', () => {
  it.each([
    ['9508027', 'quant-ph/9508027v2', [CATEGORY, VERSION2]],
    ['9508027v2', 'quant-ph/9508027v2', [CATEGORY]],
    ['2501.00010', '2501.00010v2', [VERSION2]],
    ['quant-ph/9508027', 'quant-ph/9508027v2', [VERSION2]],
    ['10.1137/S0097539795293172', 'quant-ph/9508027v2', [DOI_TEXT('quant-ph/9508027'), VERSION2]],
    ['https://doi.org/10.1137/s0097539795293172', 'quant-ph/9508027v2', [DOI_TEXT('quant-ph/9508027'), VERSION2]],
  ])('%s → %s', async (input, resolved, defaults) => {
    const res = await s.get(`/api/papers/${input}/pdf/status`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-svc-requested-id')).toBe(input);
    expect(res.headers.get('x-svc-resolved-id')).toBe(resolved);
    expect(res.headers.get('x-svc-defaults-applied')).toBe(defaults.join('; '));
    // The same three under the original clients' names (§19).
    expect(res.headers.get('x-qatlas-requested-id')).toBe(input);
    expect(res.headers.get('x-qatlas-resolved-id')).toBe(resolved);
    expect(res.headers.get('x-qatlas-defaults-applied')).toBe(defaults.join('; '));
    const body = await jsonOf(res);
    expect(body).toMatchObject({ preprint_id: resolved, requested_id: input, resolved_id: resolved });
    expect(body['defaults_applied']).toEqual(defaults);
  });

  it('a canonical input gets none of the three, and never causes an /abs request', async () => {
    const before = absRequests();
    const res = await s.get('/api/papers/quant-ph/9508027v1/pdf/status');
    expect(res.status).toBe(200);
    for (const h of ['x-svc-requested-id', 'x-svc-resolved-id', 'x-svc-defaults-applied', 'x-qatlas-requested-id'])
      expect(res.headers.has(h)).toBe(false);
    const body = await jsonOf(res);
    expect(body).not.toHaveProperty('requested_id');
    expect(body).not.toHaveProperty('defaults_applied');
    expect(absRequests()).toBe(before);
  });

  it('the headers come with byte answers (200) and 202s too; an encoded %2F works like a raw /', async () => {
    const started = await s.get('/api/papers/quant-ph%2F9508027/pdf');
    expect(started.status).toBe(202);
    expect(started.headers.get('x-svc-defaults-applied')).toBe(VERSION2);
    expect(await jsonOf(started)).toMatchObject({
      requested_id: 'quant-ph/9508027',
      resolved_id: 'quant-ph/9508027v2',
    });
    await pollJson(s.get, '/api/papers/quant-ph/9508027v2/pdf/status', (b) => b.state === 'cached');
    const bytes = await s.get('/api/papers/9508027/pdf');
    expect(bytes.status).toBe(200);
    expect(bytes.headers.get('content-type')).toBe('application/pdf');
    expect(bytes.headers.get('x-svc-resolved-id')).toBe('quant-ph/9508027v2');
    expect(bytes.headers.get('x-svc-defaults-applied')).toBe(`${CATEGORY}; ${VERSION2}`);
  });

  it('OpenAlex is asked with mailto, the User-Agent and Accept of §12.2', async () => {
    d.openalex.works.set('10.1000/ua-check', arxivWork('10.1000/ua-check', '2501.00010'));
    await s.get('/api/papers/10.1000/ua-check/pdf/status');
    const req = d.openalex.requests.at(-1)!;
    expect(req.url).toBe(`/works/doi:${encodeURIComponent('10.1000/ua-check')}?mailto=${encodeURIComponent(MAILTO)}`);
    expect(req.headers['user-agent']).toMatch(/^pksd\/\d+\.\d+\.\d+ \(mailto:team@example\.org\)$/);
    expect(req.headers['accept']).toBe('application/json');
    const abs = d.arxiv.requestsTo('abs').at(-1)!;
    expect(abs.headers['user-agent']).toBe(req.headers['user-agent']);
    expect(abs.headers['accept']).toBe('text/html');
  });
});

describe('resolution errors (CONTRACT §11.1 table)', () => {
  it('invalid id → 400 with detail and requested_id', async () => {
    const res = await s.get('/api/papers/not-an-id/markdown');
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ detail: 'invalid preprint id or DOI: "not-an-id"', requested_id: 'not-an-id' });
  });

  it('invalid DOI → 400 with detail, requested_id and doi', async () => {
    const res = await s.get('/api/papers/10.12/x/markdown/status');
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      detail: 'invalid DOI: expected 10.<4-9 digits>/<suffix>',
      requested_id: '10.12/x',
      doi: '10.12/x',
    });
  });

  it('DOI unknown to OpenAlex → 404; a work without an arXiv location → 404', async () => {
    const unknown = await s.get('/api/papers/10.5555/unknown/markdown');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({
      detail: 'DOI 10.5555/unknown is not known to OpenAlex or has no arXiv identifier',
      requested_id: '10.5555/unknown',
      doi: '10.5555/unknown',
    });
    d.openalex.works.set('10.5555/journal-only', {
      id: 'https://openalex.org/W9',
      doi: 'https://doi.org/10.5555/journal-only',
      title: 'Journal only',
      locations: [{ landing_page_url: 'https://journals.example.org/paper/9' }],
    });
    const noArxiv = await s.get('/api/papers/10.5555/journal-only/pdf');
    expect(noArxiv.status).toBe(404);
    expect((await noArxiv.json()).detail).toBe(
      'DOI 10.5555/journal-only is not known to OpenAlex or has no arXiv identifier',
    );
  });

  it('OpenAlex error (non-200 other than 404, bad JSON) → 502, not cached', async () => {
    d.openalex.works.set('10.5555/flaky', arxivWork('10.5555/flaky', '2501.00010'));
    d.openalex.answerNext({ status: 500, body: 'boom' });
    const failed = await s.get('/api/papers/10.5555/flaky/pdf/status');
    expect(failed.status).toBe(502);
    expect(await failed.json()).toEqual({
      detail: 'OpenAlex upstream error: HTTP 500',
      requested_id: '10.5555/flaky',
      doi: '10.5555/flaky',
    });
    d.openalex.answerNext({ status: 200, headers: { 'content-type': 'application/json' }, body: '{"id": ' });
    const bad = await s.get('/api/papers/10.5555/flaky/pdf/status');
    expect([bad.status, (await bad.json()).detail]).toEqual([502, 'OpenAlex upstream error: invalid JSON in the work']);
    d.openalex.answerNext({ status: 429, body: 'slow down' });
    const limited = await s.get('/api/papers/10.5555/flaky/pdf/status');
    expect((await limited.json()).detail).toBe(
      'OpenAlex upstream error: HTTP 429 (rate limited; check SVC_SCHOLARLY_MAILTO and the request rate)',
    );
    expect((await s.get('/api/papers/10.5555/flaky/pdf/status')).status).toBe(200);
  });

  it('arXiv abstract page 404 → 404, with the defaults applied so far in the headers', async () => {
    const res = await s.get('/api/papers/9999999/pdf/status');
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ detail: 'arXiv has no paper quant-ph/9999999', requested_id: '9999999' });
    expect(res.headers.get('x-svc-defaults-applied')).toBe(CATEGORY);
    expect(res.headers.get('x-svc-resolved-id')).toBe('quant-ph/9999999');
  });

  it('abstract page still rate-limited after retries → 503 with Retry-After: 60', async () => {
    addPaper(d.arxiv, '2501.00301', 3);
    const limited = { status: 429, headers: { 'retry-after': '0' }, body: 'Rate exceeded.' };
    d.arxiv.answerNext('abs', limited, limited, limited, limited);
    const res = await s.get('/api/papers/2501.00301/markdown/status');
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('60');
    expect(await res.json()).toEqual({
      detail: 'arXiv version lookup rate-limited; retry later',
      requested_id: '2501.00301',
    });
    // Transient errors are not cached: the next request looks the version up again.
    expect((await s.get('/api/papers/2501.00301/markdown/status')).headers.get('x-svc-resolved-id')).toBe(
      '2501.00301v3',
    );
  });

  it('other abstract-page failure after retries → 502; a page without og:url → 502', async () => {
    addPaper(d.arxiv, '2501.00302', 1);
    const down = { status: 503, headers: { 'retry-after': '0' } };
    d.arxiv.answerNext('abs', down, down, down, down);
    const res = await s.get('/api/papers/2501.00302/pdf/status');
    expect(res.status).toBe(502);
    expect((await res.json()).detail).toBe('arXiv version lookup failed: HTTP 503 after 4 attempts');
    d.arxiv.answerNext('abs', {
      status: 200,
      headers: { 'content-type': 'text/html' },
      body: '<html><head></head></html>',
    });
    const noTag = await s.get('/api/papers/2501.00302/pdf/status');
    expect(noTag.status).toBe(502);
    expect((await noTag.json()).detail).toBe(
      'arXiv version lookup failed: the abstract page names no version (no og:url meta tag)',
    );
  });
});

describe('lookup caches', () => {
  it('version lookups: positive 10 min, negative 1 min', async () => {
    addPaper(d.arxiv, '2501.00401', 1);
    const before = absRequests();
    await s.get('/api/papers/2501.00401/pdf/status');
    await s.get('/api/papers/2501.00401/pdf/status');
    expect(absRequests()).toBe(before + 1);
    addPaper(d.arxiv, '2501.00401', 2); // a new version appears; the cached answer holds for 10 min
    expect((await s.get('/api/papers/2501.00401/pdf/status')).headers.get('x-svc-resolved-id')).toBe('2501.00401v1');
    clock.advance(10 * 60_000 + 1_000);
    expect((await s.get('/api/papers/2501.00401/pdf/status')).headers.get('x-svc-resolved-id')).toBe('2501.00401v2');

    const missingBefore = absRequests();
    expect((await s.get('/api/papers/2501.00402/pdf/status')).status).toBe(404);
    addPaper(d.arxiv, '2501.00402', 1);
    expect((await s.get('/api/papers/2501.00402/pdf/status')).status).toBe(404);
    expect(absRequests()).toBe(missingBefore + 1);
    clock.advance(61_000);
    expect((await s.get('/api/papers/2501.00402/pdf/status')).status).toBe(200);
  });

  it('DOI lookups: negative 1 min; concurrent lookups of one DOI share one request', async () => {
    const asked = () => d.openalex.requests.filter((r) => r.url.includes('10.7777')).length;
    expect((await s.get('/api/papers/10.7777/later/pdf/status')).status).toBe(404);
    d.openalex.works.set('10.7777/later', arxivWork('10.7777/later', '2501.00010'));
    expect((await s.get('/api/papers/10.7777/later/pdf/status')).status).toBe(404);
    expect(asked()).toBe(1);
    clock.advance(61_000);
    const later = await s.get('/api/papers/10.7777/later/pdf/status');
    expect(await later.json()).toMatchObject({ preprint_id: '2501.00010v2', resolved_id: '2501.00010v2' });
    expect(asked()).toBe(2);

    d.openalex.works.set('10.7777/burst', arxivWork('10.7777/burst', '2501.00010'));
    d.openalex.delayMs = 200;
    try {
      // The first caller gives up at once: the shared lookup goes on for the others.
      const quitter = new AbortController();
      const first = s
        .fetch('/api/papers/10.7777/burst/pdf/status', {
          headers: { Authorization: `Bearer ${'access-test-system-pat-0123456789'}` },
          signal: quitter.signal,
        })
        .catch(() => null);
      quitter.abort();
      const answers = await Promise.all(Array.from({ length: 8 }, () => s.get('/api/papers/10.7777/burst/pdf/status')));
      await first;
      expect(answers.map((r) => r.status)).toEqual(Array(8).fill(200));
    } finally {
      d.openalex.delayMs = 0;
    }
    expect(d.openalex.requests.filter((r) => r.url.includes('10.7777%2Fburst')).length).toBe(1);
  });

  it('DOI input with SVC_SCHOLARLY_MAILTO unset → 503', async () => {
    const env = { ...accessEnv(d) };
    delete (env as Record<string, string>)['SVC_SCHOLARLY_MAILTO'];
    const noMail = await startAccessServer(env);
    try {
      const res = await noMail.get('/api/papers/10.1137/s0097539795293172/markdown');
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({
        detail: 'DOI resolution unavailable: SVC_SCHOLARLY_MAILTO is not configured on the server',
        requested_id: '10.1137/s0097539795293172',
        doi: '10.1137/s0097539795293172',
      });
    } finally {
      await noMail.close();
    }
  });
});
