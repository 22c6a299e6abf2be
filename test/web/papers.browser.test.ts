/**
 * Papers in a real browser against a real pksd: statistics of a seeded index and the parser queue with a claim
 * (CONTRACT §4.3, §9.2), and a paper conversion with live progress, markdown, KaTeX and a figure (§11).
 *
 * The paper-access routes (`/api/papers/<id>/markdown|pdf|…/status|images/<name>`) are answered here by
 * `page.route` with contract-shaped snapshots until the server registers them.
 */
import type { Browser, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multipart, pdfBytes } from '../server/papers/helpers.js';
import { makeZip } from '../server/papers/zip.js';
import { CHROMIUM, launchBrowser, openPage, screenshotsAndAxe, type WebPage } from './support/browser.js';
import { makePng } from './support/png.js';
import { signIn, startStack, type Stack } from './support/stack.js';

const FIGURE = makePng(64, 40, (x, y) => [40 + x * 3, 80 + y * 4, 200]);

async function upload(stack: Stack, id: string, kind: 'pdf' | 'parser', content: Buffer): Promise<void> {
  const { body, contentType } = multipart([
    kind === 'pdf'
      ? { name: 'pdf', filename: 'paper.pdf', content, contentType: 'application/pdf' }
      : { name: 'parser_zip', filename: 'result.zip', content, contentType: 'application/zip' },
  ]);
  const res = await stack.api(`/api/papers/${id}/upload-${kind}`, {
    method: 'POST',
    headers: { 'Content-Type': contentType },
    body,
  });
  expect(res.status).toBe(201);
}

describe.skipIf(!CHROMIUM)('web front end: papers', () => {
  let stack: Stack;
  let browser: Browser;
  let w: WebPage;

  beforeAll(async () => {
    stack = await startStack();
    for (const id of ['2501.00010v1', '2501.00011v2', 'quant-ph/9508027v2'])
      await upload(stack, id, 'pdf', pdfBytes(id));
    await upload(
      stack,
      '2501.00010v1',
      'parser',
      makeZip([
        { name: 'full.md', content: '# Paper\n\n![](images/a.png)\n' },
        { name: 'images/a.png', content: FIGURE },
        { name: 'images/b.png', content: FIGURE },
      ]),
    );
    const claim = await stack.api('/api/papers/2501.00011v2/parser-claim', { method: 'POST' });
    expect(claim.status).toBe(201);
    browser = await launchBrowser();
    w = await openPage(browser, stack.url);
    await signIn(w.page, stack.url, '/');
  });
  afterAll(async () => {
    await w?.close();
    await browser?.close();
    await stack?.close();
  });

  it('shows the statistics of the index and the parser queue with its claim', async () => {
    const { page } = w;
    await page.goto(`${stack.url}/papers`);
    await page.locator('.stat').first().waitFor();
    const figures = await page
      .locator('.stats .stat')
      .evaluateAll((ss) =>
        ss.map((s) => [s.querySelector('dt')?.textContent, s.querySelector('.stat-value')?.textContent]),
      );
    expect(figures).toEqual([
      ['Papers', '3'],
      ['With PDF', '3'],
      ['With markdown', '1'],
      ['With JSON', '0'],
      ['Need parsing', '2'],
      ['Images', '2'],
    ]);
    await page.getByText('1 waiting, 1 claimed by a contributor.').waitFor();
    const rows = await page
      .locator('table tbody tr')
      .evaluateAll((trs) =>
        trs.map((tr) => [
          tr.querySelector('td[data-label="Paper"]')?.textContent,
          tr.querySelector('.badge')?.textContent,
        ]),
      );
    expect(rows.sort()).toEqual([
      ['2501.00011v2', 'claimed'],
      ['quant-ph/9508027v2', 'waiting'],
    ]);
    expect(await screenshotsAndAxe(page, 'papers')).toEqual([]);
  });

  it('says that paper access is off when the server serves no bytes', async () => {
    const { page } = w;
    await page.goto(`${stack.url}/papers`);
    await page.getByLabel('Open a paper by preprint id or DOI').fill('quant-ph/9508027v2');
    await page.getByRole('button', { name: 'Open' }).click();
    await page.waitForURL(`${stack.url}/papers/quant-ph/9508027v2`);
    await page.getByText('Paper access is off on this server, so it serves no PDF or markdown.').waitFor();
    // The sample wiki has a page for this paper.
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain('quant-ph/9508027v2');
  });

  it('converts a paper: live progress, then the markdown with KaTeX and its figure, and a PDF download', async () => {
    const { page } = w;
    const id = '2502.00020v1';
    const base = { preprint_id: id, submitted_at: '2026-05-01T12:00:00Z' };
    const queue = {
      running_count: 4,
      max_concurrent: 4,
      avg_duration_seconds: 95,
      eta_basis: 'observed_avg_of_12_jobs',
    };
    const steps = [
      {
        ...base,
        state: 'none',
        phase: '',
        pdf_ready: false,
        md_ready: false,
        detail: `not cached; GET /api/papers/${id}/markdown starts a conversion`,
      },
      {
        ...base,
        state: 'queued',
        phase: 'fetching_pdf',
        pdf_ready: false,
        md_ready: false,
        detail: 'conversion in progress',
        queue,
      },
      {
        ...base,
        state: 'running',
        phase: 'fetching_pdf',
        pdf_ready: false,
        md_ready: false,
        started_at: '2026-05-01T12:00:01Z',
        fetch: { started_at: '2026-05-01T12:00:01Z', bytes_received: 1048576, bytes_total: 2412345, attempts: 1 },
        queue,
      },
      {
        ...base,
        state: 'queued',
        phase: 'converting_md',
        pdf_ready: true,
        md_ready: false,
        queue: { ...queue, position: 3, ahead_of_me: 2, eta_seconds: 190 },
      },
      {
        ...base,
        state: 'running',
        phase: 'converting_md',
        pdf_ready: true,
        md_ready: false,
        convert: {
          started_at: '2026-05-01T12:01:00Z',
          parser_task_id: '6c1e',
          stage: 'running',
          polled_count: 7,
          extracted_pages: 3,
          total_pages: 12,
        },
        queue,
      },
      {
        preprint_id: id,
        state: 'cached',
        phase: 'ready',
        pdf_ready: true,
        md_ready: true,
        markdown_url: `/api/papers/${id}/markdown`,
      },
    ];
    let step = 0;
    const markdown = [
      '# Phase estimation with few qubits',
      '',
      '## Abstract',
      '',
      'We estimate the eigenphase $\\phi$ of a unitary $U$ to $n$ bits with $O(2^n)$ controlled applications.',
      '',
      '$$',
      'U\\lvert u\\rangle = e^{2\\pi i \\phi}\\lvert u\\rangle',
      '$$',
      '',
      '![Figure 1: the circuit](images/fig1.png)',
      '',
      '| bits | error |',
      '|---|---|',
      '| 3 | 0.125 |',
    ].join('\n');
    const json = (route: Route, status: number, body: unknown, headers: Record<string, string> = {}) =>
      route.fulfill({ status, contentType: 'application/json', headers, body: JSON.stringify(body) });
    await page.route(`**/api/server/info`, async (route) => {
      const real = (await (await route.fetch()).json()) as Record<string, unknown>;
      await json(route, 200, { ...real, paper_access: true });
    });
    const imageRequests: (string | undefined)[] = [];
    await page.route(`**/api/papers/${id}/**`, async (route) => {
      const path = new URL(route.request().url()).pathname;
      if (path.endsWith('/markdown/status')) return json(route, 200, steps[step]);
      if (path.endsWith('/pdf/status')) {
        return json(
          route,
          200,
          steps[step]!.pdf_ready
            ? {
                preprint_id: id,
                state: 'cached',
                phase: 'ready',
                pdf_ready: true,
                md_ready: steps[step]!.md_ready,
                pdf_url: `/api/papers/${id}/pdf`,
              }
            : { preprint_id: id, state: 'none', phase: '', pdf_ready: false, md_ready: false, detail: 'not cached' },
        );
      }
      if (path.endsWith('/markdown')) {
        if (steps[step]!.state === 'cached') {
          return route.fulfill({ status: 200, contentType: 'text/markdown; charset=utf-8', body: markdown });
        }
        step = Math.max(step, 1);
        return json(
          route,
          202,
          {
            ...steps[1],
            operation: { status_url: `/api/papers/${id}/markdown/status`, next_poll_after_iso: '2026-05-01T12:00:05Z' },
          },
          {
            'Operation-Location': `/api/papers/${id}/markdown/status`,
            'Retry-After': '5',
          },
        );
      }
      if (path.endsWith('/pdf')) {
        return route.fulfill({ status: 200, contentType: 'application/pdf', body: pdfBytes('converted paper') });
      }
      if (path.endsWith('/images/fig1.png')) {
        imageRequests.push(route.request().headers()['authorization']);
        return route.fulfill({ status: 200, contentType: 'image/png', body: FIGURE });
      }
      return json(route, 404, { detail: 'image not found' });
    });

    await page.goto(`${stack.url}/papers/${id}`);
    const md = page.locator('section.paper-markdown');
    await md.getByText('Not in the store').waitFor();
    expect(await screenshotsAndAxe(page, 'paper-none')).toEqual([]);
    await md.getByRole('button', { name: 'Convert to markdown' }).click();
    await md.getByText('Queued', { exact: true }).waitFor();
    await md.getByText('Downloading the PDF from arXiv').waitFor();

    step = 2;
    await md.getByText('1.0 MiB of 2.3 MiB').waitFor();
    expect(
      await md.locator('#fetch-progress').evaluate((el) => {
        const p = el as unknown as { value: number; max: number };
        return [p.value, p.max];
      }),
    ).toEqual([1048576, 2412345]);
    expect(await screenshotsAndAxe(page, 'paper-progress')).toEqual([]);

    step = 3;
    await md.getByText('waiting for a parser slot').waitFor();
    expect(await md.locator('.job-queue').textContent()).toContain('Queue position3 (2 ahead)');
    await md.getByText('about 3 min 10 s').waitFor();

    step = 4;
    await md.getByText('3 of 12 pages').waitFor();
    expect(await md.getByText('Conversion (running)').count()).toBe(1);

    step = 5;
    const article = page.getByRole('article', { name: `Markdown of ${id}` });
    await article.locator('.katex-display').waitFor();
    expect(await article.locator('.katex').count()).toBe(5);
    const figure = article.getByRole('img', { name: 'Figure 1: the circuit' });
    await expect
      .poll(() =>
        figure.evaluate((el) => {
          const img = el as unknown as { complete: boolean; naturalWidth: number };
          return img.complete && img.naturalWidth;
        }),
      )
      .toBe(64);
    expect(await figure.getAttribute('src')).toMatch(/^blob:/);
    expect(imageRequests[0]).toMatch(/^Bearer /);
    expect(await article.locator('table td').allTextContents()).toEqual(['3', '0.125']);
    expect(await screenshotsAndAxe(page, 'paper-markdown')).toEqual([]);

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download PDF' }).click();
    expect((await download).suggestedFilename()).toBe('2502.00020v1.pdf');
    expect(w.cspViolations).toEqual([]);
    // Leave the page before the fakes go, so no late status poll reaches the real server.
    await page.goto('about:blank');
    await page.unrouteAll({ behavior: 'ignoreErrors' });
  });

  it('opens a paper by DOI and says which defaults the server applied', async () => {
    const { page } = w;
    const doi = '10.1137/S0097539795293172';
    const resolved = {
      preprint_id: 'quant-ph/9508027v2',
      state: 'cached',
      phase: 'ready',
      pdf_ready: true,
      md_ready: true,
      requested_id: doi,
      resolved_id: 'quant-ph/9508027v2',
      defaults_applied: [
        'doi_resolved_via_openalex (DOI -> arXiv id quant-ph/9508027)',
        'version=v2 (no version specified; latest published version used)',
      ],
    };
    await page.route('**/api/server/info', async (route) => {
      const real = (await (await route.fetch()).json()) as Record<string, unknown>;
      await route.fulfill({ json: { ...real, paper_access: true } });
    });
    const asked: string[] = [];
    await page.route('**/api/papers/10.1137/**', (route) => {
      const path = new URL(route.request().url()).pathname;
      asked.push(path);
      if (path.endsWith('/status')) return route.fulfill({ json: resolved });
      return route.fulfill({
        status: 200,
        contentType: 'text/markdown; charset=utf-8',
        body: '# Polynomial-time factoring',
      });
    });
    await page.goto(`${stack.url}/papers`);
    await page.getByLabel('Open a paper by preprint id or DOI').fill(`https://doi.org/${doi}`);
    await page.getByRole('button', { name: 'Open' }).click();
    await page.waitForURL(`${stack.url}/papers/${doi}`);
    await page
      .getByText(
        `“${doi}” was resolved to quant-ph/9508027v2: doi_resolved_via_openalex (DOI -> arXiv id quant-ph/9508027); ` +
          'version=v2 (no version specified; latest published version used).',
      )
      .waitFor();
    // The sample wiki's page for the resolved paper is linked.
    await page
      .getByRole('link', {
        name: 'Polynomial-Time Algorithms for Prime Factorization and Discrete Logarithms on a Quantum Computer',
      })
      .first()
      .waitFor();
    expect(asked).toContain(`/api/papers/${doi}/markdown/status`);
    await page.goto('about:blank');
    await page.unrouteAll({ behavior: 'ignoreErrors' });
  });

  it('caused no CSP violation, console error or request to another host', () => {
    expect(w.cspViolations).toEqual([]);
    expect(w.consoleErrors).toEqual([]);
    expect(w.externalRequests.filter((u) => !u.startsWith(stack.gh.url))).toEqual([]);
  });
});
