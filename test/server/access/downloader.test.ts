/**
 * CONTRACT §19: the original clients' downloader routes. `POST /api/downloader/fetch` takes the §18.2 fetch body and
 * answers per item `kind`, `paper_id`, `created`, `error`; `GET /api/downloader/jobs` lists the jobs of
 * `GET /api/papers/jobs` in the original's shape with its counters; `GET /api/downloader/remote-jobs` reports no
 * fleet. With paper access off the fetch answers 503 and the lists are empty. All three are deprecated in the
 * OpenAPI document.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestIdentity, startTestServer, testUser, type TestServer } from '../../support/server.js';
import { arxivWork } from '../../support/upstreams/openalex.js';
import { until } from './support/clocks.js';
import type { Doubles } from './support/harness.js';
import { addPaper, pollJson } from './support/papers.js';
import { AUTH, PAT, startAccessStack, stopAccessStack, type AccessServer } from './support/server.js';

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
const OFF = { detail: 'downloader not configured (paper access is off)' };

type Job = Record<string, unknown> & { paper_id: string; state: string };
interface Jobs {
  jobs: Job[];
  counters: Record<string, number>;
}

const postJson = (server: { fetch: AccessServer['fetch'] }, path: string, body: unknown, token = PAT) =>
  server.fetch(path, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('paper access on', () => {
  let d: Doubles;
  let s: AccessServer;
  let readPat: string;

  beforeAll(async () => {
    ({ d, s } = await startAccessStack({ SVC_PREPRINT_FETCH_CONCURRENT: '2', SVC_ALLOWED_IDP_LOGINS: 'reader' }));
    const identity = await openTestIdentity(s.config);
    try {
      const user = await testUser(identity, 'reader');
      readPat = (
        await identity.pats.mint(user.id, {
          name: 'r',
          description: '',
          expiresInDays: 1,
          scopes: ['papers:read'] as never,
        })
      ).plaintext;
    } finally {
      await identity.close();
    }
  });
  afterAll(() => stopAccessStack({ d, s }));

  async function fetchItems(items: string[]): Promise<Record<string, unknown>> {
    const res = await postJson(s, '/api/downloader/fetch', { items });
    expect(res.status).toBe(200);
    return (await res.json()) as Record<string, unknown>;
  }

  async function downloaderJobs(): Promise<Jobs> {
    const res = await s.get('/api/downloader/jobs');
    expect(res.status).toBe(200);
    return (await res.json()) as Jobs;
  }

  it('fetch: kind, paper_id, created and error per item; jobs in the original shape while they run and ended', async () => {
    addPaper(d.arxiv, '2508.00001');
    addPaper(d.arxiv, '2508.00002');
    addPaper(d.arxiv, '2508.00003', 2);
    d.openalex.works.set('10.5555/dl.known', arxivWork('10.5555/dl.known', '2508.00002'));
    d.arxiv.pdfGate.close();
    try {
      expect(
        await fetchItems([
          '2508.00001v1',
          'doi:10.5555/dl.known',
          'nonsense',
          '10.5555/dl.unknown',
          'https://arxiv.org/pdf/2508.00003',
        ]),
      ).toEqual({
        items: [
          { input: '2508.00001v1', kind: 'arxiv', paper_id: '2508.00001v1', created: true },
          { input: 'doi:10.5555/dl.known', kind: 'doi', paper_id: '2508.00002v1', created: true },
          { input: 'nonsense', kind: 'invalid', created: false, error: 'invalid preprint id or DOI: "nonsense"' },
          {
            input: '10.5555/dl.unknown',
            kind: 'doi',
            created: false,
            error: 'DOI 10.5555/dl.unknown is not known to OpenAlex or has no arXiv identifier',
          },
          { input: 'https://arxiv.org/pdf/2508.00003', kind: 'url', paper_id: '2508.00003v2', created: true },
        ],
        enqueued: 3,
      });
      // Joining a job in progress is enqueued but creates nothing.
      expect(await fetchItems(['https://arxiv.org/abs/2508.00001v1'])).toEqual({
        items: [{ input: 'https://arxiv.org/abs/2508.00001v1', kind: 'url', paper_id: '2508.00001v1', created: false }],
        enqueued: 1,
      });
      // The §18.2 body, its default kind included: markdown jobs.
      const registry = (await (await s.get('/api/papers/jobs')).json()) as { jobs: { asset: string }[] };
      expect(registry.jobs.map((j) => j.asset)).toEqual(['markdown', 'markdown', 'markdown']);

      await until('two downloads in flight and one queued', async () => {
        const { counters } = await downloaderJobs();
        return counters['in_flight'] === 2 && counters['queued'] === 1;
      });
      const held = await downloaderJobs();
      expect(held.counters).toEqual({ queued: 1, in_flight: 2, succeeded: 0, failed: 0, skipped: 0 });
      expect(held.jobs.map((j) => j.paper_id).sort()).toEqual(['2508.00001v1', '2508.00002v1', '2508.00003v2']);
      for (const job of held.jobs) {
        expect(Object.keys(job).sort()).toEqual(
          ['paper_id', 'state', 'phase', 'active', 'submitted_at', 'updated_at', 'events'].sort(),
        );
        expect(job).toMatchObject({ phase: 'fetching_pdf', active: true, events: [] });
        expect(['queued', 'running']).toContain(job.state);
        expect(job['submitted_at']).toMatch(TIMESTAMP);
        expect(job['updated_at']).toMatch(TIMESTAMP);
        expect(String(job['updated_at']) >= String(job['submitted_at'])).toBe(true);
      }
    } finally {
      d.arxiv.pdfGate.open();
    }
    await until('every job done', async () => (await downloaderJobs()).counters['succeeded'] === 3);
    const ended = await downloaderJobs();
    expect(ended.counters).toEqual({ queued: 0, in_flight: 0, succeeded: 3, failed: 0, skipped: 0 });
    // Ended jobs stay listed: done, inactive, with the time they ended.
    expect(ended.jobs.map((j) => [j.paper_id, j.state, j['phase'], j['active']]).sort()).toEqual([
      ['2508.00001v1', 'done', 'ready', false],
      ['2508.00002v1', 'done', 'ready', false],
      ['2508.00003v2', 'done', 'ready', false],
    ]);
    for (const job of ended.jobs) {
      expect(job['finished_at']).toMatch(TIMESTAMP);
      expect(job['error']).toBeUndefined();
    }

    // A stored PDF: nothing to do (skipped), not enqueued, no error.
    expect(await fetchItems(['2508.00001v1'])).toEqual({
      items: [{ input: '2508.00001v1', kind: 'arxiv', paper_id: '2508.00001v1', created: false }],
      enqueued: 0,
    });
    expect((await downloaderJobs()).counters['skipped']).toBe(1);
  });

  it('a failed job: state failed, its error, finished_at; counted as failed', async () => {
    expect(await fetchItems(['2508.09999v1'])).toMatchObject({ items: [{ created: true }], enqueued: 1 });
    await pollJson(s.get, '/api/papers/2508.09999v1/pdf/status', (b) => b.state === 'failed');
    const { jobs, counters } = await downloaderJobs();
    expect(jobs.filter((j) => j.paper_id === '2508.09999v1')).toEqual([
      {
        paper_id: '2508.09999v1',
        state: 'failed',
        phase: 'error_fetching',
        active: false,
        error: 'arXiv has no paper 2508.09999v1 (HTTP 404)',
        submitted_at: expect.stringMatching(TIMESTAMP),
        updated_at: expect.stringMatching(TIMESTAMP),
        finished_at: expect.stringMatching(TIMESTAMP),
        events: [],
      },
    ]);
    expect(counters).toMatchObject({ queued: 0, in_flight: 0, failed: 1 });
    // While the failure cools down, fetching it again is its failure: not created, not enqueued.
    expect(await fetchItems(['2508.09999v1'])).toEqual({
      items: [
        {
          input: '2508.09999v1',
          kind: 'arxiv',
          paper_id: '2508.09999v1',
          created: false,
          error: 'arXiv has no paper 2508.09999v1 (HTTP 404)',
        },
      ],
      enqueued: 0,
    });
  });

  it('remote-jobs: no fleet', async () => {
    const res = await s.get('/api/downloader/remote-jobs');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ enabled: false, jobs: [] });
  });

  it('the fetch needs papers:write; the lists papers:read', async () => {
    const res = await postJson(s, '/api/downloader/fetch', { items: ['2508.00001v1'] }, readPat);
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({
      detail: 'insufficient scope: this token lacks papers:write (mint a new PAT at /pat with the required scope)',
      obj: 'papers',
      act: 'write',
    });
    for (const path of ['/api/downloader/jobs', '/api/downloader/remote-jobs', '/api/papers/jobs']) {
      expect((await s.fetch(path, { headers: { Authorization: `Bearer ${readPat}` } })).status, path).toBe(200);
      expect((await s.fetch(path)).status, path).toBe(401);
    }
  });

  it('bodies outside the contract are 400, as for /api/papers/fetch', async () => {
    const res = await postJson(s, '/api/downloader/fetch', { items: Array.from({ length: 51 }, () => 'x') });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ detail: 'too many items: 51 (max 50)' });
    const none = await postJson(s, '/api/downloader/fetch', { items: [] });
    expect(await none.json()).toEqual({ detail: 'items: at least one item required' });
  });

  it('OpenAPI: the downloader routes are deprecated aliases (§19); the fetch bodies are documented', async () => {
    const doc = (await (await s.fetch('/swagger/doc.json')).json()) as {
      paths: Record<string, Record<string, Record<string, unknown>>>;
    };
    for (const [method, path] of [
      ['post', '/api/downloader/fetch'],
      ['get', '/api/downloader/jobs'],
      ['get', '/api/downloader/remote-jobs'],
    ] as const) {
      const op = doc.paths[path]?.[method];
      expect(op, path).toBeDefined();
      expect(op!['deprecated'], path).toBe(true);
      expect(String(op!['summary']), path).toContain('CONTRACT §19');
      expect(op!['security']).toEqual([{ Bearer: [] }]);
    }
    for (const [method, path] of [
      ['post', '/api/papers/fetch'],
      ['get', '/api/papers/jobs'],
    ] as const) {
      expect(doc.paths[path]?.[method]?.['deprecated'], path).toBeUndefined();
    }
    for (const path of ['/api/papers/fetch', '/api/downloader/fetch']) {
      const params = doc.paths[path]!['post']!['parameters'] as { in: string; schema?: Record<string, unknown> }[];
      const body = params.find((p) => p.in === 'body');
      expect(body?.schema, path).toMatchObject({
        type: 'object',
        required: ['items'],
        properties: { items: { type: 'array', minItems: 1, maxItems: 50, items: { type: 'string' } } },
      });
    }
    const jobsParams = doc.paths['/api/papers/jobs']!['get']!['parameters'] as { in: string; name: string }[];
    expect(jobsParams.map((p) => `${p.in}:${p.name}`)).toEqual(['query:state']);
  });
});

describe('paper access off', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ SVC_SYSTEM_PAT: PAT });
  });
  afterAll(() => srv?.close());

  it('the downloader fetch answers 503 to a valid body; the lists are empty; /api/papers/fetch is unknown', async () => {
    const fetched = await postJson(srv, '/api/downloader/fetch', { items: ['2508.00001v1'] });
    expect(fetched.status).toBe(503);
    expect(await fetched.json()).toEqual(OFF);
    // Bad input is still the caller's 400, not the server's 503.
    const bad = await postJson(srv, '/api/downloader/fetch', { items: [] });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ detail: 'items: at least one item required' });

    const get = async (path: string) => {
      const res = await srv.fetch(path, { headers: AUTH });
      expect(res.status, path).toBe(200);
      return res.json();
    };
    expect(await get('/api/downloader/jobs')).toEqual({
      jobs: [],
      counters: { queued: 0, in_flight: 0, succeeded: 0, failed: 0, skipped: 0 },
    });
    expect(await get('/api/downloader/remote-jobs')).toEqual({ enabled: false, jobs: [] });
    expect(await get('/api/papers/jobs')).toEqual({ jobs: [], queued: 0, running: 0 });

    const registryFetch = await postJson(srv, '/api/papers/fetch', { items: ['2508.00001v1'] });
    expect(registryFetch.status).toBe(404);
  });
});
