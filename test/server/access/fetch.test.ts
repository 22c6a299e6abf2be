/**
 * CONTRACT §18.2 `POST /api/papers/fetch` against a running pksd and the upstream doubles: every item is resolved
 * and triggered as its GET would be; a failure (invalid item, unknown DOI, arXiv without the paper, a failed job)
 * belongs to its item beside the successes; `enqueued` counts the items that started or joined a job. Bodies that
 * are not the contract's shape are 400 (415 for another media type), never a 5xx.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestIdentity, testUser } from '../../support/server.js';
import { arxivWork } from '../../support/upstreams/openalex.js';
import { OffsetClock } from './support/clocks.js';
import type { Doubles } from './support/harness.js';
import { addPaper, jsonOf, pollJson } from './support/papers.js';
import { AUTH, startAccessStack, stopAccessStack, type AccessServer } from './support/server.js';

let d: Doubles;
let s: AccessServer;
let readPat: string;
let writePat: string;
const clock = new OffsetClock();

beforeAll(async () => {
  ({ d, s } = await startAccessStack({ SVC_ALLOWED_IDP_LOGINS: 'reader' }, { clock }));
  const identity = await openTestIdentity(s.config);
  try {
    const user = await testUser(identity, 'reader');
    const mint = async (scopes: string[]) =>
      (await identity.pats.mint(user.id, { name: 'f', description: '', expiresInDays: 1, scopes: scopes as never }))
        .plaintext;
    readPat = await mint(['papers:read']);
    writePat = await mint(['papers:write']);
  } finally {
    await identity.close();
  }
});
afterAll(() => stopAccessStack({ d, s }));

const post = (body: unknown, headers: Record<string, string> = {}) =>
  s.fetch('/api/papers/fetch', {
    method: 'POST',
    headers: { ...AUTH, 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

async function fetchOk(body: unknown): Promise<{ results: Record<string, unknown>[]; enqueued: number }> {
  const res = await post(body);
  expect(res.status).toBe(200);
  return (await res.json()) as { results: Record<string, unknown>[]; enqueued: number };
}

const waitCached = (id: string, kind = 'markdown') =>
  pollJson(s.get, `/api/papers/${id}/${kind}/status`, (b) => b.state === 'cached');

describe('per-item results', () => {
  it('failures beside successes, in request order; enqueued = items that started a job', async () => {
    addPaper(d.arxiv, '2506.00001');
    addPaper(d.arxiv, '2506.00002', 2);
    addPaper(d.arxiv, '2506.00003');
    addPaper(d.arxiv, '2506.00004');
    addPaper(d.arxiv, '2506.00005');
    d.openalex.works.set('10.5555/fetch.known', arxivWork('10.5555/fetch.known', '2506.00003'));
    d.arxiv.pdfGate.close();
    try {
      const body = await fetchOk({
        items: [
          '2506.00001v1',
          'not-an-id',
          '2506.00002',
          '10.5555/fetch.unknown',
          '2506.09999',
          'doi:10.5555/fetch.known',
          'https://arxiv.org/abs/2506.00004v1',
          'https://example.org/paper',
          'arxiv.org/pdf/2506.00005v1.pdf',
          '10.12/bad',
          '',
        ],
      });
      const started = (input: string, resolved_id: string) => ({ input, resolved_id, state: 'queued', error: null });
      const failed = (input: string, error: string) => ({ input, resolved_id: null, state: null, error });
      expect(body).toEqual({
        results: [
          started('2506.00001v1', '2506.00001v1'),
          failed('not-an-id', 'invalid preprint id or DOI: "not-an-id"'),
          started('2506.00002', '2506.00002v2'),
          failed(
            '10.5555/fetch.unknown',
            'DOI 10.5555/fetch.unknown is not known to OpenAlex or has no arXiv identifier',
          ),
          failed('2506.09999', 'arXiv has no paper 2506.09999'),
          started('doi:10.5555/fetch.known', '2506.00003v1'),
          started('https://arxiv.org/abs/2506.00004v1', '2506.00004v1'),
          failed(
            'https://example.org/paper',
            'unsupported URL: "https://example.org/paper" (expected https://arxiv.org/abs/<id>, ' +
              'https://arxiv.org/pdf/<id> or https://doi.org/<doi>)',
          ),
          started('arxiv.org/pdf/2506.00005v1.pdf', '2506.00005v1'),
          failed('10.12/bad', 'invalid DOI: expected 10.<4-9 digits>/<suffix>'),
          failed('', 'invalid preprint id or DOI: ""'),
        ],
        enqueued: 5,
      });
      // Each started item is a markdown job, as its GET …/markdown would have started.
      const status = await jsonOf(await s.get('/api/papers/2506.00002v2/markdown/status'));
      expect(status).toMatchObject({ state: expect.stringMatching(/^(queued|running)$/), phase: 'fetching_pdf' });
    } finally {
      d.arxiv.pdfGate.open();
    }
    for (const id of ['2506.00001v1', '2506.00002v2', '2506.00003v1', '2506.00004v1', '2506.00005v1']) {
      await waitCached(id);
    }
  });

  it('a job joined in progress counts as enqueued; a stored asset is cached and not enqueued', async () => {
    addPaper(d.arxiv, '2506.00011');
    d.openalex.works.set('10.5555/fetch.joined', arxivWork('10.5555/fetch.joined', '2506.00011'));
    d.arxiv.pdfGate.close();
    try {
      const first = await fetchOk({ items: ['2506.00011v1'] });
      expect(first).toEqual({
        results: [{ input: '2506.00011v1', resolved_id: '2506.00011v1', state: 'queued', error: null }],
        enqueued: 1,
      });
      // The doi.org URL and the versionless abs URL name the same paper: both join the one job.
      const joined = await fetchOk({
        items: ['https://doi.org/10.5555/FETCH.JOINED', 'https://arxiv.org/abs/2506.00011', '2506.00001v1'],
      });
      expect(joined.enqueued).toBe(2);
      expect(joined.results.slice(0, 2).map((r) => [r['resolved_id'], r['error']])).toEqual([
        ['2506.00011v1', null],
        ['2506.00011v1', null],
      ]);
      for (const r of joined.results.slice(0, 2)) expect(['queued', 'running']).toContain(r['state']);
      expect(joined.results[2]).toEqual({
        input: '2506.00001v1',
        resolved_id: '2506.00001v1',
        state: 'cached',
        error: null,
      });
    } finally {
      d.arxiv.pdfGate.open();
    }
    await waitCached('2506.00011v1');
    expect(d.arxiv.requestsTo('pdf').filter((r) => r.url === '/pdf/2506.00011v1').length).toBe(1);
  });

  it('a job that failed (arXiv 404) is that item’s failure while its cooldown lasts', async () => {
    const accepted = await fetchOk({ items: ['2506.09998v1'] });
    expect(accepted.results[0]).toMatchObject({ resolved_id: '2506.09998v1', state: 'queued', error: null });
    await pollJson(s.get, '/api/papers/2506.09998v1/markdown/status', (b) => b.state === 'failed');
    addPaper(d.arxiv, '2506.00021');
    const again = await fetchOk({ items: ['2506.09998v1', '2506.00021v1'] });
    expect(again).toEqual({
      results: [
        {
          input: '2506.09998v1',
          resolved_id: '2506.09998v1',
          state: 'failed',
          error: 'arXiv has no paper 2506.09998v1 (HTTP 404)',
        },
        { input: '2506.00021v1', resolved_id: '2506.00021v1', state: 'queued', error: null },
      ],
      enqueued: 1,
    });
    await waitCached('2506.00021v1');
    // After the cooldown the next fetch starts a new job.
    clock.advance(61_000);
    const retried = await fetchOk({ items: ['2506.09998v1'] });
    expect(retried).toMatchObject({ results: [{ state: 'queued', error: null }], enqueued: 1 });
    await pollJson(s.get, '/api/papers/2506.09998v1/markdown/status', (b) => b.state === 'failed');
  });

  it('kind pdf fetches the PDF only: no conversion; a stored PDF is cached', async () => {
    const pdfs = addPaper(d.arxiv, '2506.00031');
    const body = await fetchOk({ items: ['2506.00031v1'], kind: 'pdf' });
    expect(body).toEqual({
      results: [{ input: '2506.00031v1', resolved_id: '2506.00031v1', state: 'queued', error: null }],
      enqueued: 1,
    });
    await waitCached('2506.00031v1', 'pdf');
    const pdf = await s.get('/api/papers/2506.00031v1/pdf');
    expect(Buffer.from(await pdf.arrayBuffer())).toEqual(pdfs.get(1));
    expect(await jsonOf(await s.get('/api/papers/2506.00031v1/markdown/status'))).toMatchObject({ state: 'none' });
    expect(d.mineru.creations.filter((c) => c.dataId === '2506.00031v1')).toEqual([]);
    expect(await fetchOk({ items: ['2506.00031v1'], kind: 'pdf' })).toEqual({
      results: [{ input: '2506.00031v1', resolved_id: '2506.00031v1', state: 'cached', error: null }],
      enqueued: 0,
    });
  });
});

describe('bodies outside the contract', () => {
  const fifty = Array.from({ length: 50 }, () => 'not-an-id');
  const cases: [string, unknown, number, Record<string, unknown>][] = [
    ['0 items', { items: [] }, 400, { detail: 'items: at least one item required' }],
    ['51 items', { items: [...fifty, 'x'] }, 400, { detail: 'too many items: 51 (max 50)' }],
    ['an unknown field', { items: ['2506.00001v1'], knd: 'pdf' }, 400, { detail: "unknown field 'knd'" }],
    ['no items', { kind: 'pdf' }, 400, { detail: 'items: required (a list of 1..50 strings)' }],
    ['items not a list', { items: '2506.00001v1' }, 400, { detail: 'items: must be a list of 1..50 strings' }],
    ['an item not a string', { items: ['2506.00001v1', 7] }, 400, { detail: 'items[1]: must be a string' }],
    [
      'an unknown kind',
      { items: ['2506.00001v1'], kind: 'html' },
      400,
      { detail: 'kind: must be "markdown" or "pdf"' },
    ],
    [
      'a list body',
      ['2506.00001v1'],
      400,
      {
        detail: 'body must be a JSON object: {"items":[<id, DOI, arxiv.org or doi.org URL>…],"kind":"markdown"|"pdf"}',
      },
    ],
    [
      'an empty body',
      '',
      400,
      { detail: 'body required: {"items":[<id, DOI, arxiv.org or doi.org URL>…],"kind":"markdown"|"pdf"}' },
    ],
  ];
  it.each(cases)('%s → %i', async (_label, body, status, answer) => {
    const res = await post(body);
    expect(res.status).toBe(status);
    expect(await res.json()).toEqual(answer);
  });

  it('50 items are taken (each failing on its own)', async () => {
    const body = await fetchOk({ items: fifty });
    expect(body.results).toHaveLength(50);
    expect(body.enqueued).toBe(0);
  });

  it('not JSON → 400 parse body; another media type → 415; over 1 MiB → 413', async () => {
    const broken = await post('{"items": [');
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as { detail: string }).detail).toMatch(/^parse body: /);

    const form = await post('items=2506.00001v1', { 'Content-Type': 'application/x-www-form-urlencoded' });
    expect(form.status).toBe(415);
    expect(await form.json()).toEqual({
      detail:
        "unsupported media type 'application/x-www-form-urlencoded'; send application/json: " +
        '{"items":[<id, DOI, arxiv.org or doi.org URL>…],"kind":"markdown"|"pdf"}',
    });

    const big = await post(JSON.stringify({ items: ['x'.repeat(1024 * 1024)] }));
    expect(big.status).toBe(413);
    expect(await big.json()).toEqual({ detail: 'request body too large (max 1048576 bytes)' });
  });
});

describe('guard', () => {
  it('papers:write is required: a papers:read PAT gets 403 and nothing starts', async () => {
    addPaper(d.arxiv, '2506.00041');
    const res = await s.fetch('/api/papers/fetch', {
      method: 'POST',
      headers: { Authorization: `Bearer ${readPat}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ items: ['2506.00041v1'] }),
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({
      detail: 'insufficient scope: this token lacks papers:write (mint a new PAT at /pat with the required scope)',
      obj: 'papers',
      act: 'write',
    });
    expect(await jsonOf(await s.get('/api/papers/2506.00041v1/markdown/status'))).toMatchObject({ state: 'none' });

    const allowed = await s.fetch('/api/papers/fetch', {
      method: 'POST',
      headers: { Authorization: `Bearer ${writePat}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ items: ['2506.00041v1'] }),
    });
    expect(allowed.status).toBe(200);
    expect(((await allowed.json()) as { enqueued: number }).enqueued).toBe(1);
    await waitCached('2506.00041v1');
  });
});
