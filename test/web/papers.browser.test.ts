/**
 * Papers in a real browser against a real pksd: statistics of a seeded index and the parser queue with a claim
 * (CONTRACT §4.3, §9.2) on a server without paper access; and, on one with paper access against the upstream
 * doubles (arXiv, OpenAlex, MinerU), a paper conversion with live progress, markdown, KaTeX and a figure, and a DOI
 * resolved with the defaults the server applied (§11).
 */
import { readFile } from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessEnv, startDoubles, type Doubles } from '../server/access/support/harness.js';
import { addPaper } from '../server/access/support/papers.js';
import { pdfBytes } from '../server/papers/helpers.js';
import { makeZip } from '../server/papers/zip.js';
import { arxivWork } from '../support/upstreams/openalex.js';
import { resultZip, type TaskState } from '../support/upstreams/mineru.js';
import { CHROMIUM, launchBrowser, screenshotsAndAxe, type WebPage } from './support/browser.js';
import { makePng } from './support/png.js';
import { openSignedIn, startStack, upload, type Stack } from './support/stack.js';

const FIGURE = makePng(64, 40, (x, y) => [40 + x * 3, 80 + y * 4, 200]);
const MiB = 1024 * 1024;

describe.skipIf(!CHROMIUM)('web front end: papers', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  describe('without paper access', () => {
    let stack: Stack;
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
      w = await openSignedIn(browser, stack.url);
    });
    afterAll(async () => {
      await w?.close();
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
      // With the switch off the paper-access routes are not registered (§11).
      expect((await stack.api('/api/papers/quant-ph/9508027v2/markdown/status')).status).toBe(404);
    });

    it('caused no CSP violation, console error or request to another host', () => {
      expect(w.cspViolations).toEqual([]);
      expect(w.consoleErrors).toEqual([]);
      expect(w.externalRequests.filter((u) => !u.startsWith(stack.gh.url))).toEqual([]);
    });
  });

  describe('with paper access (upstream doubles)', () => {
    let d: Doubles;
    let stack: Stack;
    let w: WebPage;

    beforeAll(async () => {
      d = await startDoubles();
      stack = await startStack(
        {},
        {
          ...accessEnv(d),
          // One fetch slot and one parser slot, so the test can hold a job in each queue with a second paper.
          SVC_PREPRINT_FETCH_CONCURRENT: '1',
          PARSER_MAX_CONCURRENT_JOBS: '1',
          // No conversion history yet: the estimate is PARSER_TIMEOUT / 2 = 60 s per conversion.
          PARSER_TIMEOUT: '120',
          PARSER_POLL_INTERVAL: '0.5',
        },
      );
      w = await openSignedIn(browser, stack.url);
    });
    afterAll(async () => {
      await w?.close();
      await stack?.close();
      await d?.close();
    });

    it('converts a paper: live progress, then the markdown with KaTeX and its figure, and a PDF download', async () => {
      const { page } = w;
      const id = '2502.00020v1';
      // Another paper whose download, then conversion, holds the single slot while the page watches `id` wait.
      const other = '2502.00021v1';
      addPaper(d.arxiv, '2502.00020', 1, 4 * MiB);
      addPaper(d.arxiv, '2502.00021');
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
      // Task states per poll, the last one sticking: each task stays where it is until the test appends `done`.
      const otherStates: TaskState[] = ['pending'];
      const paperStates: TaskState[] = ['running'];
      d.mineru.scripts.set(other, { states: otherStates });
      d.mineru.scripts.set(id, {
        states: paperStates,
        totalPages: 12,
        zip: resultZip(markdown, { 'fig1.png': FIGURE }),
      });

      await page.goto(`${stack.url}/papers/${id}`);
      const md = page.locator('section.paper-markdown');
      const pdf = page.getByRole('region', { name: 'PDF' });
      await md.getByText('Not in the store').waitFor();
      await md.getByText(`not cached; GET /api/papers/${id}/markdown starts a conversion`).waitFor();
      expect(await screenshotsAndAxe(page, 'paper-none')).toEqual([]);

      // The other paper's download takes the only fetch slot and is held at arXiv.
      d.arxiv.pdfGate.close();
      expect((await stack.api(`/api/papers/${other}/markdown`)).status).toBe(202);
      await expect.poll(() => d.arxiv.pdfGate.held).toBe(1);

      await md.getByRole('button', { name: 'Convert to markdown' }).click();
      await md.getByText('Queued', { exact: true }).waitFor();
      await md.getByText('Downloading the PDF from arXiv').waitFor();
      await md.getByText('conversion in progress').waitFor();
      // The PDF panel follows the same job: the PDF is being fetched for the conversion.
      await pdf.getByText('Downloading the PDF from arXiv').waitFor();

      // Released, the other paper downloads and then holds the only parser slot; this one downloads slowly.
      d.arxiv.pdfChunkDelayMs = 200;
      d.arxiv.pdfGate.open();
      const fetchProgress = md.getByRole('progressbar', { name: 'PDF download' });
      await expect
        .poll(
          () =>
            fetchProgress.evaluate((el) => {
              const p = el as unknown as { value: number; max: number };
              return p.max === 4 * 1048576 && p.value >= 1048576;
            }),
          { timeout: 30_000 },
        )
        .toBe(true);
      expect(await md.getByText('Running', { exact: true }).count()).toBe(1);
      expect(await md.locator('.progress-line .mono').textContent()).toMatch(/^\d\.\d MiB of 4\.0 MiB$/);
      expect(await screenshotsAndAxe(page, 'paper-progress')).toEqual([]);

      await md.getByText('waiting for a parser slot').waitFor({ timeout: 30_000 });
      d.arxiv.pdfChunkDelayMs = 0;
      expect(await md.locator('.job-queue').textContent()).toBe(
        'Queue position1 (0 ahead)Parser slots1 of 1 busyEstimated waitabout 2 minTypical conversion1 min (no history yet)',
      );
      // The PDF is stored while the conversion waits: it can be downloaded already.
      await pdf.getByRole('button', { name: 'Download PDF' }).waitFor();
      expect(await pdf.getByText('Ready', { exact: true }).count()).toBe(1);
      expect(await screenshotsAndAxe(page, 'paper-queued')).toEqual([]);

      otherStates.push('done');
      const convertProgress = md.getByRole('progressbar', { name: 'Conversion (running)' });
      await convertProgress.waitFor({ timeout: 30_000 });
      expect(await convertProgress.getAttribute('max')).toBe('12');
      await md.getByText(/^\d+ of 12 pages$/).waitFor();

      paperStates.push('done');
      const article = page.getByRole('article', { name: `Markdown of ${id}` });
      const imageRequest = page.waitForRequest((r) => r.url().endsWith(`/api/papers/${id}/images/fig1.png`), {
        timeout: 30_000,
      });
      await article.locator('.katex-display').waitFor({ timeout: 30_000 });
      expect(await md.getByText('Ready', { exact: true }).count()).toBe(1);
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
      expect((await (await imageRequest).allHeaders())['authorization']).toMatch(/^Bearer /);
      expect(await article.locator('table td').allTextContents()).toEqual(['3', '0.125']);
      expect(await screenshotsAndAxe(page, 'paper-markdown')).toEqual([]);

      const download = page.waitForEvent('download');
      await page.getByRole('button', { name: 'Download PDF' }).click();
      const saved = await download;
      expect(saved.suggestedFilename()).toBe('2502.00020v1.pdf');
      const bytes = await readFile(await saved.path());
      expect(bytes.equals(d.arxiv.papers.get('2502.00020')!.pdfs.get(1)!)).toBe(true);
      expect(w.cspViolations).toEqual([]);
    });

    it('opens a paper by DOI and says which defaults the server applied', async () => {
      const { page } = w;
      const doi = '10.1137/S0097539795293172';
      d.openalex.works.set(doi.toLowerCase(), arxivWork(doi, 'quant-ph/9508027', 'Polynomial-time factoring'));
      addPaper(d.arxiv, 'quant-ph/9508027', 2);
      const statusRequest = page.waitForRequest(
        (r) => new URL(r.url()).pathname === `/api/papers/${doi}/markdown/status`,
      );
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
      await statusRequest;
      await page.locator('section.paper-markdown').getByText('Not in the store').waitFor();
      // The sample wiki's page for the resolved paper is linked.
      await page
        .getByRole('link', {
          name: 'Polynomial-Time Algorithms for Prime Factorization and Discrete Logarithms on a Quantum Computer',
        })
        .first()
        .waitFor();
      expect(await screenshotsAndAxe(page, 'paper-doi')).toEqual([]);
    });

    it('caused no CSP violation, console error or request to another host', () => {
      expect(w.cspViolations).toEqual([]);
      expect(w.consoleErrors).toEqual([]);
      expect(w.externalRequests.filter((u) => !u.startsWith(stack.gh.url))).toEqual([]);
    });
  });
});
