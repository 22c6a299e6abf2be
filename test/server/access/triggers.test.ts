/**
 * CONTRACT §11.4: the trigger table (markdown and PDF columns), the status decision order, repeated triggers
 * and cooldowns, registration with the feature switch, and the scope guard. The `cooldown` row is in
 * tokens.test.ts (it needs every parser token at its daily limit).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OffsetClock } from './support/clocks.js';
import { accessEnv, type Doubles } from './support/harness.js';
import { addPaper, jsonOf, pollJson } from './support/papers.js';
import { AUTH, startAccessServer, startAccessStack, stopAccessStack, type AccessServer } from './support/server.js';

let d: Doubles;
let s: AccessServer;
const clock = new OffsetClock();

beforeAll(async () => {
  ({ d, s } = await startAccessStack({}, { clock }));
});
afterAll(() => stopAccessStack({ d, s }));

const waitState = (id: string, kind: string, state: string) =>
  pollJson(s.get, `/api/papers/${id}/${kind}/status`, (b) => b.state === state);

describe('trigger table', () => {
  it('object present: markdown 200 text/markdown with Content-Length; PDF 200 application/pdf with Content-Disposition', async () => {
    const pdfs = addPaper(d.arxiv, 'quant-ph/9605043', 3);
    await s.get('/api/papers/quant-ph/9605043v3/markdown');
    await waitState('quant-ph/9605043v3', 'markdown', 'cached');
    const md = await s.get('/api/papers/quant-ph/9605043v3/markdown');
    expect(md.status).toBe(200);
    expect(md.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    const text = await md.text();
    expect(md.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
    expect(text.startsWith('# quant-ph_9605043v3')).toBe(true);
    const pdf = await s.get('/api/papers/quant-ph/9605043v3/pdf');
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(pdf.headers.get('content-disposition')).toBe('inline; filename="quant-ph_9605043v3.pdf"');
    const bytes = Buffer.from(await pdf.arrayBuffer());
    expect(pdf.headers.get('content-length')).toBe(String(bytes.length));
    expect(bytes).toEqual(pdfs.get(3));
  });

  it('job created or in progress: 202 with the snapshot; repeated triggers return 202 with the current snapshot', async () => {
    addPaper(d.arxiv, '2502.00001');
    d.arxiv.pdfGate.close();
    try {
      const md = await s.get('/api/papers/2502.00001v1/markdown');
      const pdf = await s.get('/api/papers/2502.00001v1/pdf');
      expect([md.status, pdf.status]).toEqual([202, 202]);
      expect((await jsonOf(md)).detail).toBe('conversion in progress');
      const pdfBody = await jsonOf(pdf);
      expect(pdfBody.detail).toBe('PDF not in store; fetching from arXiv');
      expect(pdf.headers.get('operation-location')).toBe('/api/papers/2502.00001v1/pdf/status');
      expect(pdf.headers.get('retry-after')).toBe('5');
      const again = await s.get('/api/papers/2502.00001v1/markdown');
      expect(again.status).toBe(202);
      expect((await jsonOf(again))['submitted_at']).toBe(pdfBody['submitted_at']);
    } finally {
      d.arxiv.pdfGate.open();
    }
    await waitState('2502.00001v1', 'markdown', 'cached');
  });

  it('failed because arXiv lacks the paper: 404 failed snapshot on both routes', async () => {
    await s.get('/api/papers/2502.99999v1/pdf');
    await waitState('2502.99999v1', 'pdf', 'failed');
    for (const kind of ['markdown', 'pdf']) {
      const res = await s.get(`/api/papers/2502.99999v1/${kind}`);
      expect(res.status).toBe(404);
      expect(await jsonOf(res)).toMatchObject({ state: 'failed', kind: 'fatal', phase: 'error_fetching' });
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(1);
      expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(61);
    }
  });

  it('failed otherwise: 502 failed snapshot; the same failure while the cooldown lasts; a new job after it', async () => {
    addPaper(d.arxiv, '2502.00002');
    d.mineru.scripts.set('2502.00002v1', { states: ['failed'], errMsg: 'file size exceeds 200MB' });
    await s.get('/api/papers/2502.00002v1/markdown');
    const failed = await waitState('2502.00002v1', 'markdown', 'failed');
    const res = await s.get('/api/papers/2502.00002v1/markdown');
    expect(res.status).toBe(502);
    expect(await jsonOf(res)).toEqual(failed);
    expect(res.headers.get('retry-after')).toBe('61');
    clock.advance(30_000);
    const during = await s.get('/api/papers/2502.00002v1/markdown');
    expect(during.status).toBe(502);
    expect(Number(during.headers.get('retry-after'))).toBeLessThanOrEqual(31);
    expect(d.mineru.creations.filter((c) => c.dataId === '2502.00002v1').length).toBe(1);
    // The PDF was stored before the conversion failed: the PDF route serves it.
    expect((await s.get('/api/papers/2502.00002v1/pdf')).status).toBe(200);

    d.mineru.scripts.delete('2502.00002v1');
    clock.advance(31_000);
    const retried = await s.get('/api/papers/2502.00002v1/markdown');
    expect(retried.status).toBe(202);
    await waitState('2502.00002v1', 'markdown', 'cached');
    expect(d.mineru.creations.filter((c) => c.dataId === '2502.00002v1').length).toBe(2);
  });
});

describe('status routes: no side effects, decided in order', () => {
  it('asset present → cached; a job → its snapshot; otherwise none (conversion on)', async () => {
    addPaper(d.arxiv, '2502.00003');
    const before = d.arxiv.requestsTo('pdf').length;
    const none = await s.get('/api/papers/2502.00003v1/markdown/status');
    expect(none.status).toBe(200);
    expect(await jsonOf(none)).toEqual({
      preprint_id: '2502.00003v1',
      state: 'none',
      phase: '',
      pdf_ready: false,
      md_ready: false,
      detail: 'not cached; GET /api/papers/2502.00003v1/markdown starts a conversion',
    });
    expect(await jsonOf(await s.get('/api/papers/2502.00003v1/pdf/status'))).toMatchObject({
      state: 'none',
      detail: 'not cached; GET /api/papers/2502.00003v1/pdf starts a download from arXiv',
    });
    expect(d.arxiv.requestsTo('pdf').length).toBe(before);
    await s.get('/api/papers/2502.00003v1/pdf');
    await waitState('2502.00003v1', 'pdf', 'cached');
    expect(await jsonOf(await s.get('/api/papers/2502.00003v1/markdown/status'))).toMatchObject({
      state: 'none',
      pdf_ready: true,
      md_ready: false,
    });
  });

  it('markdown with conversion disabled → unavailable; the trigger answers 503 and starts no download', async () => {
    const env = { ...accessEnv(d), PARSER_API_TOKENS: '' };
    const cacheOnly = await startAccessServer(env);
    try {
      addPaper(d.arxiv, '2502.00004');
      const before = d.arxiv.requestsTo('pdf').length;
      const status = await cacheOnly.get('/api/papers/2502.00004v1/markdown/status');
      expect(await jsonOf(status)).toEqual({
        preprint_id: '2502.00004v1',
        state: 'unavailable',
        phase: '',
        pdf_ready: false,
        md_ready: false,
        detail: 'server-side conversion disabled: PARSER_API_TOKENS unset; cache-only mode',
      });
      const trigger = await cacheOnly.get('/api/papers/2502.00004v1/markdown');
      expect(trigger.status).toBe(503);
      expect(await jsonOf(trigger)).toEqual({
        preprint_id: '2502.00004v1',
        state: 'unavailable',
        phase: '',
        pdf_ready: false,
        md_ready: false,
        detail: 'markdown not cached and server-side conversion is disabled: PARSER_API_TOKENS unset; cache-only mode',
      });
      expect(d.arxiv.requestsTo('pdf').length).toBe(before);
      // Fetching needs only the switch: the PDF route still works.
      expect((await cacheOnly.get('/api/papers/2502.00004v1/pdf')).status).toBe(202);
      await pollJson(cacheOnly.get, '/api/papers/2502.00004v1/pdf/status', (b) => b.state === 'cached');
    } finally {
      await cacheOnly.close();
    }
  });
});

describe('registration and guard', () => {
  it('the routes need papers:read: no credential → 401', async () => {
    const res = await s.fetch('/api/papers/2502.00003v1/markdown/status');
    expect(res.status).toBe(401);
  });

  it('server info reports paper_access: true', async () => {
    expect((await (await s.fetch('/api/server/info')).json()).paper_access).toBe(true);
  });

  it('with the switch off the four routes answer 404 before authentication, and server info says false', async () => {
    const off = await startAccessServer({ ...accessEnv(d), SVC_PAPER_ACCESS_ENABLED: 'false' });
    try {
      for (const action of ['markdown', 'pdf', 'markdown/status', 'pdf/status']) {
        const res = await off.fetch(`/api/papers/2501.00001v1/${action}`);
        expect(res.status).toBe(404);
        expect(await res.json()).toEqual({ detail: `no GET handler for /api/papers/2501.00001v1/${action}` });
      }
      expect((await (await off.fetch('/api/server/info', { headers: AUTH })).json()).paper_access).toBe(false);
    } finally {
      await off.close();
    }
  });
});
