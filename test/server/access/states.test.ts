/**
 * SPEC "States and transitions — Paper-access job (markdown)", row for row, plus the PDF resource and the client
 * decision table (state / pdf_ready / md_ready), against a running pksd and the upstream doubles.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OffsetClock, until } from './support/clocks.js';
import type { Doubles } from './support/harness.js';
import { addPaper, jsonOf, pollJson, type Body } from './support/papers.js';
import { startAccessStack, stopAccessStack, type AccessServer } from './support/server.js';

let d: Doubles;
let s: AccessServer;
const clock = new OffsetClock();
const status = (id: string, kind = 'markdown') => s.get(`/api/papers/${id}/${kind}/status`);
const statusOf = async (id: string, kind = 'markdown') => jsonOf(await status(id, kind));
const waitFor = (id: string, predicate: (b: Body) => boolean, kind = 'markdown') =>
  pollJson(s.get, `/api/papers/${id}/${kind}/status`, predicate);

beforeAll(async () => {
  ({ d, s } = await startAccessStack({ PARSER_MAX_CONCURRENT_JOBS: '1' }, { clock }));
});
afterAll(() => stopAccessStack({ d, s }));

describe('markdown job states (SPEC state table)', () => {
  it('(none) + GET, cache miss → queued: 202, Operation-Location, Retry-After: 5, snapshot', async () => {
    addPaper(d.arxiv, '2501.00101');
    d.arxiv.pdfGate.close();
    try {
      const res = await s.get('/api/papers/2501.00101v1/markdown');
      expect(res.status).toBe(202);
      expect(res.headers.get('operation-location')).toBe('/api/papers/2501.00101v1/markdown/status');
      expect(res.headers.get('retry-after')).toBe('5');
      const body = await jsonOf(res);
      expect(body).toMatchObject({
        preprint_id: '2501.00101v1',
        state: 'queued',
        phase: 'fetching_pdf',
        pdf_ready: false,
        md_ready: false,
        detail: 'conversion in progress',
        operation: { status_url: '/api/papers/2501.00101v1/markdown/status' },
      });
      expect(body['submitted_at']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(Date.parse(String((body['operation'] as Record<string, string>)['next_poll_after_iso']))).toBeGreaterThan(
        Date.now(),
      );
      // Decision table: queued / false / false → wait Retry-After and poll again.
      expect([body.pdf_ready, body.md_ready]).toEqual([false, false]);
    } finally {
      d.arxiv.pdfGate.open();
    }
    await waitFor('2501.00101v1', (b) => b.state === 'cached');
  });

  it('queued → running/fetching_pdf while the PDF downloads, with fetch progress', async () => {
    addPaper(d.arxiv, '2501.00102', 1, 3 * 1024 * 1024);
    d.arxiv.pdfChunkDelayMs = 15;
    try {
      expect((await s.get('/api/papers/2501.00102v1/markdown')).status).toBe(202);
      const running = await waitFor(
        '2501.00102v1',
        (b) => b.state === 'running' && Number(b.fetch?.['bytes_received']) >= 1024 * 1024,
      );
      expect(running).toMatchObject({ phase: 'fetching_pdf', pdf_ready: false, md_ready: false });
      expect(running.fetch).toMatchObject({
        attempts: 1,
        bytes_total: 3 * 1024 * 1024,
        sha256: null,
        completed_at: null,
      });
      expect(running['started_at']).toMatch(/Z$/);
      expect(running.queue).toEqual({
        running_count: 0,
        max_concurrent: 1,
        avg_duration_seconds: expect.any(Number),
        eta_basis: expect.stringMatching(/^(default_no_history|observed_avg_of_\d+_jobs)$/),
      });
    } finally {
      d.arxiv.pdfChunkDelayMs = 0;
    }
    const done = await waitFor('2501.00102v1', (b) => b.state === 'cached');
    expect(done).toEqual({
      preprint_id: '2501.00102v1',
      state: 'cached',
      phase: 'ready',
      pdf_ready: true,
      md_ready: true,
      markdown_url: '/api/papers/2501.00102v1/markdown',
    });
  });

  it('running: fetch done → converting_md with pdf_ready; a second job waits for the parser slot with position and ETA; conversion done → cached', async () => {
    addPaper(d.arxiv, '2501.00103');
    addPaper(d.arxiv, '2501.00104');
    d.mineru.frozen = true;
    try {
      await s.get('/api/papers/2501.00103v1/markdown');
      const converting = await waitFor(
        '2501.00103v1',
        (b) => b.state === 'running' && b.phase === 'converting_md' && b.convert?.['stage'] === 'pending',
      );
      expect(converting).toMatchObject({ pdf_ready: true, md_ready: false });
      expect(converting.convert).toMatchObject({ stage: 'pending', polled_count: expect.any(Number) });
      expect(String(converting.convert?.['parser_task_id'])).toMatch(/^[0-9a-f-]{36}$/);
      // Decision table: running / true / false → wait, or GET the PDF resource.
      const pdf = await s.get('/api/papers/2501.00103v1/pdf');
      expect([pdf.status, pdf.headers.get('content-type')]).toEqual([200, 'application/pdf']);
      // §11.4: the PDF status checks the stored asset first, so a converting job's PDF is cached.
      const pdfStatus = await s.get('/api/papers/2501.00103v1/pdf/status');
      expect(await pdfStatus.json()).toMatchObject({ state: 'cached', pdf_ready: true, md_ready: false });

      await s.get('/api/papers/2501.00104v1/markdown');
      const waiting = await waitFor('2501.00104v1', (b) => b.state === 'queued' && b.phase === 'converting_md');
      expect(waiting).toMatchObject({ pdf_ready: true, md_ready: false });
      const avg = waiting.queue?.['avg_duration_seconds'];
      expect(waiting.queue).toEqual({
        position: 1,
        ahead_of_me: 0,
        running_count: 1,
        max_concurrent: 1,
        eta_seconds: Math.ceil((0 + 1 + 1) / 1) * Number(avg),
        avg_duration_seconds: avg,
        eta_basis: expect.stringMatching(/^(default_no_history|observed_avg_of_\d+_jobs)$/),
      });
    } finally {
      d.mineru.frozen = false;
    }
    for (const id of ['2501.00103v1', '2501.00104v1']) {
      const cached = await waitFor(id, (b) => b.state === 'cached');
      expect([cached.pdf_ready, cached.md_ready]).toEqual([true, true]);
    }
  });

  it('fetch error, not retryable (HTML instead of a PDF) → failed/fatal/error_fetching', async () => {
    addPaper(d.arxiv, '2501.00105');
    d.arxiv.answerNext('pdf', {
      status: 200,
      headers: { 'content-type': 'text/html' },
      body: '<html>withdrawn</html>',
    });
    await s.get('/api/papers/2501.00105v1/markdown');
    const failed = await waitFor('2501.00105v1', (b) => b.state === 'failed');
    expect(failed).toMatchObject({ phase: 'error_fetching', kind: 'fatal', pdf_ready: false, md_ready: false });
    expect(failed.detail).toBe('arXiv did not return a PDF for 2501.00105v1 (text/html; missing %PDF- header)');
    expect(failed).not.toHaveProperty('retry_after_iso');
    // Decision table: failed/fatal / false / false → give up.
  });

  it('fetch error, retryable (503 after every retry) → failed/retryable/error_fetching with retry_after_iso', async () => {
    addPaper(d.arxiv, '2501.00106');
    const unavailable = { status: 503, headers: { 'retry-after': '0' }, body: 'down' };
    d.arxiv.answerNext('pdf', unavailable, unavailable, unavailable, unavailable);
    await s.get('/api/papers/2501.00106v1/markdown');
    const failed = await waitFor('2501.00106v1', (b) => b.state === 'failed');
    expect(failed).toMatchObject({ phase: 'error_fetching', kind: 'retryable', pdf_ready: false, md_ready: false });
    expect(failed.detail).toBe('PDF download from arXiv failed: HTTP 503 after 4 attempts');
    const retryAt = Date.parse(String(failed['retry_after_iso']));
    expect(retryAt - clock.now()).toBeGreaterThan(55_000);
    expect(retryAt - clock.now()).toBeLessThanOrEqual(60_000);
  });

  it('conversion error, not retryable → failed/fatal/error_converting (PDF stays served)', async () => {
    addPaper(d.arxiv, '2501.00107');
    d.mineru.scripts.set('2501.00107v1', { states: ['running', 'failed'], errMsg: 'number of pages exceeds 600' });
    await s.get('/api/papers/2501.00107v1/markdown');
    const failed = await waitFor('2501.00107v1', (b) => b.state === 'failed');
    expect(failed).toMatchObject({ phase: 'error_converting', kind: 'fatal', pdf_ready: true, md_ready: false });
    expect(failed.detail).toBe('conversion failed: number of pages exceeds 600');
    expect((await s.get('/api/papers/2501.00107v1/pdf')).status).toBe(200);
  });

  it('conversion error, retryable → resubmitted once 10 s later, then failed/retryable/error_converting', async () => {
    addPaper(d.arxiv, '2501.00108');
    d.mineru.scripts.set('2501.00108v1', { states: ['failed'], errMsg: 'model service crashed' });
    await s.get('/api/papers/2501.00108v1/markdown');
    const submissions = () => d.mineru.creations.filter((c) => c.dataId === '2501.00108v1').length;
    await until('the first submission to fail', () =>
      [...d.mineru.tasks.values()].some((t) => t.request['data_id'] === '2501.00108v1' && t.state === 'failed'),
    );
    expect((await statusOf('2501.00108v1')).state).toBe('running');
    expect(submissions()).toBe(1);
    clock.advance(10_000);
    const failed = await waitFor('2501.00108v1', (b) => b.state === 'failed');
    expect(submissions()).toBe(2);
    expect(failed).toMatchObject({ phase: 'error_converting', kind: 'retryable', pdf_ready: true, md_ready: false });
    expect(failed.detail).toBe('conversion failed: model service crashed');
    // Decision table: failed/retryable / true / false → retry after retry_after_iso.
    expect(failed['retry_after_iso']).toMatch(/Z$/);
  });

  it('any state: arXiv lacks the paper → failed/fatal/error_fetching, and the trigger answers 404', async () => {
    const first = await s.get('/api/papers/2501.99999v1/markdown');
    expect([202, 404]).toContain(first.status);
    const failed = await waitFor('2501.99999v1', (b) => b.state === 'failed');
    expect(failed).toMatchObject({
      preprint_id: '2501.99999v1',
      state: 'failed',
      phase: 'error_fetching',
      kind: 'fatal',
      pdf_ready: false,
      md_ready: false,
      detail: 'arXiv has no paper 2501.99999v1 (HTTP 404)',
    });
    const again = await s.get('/api/papers/2501.99999v1/markdown');
    expect(again.status).toBe(404);
    expect(await jsonOf(again)).toMatchObject({ state: 'failed', kind: 'fatal', phase: 'error_fetching' });
  });

  it('(none) + GET, cache hit → 200 with the bytes', async () => {
    const res = await s.get('/api/papers/2501.00102v1/markdown');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    const text = await res.text();
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
    expect(text).toBe('# 2501.00102v1\n\nConverted text.\n\n![fig](images/fig1.png)\n');
  });
});

describe('PDF resource: same path without the converting phase and without the parser', () => {
  it('miss → 202 → cached; no parser submission', async () => {
    const pdfs = addPaper(d.arxiv, '2501.00201');
    const before = d.mineru.creations.length;
    const res = await s.get('/api/papers/2501.00201v1/pdf');
    expect(res.status).toBe(202);
    expect(await jsonOf(res)).toMatchObject({ state: 'queued', detail: 'PDF not in store; fetching from arXiv' });
    expect(res.headers.get('operation-location')).toBe('/api/papers/2501.00201v1/pdf/status');
    const cached = await waitFor('2501.00201v1', (b) => b.state === 'cached', 'pdf');
    expect(cached).toEqual({
      preprint_id: '2501.00201v1',
      state: 'cached',
      phase: 'ready',
      pdf_ready: true,
      md_ready: false,
      pdf_url: '/api/papers/2501.00201v1/pdf',
    });
    const bytes = await s.get('/api/papers/2501.00201v1/pdf');
    expect(bytes.headers.get('content-disposition')).toBe('inline; filename="2501.00201v1.pdf"');
    expect(Buffer.from(await bytes.arrayBuffer())).toEqual(pdfs.get(1));
    expect(d.mineru.creations.length).toBe(before);
    expect((await statusOf('2501.00201v1')).state).toBe('none');
  });

  it('failures are error_fetching: fatal (404 from arXiv → 404) and retryable (→ 502)', async () => {
    await s.get('/api/papers/2501.99998v1/pdf');
    await waitFor('2501.99998v1', (b) => b.state === 'failed', 'pdf');
    const missing = await s.get('/api/papers/2501.99998v1/pdf');
    expect(missing.status).toBe(404);
    expect(await jsonOf(missing)).toMatchObject({ phase: 'error_fetching', kind: 'fatal' });

    addPaper(d.arxiv, '2501.00202');
    d.arxiv.answerNext('pdf', { status: 403, body: 'forbidden' });
    await s.get('/api/papers/2501.00202v1/pdf');
    await waitFor('2501.00202v1', (b) => b.state === 'failed', 'pdf');
    const failed = await s.get('/api/papers/2501.00202v1/pdf');
    expect(failed.status).toBe(502);
    expect(await jsonOf(failed)).toMatchObject({ phase: 'error_fetching', kind: 'fatal' });
  });
});
