/**
 * `GET /api/papers/status/batch?ids=…` (CONTRACT §18.2): the 200-id bound after trimming and de-duplication,
 * results in request order with every field, the state and error rules, and a pure probe: no upstream request and
 * no job, with paper access off and on (where a job in progress shows its state and phase).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseVersionedId } from '../../../src/shared/ids.js';
import { addPaper, pollJson } from '../access/support/papers.js';
import { startAccessStack, stopAccessStack, type AccessServer } from '../access/support/server.js';
import type { Doubles } from '../access/support/harness.js';
import { AUTH, startBackend, type Backend } from './helpers.js';

type Result = Record<string, unknown>;

/** Every field but `requested_id` at its "nothing known" value. */
const empty = { resolved_id: '', md_ready: false, pdf_ready: false, image_count: 0, state: '', phase: '', error: '' };

const result = (requested_id: string, fields: Partial<Result> = {}): Result => ({ requested_id, ...empty, ...fields });

describe('status/batch with paper access off', () => {
  let b: Backend;
  beforeAll(async () => {
    b = await startBackend('local', null);
    const index = b.server.server.papers.index;
    const put = (id: string, mutation: Parameters<typeof index.update>[1]) =>
      index.update(parseVersionedId(id)!, mutation);
    put('2501.00001v1', { has_pdf: true, has_md: true, image_count: 4, doi: '10.1234/abc.def' });
    put('2501.00001v2', { has_pdf: true, has_md: false });
    put('2501.00002v1', { has_pdf: true, has_md: false, doi: 'https://doi.org/10.1234/ONLY.PDF' });
    put('quant-ph/9508027v3', { has_pdf: true, has_md: true, image_count: 1 });
  });
  afterAll(async () => {
    await b?.close();
  });

  const batch = async (query: string) => {
    const res = await b.server.fetch(`/api/papers/status/batch${query}`, { headers: AUTH });
    return { status: res.status, body: (await res.json()) as { results?: Result[]; detail?: string } };
  };

  it('every form, in request order, every field present', async () => {
    const ids = [
      '2501.00001v1',
      ' 2501.00001 ',
      '2501.00002v1',
      'arXiv:2501.00001v2',
      '9508027',
      'quant-ph/9508027v1',
      '2501.09999v1',
      '2501.09999',
      '10.1234/ABC.DEF',
      'https://doi.org/10.1234/only.pdf',
      '10.9999/unknown',
      'not-an-id',
      '10.12/too-short-prefix',
    ];
    const { status, body } = await batch(`?ids=${encodeURIComponent(ids.join(','))}`);
    expect(status).toBe(200);
    expect(body.results).toEqual([
      result('2501.00001v1', {
        resolved_id: '2501.00001v1',
        md_ready: true,
        pdf_ready: true,
        image_count: 4,
        state: 'cached',
        phase: 'ready',
      }),
      // Versionless: the newest stored version (v2: a PDF without markdown, nothing converts it here).
      result('2501.00001', { resolved_id: '2501.00001v2', pdf_ready: true, state: 'unavailable' }),
      result('2501.00002v1', { resolved_id: '2501.00002v1', pdf_ready: true, state: 'unavailable' }),
      result('arXiv:2501.00001v2', { resolved_id: '2501.00001v2', pdf_ready: true, state: 'unavailable' }),
      result('9508027', {
        resolved_id: 'quant-ph/9508027v3',
        md_ready: true,
        pdf_ready: true,
        image_count: 1,
        state: 'cached',
        phase: 'ready',
      }),
      // A versioned id with nothing stored resolves to itself: none, no error.
      result('quant-ph/9508027v1', { resolved_id: 'quant-ph/9508027v1', state: 'none' }),
      result('2501.09999v1', { resolved_id: '2501.09999v1', state: 'none' }),
      result('2501.09999', { error: 'not found' }),
      // DOIs through the index's doi column (case-insensitive).
      result('10.1234/ABC.DEF', { resolved_id: '2501.00001v2', pdf_ready: true, state: 'unavailable' }),
      result('https://doi.org/10.1234/only.pdf', {
        resolved_id: '2501.00002v1',
        pdf_ready: true,
        state: 'unavailable',
      }),
      result('10.9999/unknown', { error: 'not found' }),
      result('not-an-id', { error: 'invalid paper id' }),
      result('10.12/too-short-prefix', { error: 'invalid paper id' }),
    ]);
  });

  it('trimming and de-duplication keep the first occurrence; repeated ids parameters add up', async () => {
    const { body } = await batch('?ids=2501.09999v1,%202501.00001v1,,2501.09999v1%20,2501.00001v1&ids=2501.09998v1');
    expect(body.results!.map((r) => r['requested_id'])).toEqual(['2501.09999v1', '2501.00001v1', '2501.09998v1']);
  });

  it('200 ids are answered; 201 are 400 with max; duplicates do not count', async () => {
    const ids = (n: number) => Array.from({ length: n }, (_, i) => `2503.${String(i + 1).padStart(5, '0')}v1`);
    const ok = await batch(`?ids=${ids(200).join(',')}`);
    expect(ok.status).toBe(200);
    expect(ok.body.results!.map((r) => r['requested_id'])).toEqual(ids(200));
    expect(ok.body.results!.every((r) => r['state'] === 'none')).toBe(true);
    expect(await batch(`?ids=${ids(201).join(',')}`)).toEqual({
      status: 400,
      body: { detail: 'too many ids: 201 (max 200)', max: 200 },
    });
    const withDuplicates = [...ids(200), ...ids(50), ' 2503.00001v1 '];
    expect((await batch(`?ids=${encodeURIComponent(withDuplicates.join(','))}`)).status).toBe(200);
  });

  it.each(['', '?ids=', '?ids=%20,%20,,', '?other=1'])('no ids (%j) → 400 ids required', async (query) => {
    expect(await batch(query)).toEqual({ status: 400, body: { detail: 'ids required' } });
  });

  it('an unavailable index is 503, not a list of papers that are not there', async () => {
    const index = b.server.server.papers.index;
    index.available = false;
    try {
      const res = await b.server.fetch('/api/papers/status/batch?ids=2501.00001v1', { headers: AUTH });
      expect([res.status, res.headers.get('retry-after'), await res.json()]).toEqual([
        503,
        '60',
        { detail: 'metadata index unavailable (the server retries loading it every 60 s)' },
      ]);
      expect((await b.server.fetch('/api/papers', { headers: AUTH })).status).toBe(503);
      expect((await b.server.fetch('/api/papers/2501.00001v1', { headers: AUTH })).status).toBe(503);
    } finally {
      index.available = true;
    }
  });
});

describe('status/batch with paper access on', () => {
  let d: Doubles;
  let s: AccessServer;
  beforeAll(async () => {
    ({ d, s } = await startAccessStack());
  });
  afterAll(() => stopAccessStack({ d, s }));

  const batch = async (ids: string) =>
    ((await (await s.get(`/api/papers/status/batch?ids=${ids}`)).json()) as { results: Result[] }).results;

  it('a job in progress shows its state and phase; nothing is resolved upstream and no job is started', async () => {
    addPaper(d.arxiv, '2504.00001');
    addPaper(d.arxiv, '2504.00002');
    d.mineru.frozen = true;
    try {
      expect((await s.get('/api/papers/2504.00001v1/markdown')).status).toBe(202);
      await pollJson(s.get, '/api/papers/2504.00001v1/markdown/status', (b) => b.phase === 'converting_md');
      const absBefore = d.arxiv.requestsTo('abs').length;
      const pdfBefore = d.arxiv.requestsTo('pdf').length;
      const openalexBefore = d.openalex.requests.length;
      expect(await batch('2504.00001v1,2504.00001,2504.00002v1,2504.00002,10.5555/known.elsewhere')).toEqual([
        result('2504.00001v1', {
          resolved_id: '2504.00001v1',
          pdf_ready: true,
          state: 'running',
          phase: 'converting_md',
        }),
        result('2504.00001', {
          resolved_id: '2504.00001v1',
          pdf_ready: true,
          state: 'running',
          phase: 'converting_md',
        }),
        result('2504.00002v1', { resolved_id: '2504.00002v1', state: 'none' }),
        result('2504.00002', { error: 'not found' }),
        result('10.5555/known.elsewhere', { error: 'not found' }),
      ]);
      expect(d.arxiv.requestsTo('abs').length).toBe(absBefore);
      expect(d.arxiv.requestsTo('pdf').length).toBe(pdfBefore);
      expect(d.openalex.requests.length).toBe(openalexBefore);
      expect(s.access.engine.job(parseVersionedId('2504.00002v1')!)).toBeUndefined();
    } finally {
      d.mineru.frozen = false;
    }
    await pollJson(s.get, '/api/papers/2504.00001v1/markdown/status', (b) => b.state === 'cached');
    expect(await batch('2504.00001v1')).toEqual([
      result('2504.00001v1', {
        resolved_id: '2504.00001v1',
        md_ready: true,
        pdf_ready: true,
        image_count: expect.any(Number),
        state: 'cached',
        phase: 'ready',
      }),
    ]);
  });
});
