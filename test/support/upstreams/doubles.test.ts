import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakePdf, startArxivDouble, type ArxivDouble } from './arxiv.js';
import { startMineruDouble, type MineruDouble } from './mineru.js';
import { startOpenAlexDouble, type OpenAlexDouble } from './openalex.js';

describe('upstream doubles speak the CONTRACT §12 wire protocol', () => {
  let arxiv: ArxivDouble;
  let openalex: OpenAlexDouble;
  let mineru: MineruDouble;
  beforeAll(async () => {
    [arxiv, openalex, mineru] = await Promise.all([startArxivDouble(), startOpenAlexDouble(), startMineruDouble()]);
  });
  afterAll(() => Promise.all([arxiv.close(), openalex.close(), mineru.close()]));

  it('arXiv: PDFs by version, og:url latest version, 404 and 429', async () => {
    arxiv.papers.set('quant-ph/9508027', { latestVersion: 2, pdfs: new Map([[2, fakePdf('shor')]]) });
    const pdf = await fetch(`${arxiv.baseUrl}/pdf/quant-ph/9508027v2`);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(
      Buffer.from(await pdf.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
    expect((await fetch(`${arxiv.baseUrl}/pdf/quant-ph/9508027v1`)).status).toBe(404);
    const abs = await (await fetch(`${arxiv.baseUrl}/abs/quant-ph/9508027`)).text();
    expect(abs).toContain('<meta property="og:url" content="https://arxiv.org/abs/quant-ph/9508027v2" />');
    arxiv.rateLimitNext(1, 7);
    const limited = await fetch(`${arxiv.baseUrl}/abs/quant-ph/9508027`);
    expect([limited.status, limited.headers.get('retry-after')]).toEqual([429, '7']);
  });

  it('OpenAlex: works by DOI with mailto, 404 otherwise', async () => {
    openalex.works.set('10.1137/s0097539795293172', {
      id: 'https://openalex.org/W1',
      doi: 'https://doi.org/10.1137/s0097539795293172',
      title: 'Polynomial-Time Algorithms',
    });
    const ok = await fetch(
      `${openalex.baseUrl}/works/doi:${encodeURIComponent('10.1137/s0097539795293172')}?mailto=a@b.org`,
    );
    expect((await ok.json()).title).toBe('Polynomial-Time Algorithms');
    expect((await fetch(`${openalex.baseUrl}/works/doi:10.1/x?mailto=a@b.org`)).status).toBe(404);
  });

  it('MinerU: envelope, task lifecycle, token check, injected failures', async () => {
    mineru.tokens.add('tok');
    const auth = { Authorization: 'Bearer tok', 'content-type': 'application/json' };
    const created = await (
      await fetch(`${mineru.baseUrl}/api/v4/extract/task`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ url: 'http://x/p.pdf' }),
      })
    ).json();
    expect(created.code).toBe(0);
    const task = mineru.tasks.get(created.data.task_id)!;
    expect(task.request).toEqual({ url: 'http://x/p.pdf' });
    // Each poll moves the task one state along its script: pending, running, converting, done.
    const states: string[] = [];
    let polled: { data: { state: string; full_zip_url: string } };
    do {
      polled = await (await fetch(`${mineru.baseUrl}/api/v4/extract/task/${task.task_id}`, { headers: auth })).json();
      states.push(polled.data.state);
    } while (polled.data.state !== 'done');
    expect(states).toEqual(['pending', 'running', 'converting', 'done']);
    const zip = await fetch(polled.data.full_zip_url);
    expect([
      zip.status,
      Buffer.from(await zip.arrayBuffer())
        .subarray(0, 2)
        .toString(),
    ]).toEqual([200, 'PK']);
    const bad = await (
      await fetch(`${mineru.baseUrl}/api/v4/extract/task`, {
        method: 'POST',
        headers: { Authorization: 'Bearer nope' },
      })
    ).json();
    expect(bad.code).toBe('A0202');
    mineru.failNextCreate({ code: -60018, msg: 'daily task limit reached' });
    expect(
      (
        await (
          await fetch(`${mineru.baseUrl}/api/v4/extract/task`, { method: 'POST', headers: auth, body: '{}' })
        ).json()
      ).code,
    ).toBe(-60018);
  });
});
