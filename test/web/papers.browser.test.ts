/**
 * Papers in a real browser against a real pksd: statistics of a seeded index and the parser queue with a claim
 * (CONTRACT §4.3, §9.2) on a server without paper access; on one with paper access against the upstream doubles
 * (arXiv, OpenAlex, MinerU), a paper conversion with live progress, markdown, KaTeX and a figure, and a DOI resolved
 * with the defaults the server applied (§11); and the paper registry (§18): the stored papers listed, searched,
 * filtered and paged, a paper opened from a pasted link, and a paper's record, versions and figures gallery.
 */
import { readFile } from 'node:fs/promises';
import type { Browser, Locator } from 'playwright-core';
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
const PLOT = makePng(48, 48, (x, y) => [200, 60 + x * 3, 60 + y * 3]);
const MiB = 1024 * 1024;
const OPEN_LABEL = 'Open a paper by preprint id, DOI or arXiv / doi.org link';

/** Clicks `button`, which starts a download: the file's suggested name and its bytes. */
async function downloadFrom(button: Locator): Promise<{ name: string; bytes: Buffer }> {
  const download = button.page().waitForEvent('download');
  await button.click();
  const saved = await download;
  return { name: saved.suggestedFilename(), bytes: await readFile(await saved.path()) };
}

/**
 * The console errors of a page, except the browser's report of each 404 answer a test expects: a paper the server
 * does not host (`GET /api/papers/{id}` → 404 `not hosted`), which the page states in words.
 */
const unexpectedConsoleErrors = (w: WebPage, origin: string, notFound: readonly string[]): string[] =>
  w.consoleErrors.filter(
    (e) =>
      !notFound.some(
        (path) =>
          e === `Failed to load resource: the server responded with a status of 404 (Not Found) ${origin}${path}`,
      ),
  );

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
        .getByRole('region', { name: 'Waiting for the parser' })
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
      await page.getByLabel(OPEN_LABEL).fill('quant-ph/9508027v2');
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
          SVC_PREPRINT_API_URL: `${d.arxiv.baseUrl}/api/query`,
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
      await md.getByText('Not stored yet').waitFor();
      await md
        .getByText(
          'No markdown of this paper is stored yet. Converting downloads the PDF from arXiv when needed and turns it ' +
            'into markdown with its figures.',
        )
        .waitFor();
      await pdf
        .getByText('No PDF of this paper is stored yet. Fetching downloads it from arXiv and keeps it here.')
        .waitFor();
      // The API's own words ("not cached; GET /api/papers/…/markdown starts a conversion") stay in the docs.
      expect(await page.locator('main').textContent()).not.toMatch(/\/api\/|GET |not cached/);
      expect(await screenshotsAndAxe(page, 'paper-none')).toEqual([]);

      // The other paper's download takes the only fetch slot and is held at arXiv.
      d.arxiv.pdfGate.close();
      expect((await stack.api(`/api/papers/${other}/markdown`)).status).toBe(202);
      await expect.poll(() => d.arxiv.pdfGate.held).toBe(1);

      await md.getByRole('button', { name: 'Convert to markdown' }).click();
      await md.getByText('Queued', { exact: true }).waitFor();
      await md.getByText('Downloading the PDF from arXiv').waitFor();
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

      const pdfFile = await downloadFrom(page.getByRole('button', { name: 'Download PDF' }));
      expect(pdfFile.name).toBe('2502.00020v1.pdf');
      expect(pdfFile.bytes.equals(d.arxiv.papers.get('2502.00020')!.pdfs.get(1)!)).toBe(true);
      expect(w.cspViolations).toEqual([]);
    });

    it('opens a paper by DOI and says which defaults the server applied', async () => {
      const { page } = w;
      const doi = '10.1137/S0097539795293172';
      d.openalex.works.set(doi.toLowerCase(), arxivWork(doi, 'quant-ph/9508027', 'Polynomial-time factoring'));
      addPaper(d.arxiv, 'quant-ph/9508027', 2);
      const statusRequest = page.waitForRequest(
        (r) => new URL(r.url()).pathname === `/api/papers/${doi.toLowerCase()}/markdown/status`,
      );
      await page.goto(`${stack.url}/papers`);
      await page.getByLabel(OPEN_LABEL).fill(`https://doi.org/${doi}`);
      await page.getByRole('button', { name: 'Open' }).click();
      // The page opens the DOI as the server normalises it (lower case, CONTRACT §2.3).
      await page.waitForURL(`${stack.url}/papers/${doi.toLowerCase()}`);
      await page
        .getByText(
          `“${doi.toLowerCase()}” is quant-ph/9508027v2: OpenAlex lists the DOI as arXiv paper quant-ph/9508027; ` +
            'no version was given, so the latest one, v2, is shown.',
        )
        .waitFor();
      await statusRequest;
      await page.locator('section.paper-markdown').getByText('Not stored yet').waitFor();
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
      // Neither paper was stored when its page opened.
      expect(
        unexpectedConsoleErrors(w, stack.url, ['/api/papers/2502.00020v1', '/api/papers/10.1137/s0097539795293172']),
      ).toEqual([]);
      expect(w.externalRequests.filter((u) => !u.startsWith(stack.gh.url))).toEqual([]);
    });
  });

  describe('the paper registry', () => {
    let d: Doubles;
    let stack: Stack;
    let w: WebPage;
    /** The papers seeded besides 2501.00010, oldest first: 2501.00100v1 … 2501.00121v1. */
    const others = Array.from({ length: 22 }, (_, i) => `2501.00${100 + i}v1`);
    const markdown = [
      '# Entanglement witnesses in practice',
      '',
      'We build the setup below.',
      '',
      '![](images/setup.png)',
      '',
      'Figure 1: The experimental setup.',
      '',
      'Witness values before and after the correction.',
      '',
      '![](images/before.png)',
      '![](images/after.png)',
      '',
      'Fig. 2. Witness values (a) before and (b) after.',
    ].join('\n');

    beforeAll(async () => {
      d = await startDoubles();
      stack = await startStack({}, { ...accessEnv(d), SVC_PREPRINT_API_URL: `${d.arxiv.baseUrl}/api/query` });
      d.arxiv.entries.set('2501.00010', {
        title: 'Entanglement witnesses in practice',
        authors: ['Ada Lovelace', 'Charles Babbage', 'Mary Somerville'],
        abstract:
          'We measure entanglement witnesses on a photonic platform and correct them for detector losses. ' +
          'The corrected witnesses certify entanglement in every run.',
        published: '2025-01-02',
        doi: '10.1234/EW.2025.10',
      });
      addPaper(d.arxiv, '2501.00010', 2);
      d.openalex.works.set(
        '10.1234/ew.2025.10',
        arxivWork('10.1234/ew.2025.10', '2501.00010', 'Entanglement witnesses'),
      );
      for (const v of [1, 2]) await upload(stack, `2501.00010v${v}`, 'pdf', pdfBytes(`2501.00010v${v}`));
      await upload(
        stack,
        '2501.00010v2',
        'parser',
        makeZip([
          { name: 'full.md', content: markdown },
          { name: 'images/setup.png', content: FIGURE },
          { name: 'images/before.png', content: PLOT },
          { name: 'images/after.png', content: PLOT },
          { name: 'images/unused.png', content: FIGURE },
        ]),
      );
      for (const id of others) await upload(stack, id, 'pdf', pdfBytes(id));
      w = await openSignedIn(browser, stack.url);
    });
    afterAll(async () => {
      await w?.close();
      await stack?.close();
      await d?.close();
    });

    /** The rows of the papers list as [id, flags] (a row with a title shows its id beside it). */
    const listRows = (page: WebPage['page']) =>
      page
        .getByRole('region', { name: 'Stored papers' })
        .locator('tbody tr')
        .evaluateAll((trs) =>
          trs.map((tr) => [
            (tr.querySelector('td[data-label="Paper"] .paper-row-id') ?? tr.querySelector('td[data-label="Paper"] a'))
              ?.textContent,
            [...tr.querySelectorAll('.badge')].map((b) => b.textContent).join(' · '),
          ]),
        );
    const count = (page: WebPage['page']) => page.locator('#paper-count');

    it('lists the stored papers with their flags, newest first, and pages, searches and filters them', async () => {
      const { page } = w;
      await page.goto(`${stack.url}/papers`);
      await expect.poll(() => count(page).textContent()).toBe('1–20 of 24 papers');
      const first = await listRows(page);
      expect(first).toHaveLength(20);
      expect(first.slice(0, 2)).toEqual([
        ['2501.00121v1', 'PDF · no markdown'],
        ['2501.00120v1', 'PDF · no markdown'],
      ]);
      expect(await screenshotsAndAxe(page, 'papers-list')).toEqual([]);

      await page.getByRole('button', { name: 'Next' }).click();
      await page.waitForURL(`${stack.url}/papers?page=2`);
      await expect.poll(() => count(page).textContent()).toBe('21–24 of 24 papers');
      expect(await listRows(page)).toEqual([
        ['2501.00101v1', 'PDF · no markdown'],
        ['2501.00100v1', 'PDF · no markdown'],
        ['2501.00010v2', 'PDF · markdown · 4 images'],
        ['2501.00010v1', 'PDF · no markdown'],
      ]);
      expect(await page.getByText('Page 2 of 2').count()).toBe(1);
      expect(await page.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);
      // The uploads fetched the paper's metadata in the background: once it is in, both versions show its title.
      const titled = page.getByRole('link', { name: 'Entanglement witnesses in practice' });
      await expect
        .poll(async () => {
          await page.reload();
          await expect.poll(() => count(page).textContent()).toBe('21–24 of 24 papers');
          return titled.count();
        })
        .toBe(2);

      // A search goes back to the first page; the title and the id are searched.
      await page.getByLabel('Title or id contains').fill('00010');
      await page.waitForURL(`${stack.url}/papers?q=00010`);
      await expect.poll(() => count(page).textContent()).toBe('1–2 of 2 papers');
      await page.getByLabel('Has markdown').selectOption('true');
      await page.waitForURL(`${stack.url}/papers?q=00010&has_md=true`);
      await expect.poll(() => listRows(page)).toEqual([['2501.00010v2', 'PDF · markdown · 4 images']]);
      await page.getByLabel('Has markdown').selectOption('false');
      await page.waitForURL(`${stack.url}/papers?q=00010&has_md=false`);
      // A fast hand: the search cleared and a sort picked in one tick, before the page renders again — both count.
      await page.evaluate(`(() => {
        const input = document.getElementById('paper-q');
        Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set.call(input, '');
        input.dispatchEvent(new Event('input', { bubbles: true }));
        const select = document.getElementById('paper-sort');
        Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, 'value').set.call(select, 'id');
        select.dispatchEvent(new Event('change', { bubbles: true }));
      })()`);
      await page.waitForURL(`${stack.url}/papers?has_md=false&sort=id`);
      // The count reads the same before and after the sort: the rows tell when the sorted page has arrived.
      await expect
        .poll(async () => (await listRows(page)).slice(0, 2))
        .toEqual([
          ['2501.00010v1', 'PDF · no markdown'],
          ['2501.00100v1', 'PDF · no markdown'],
        ]);
      expect(await count(page).textContent()).toBe('1–20 of 23 papers');
      await page.getByLabel('Title or id contains').fill('no such paper');
      await page.getByText('No stored paper matches.').waitFor();

      // A link pasted into the search names a paper: the page offers to open it.
      await page.getByLabel('Title or id contains').fill('https://arxiv.org/abs/2501.00010v2');
      await page.getByRole('link', { name: 'open 2501.00010v2' }).click();
      await page.waitForURL(`${stack.url}/papers/2501.00010v2`);
      expect(w.consoleErrors).toEqual([]);
    });

    /**
     * Opens each way of naming a paper with `open` and expects the paper's canonical address; the last, a DOI, opens
     * the paper it names (the server resolves it through OpenAlex).
     */
    const openEach = async (open: (text: string) => Promise<unknown>) => {
      const cases: [text: string, path: string][] = [
        ['https://arxiv.org/pdf/2501.00010v2.pdf', '/papers/2501.00010v2'],
        ['https://arxiv.org/abs/2501.00010', '/papers/2501.00010'],
        ['arXiv:2501.00010V1', '/papers/2501.00010v1'],
        ['9508027v2', '/papers/quant-ph/9508027v2'],
        ['https://doi.org/10.1234/EW.2025.10', '/papers/10.1234/ew.2025.10'],
      ];
      for (const [text, path] of cases) {
        await open(text);
        await w.page.waitForURL(`${stack.url}${path}`);
      }
      await w.page.getByRole('heading', { level: 1, name: /Entanglement witnesses in practice/ }).waitFor();
    };

    it('opens a paper from an id, a DOI or an arxiv.org or doi.org link, and says why other text opens none', async () => {
      const { page } = w;
      await openEach(async (input) => {
        await page.goto(`${stack.url}/papers`);
        await page.getByLabel(OPEN_LABEL).fill(input);
        await page.getByRole('button', { name: 'Open' }).click();
      });
      await page.goto(`${stack.url}/papers`);
      await page.getByLabel(OPEN_LABEL).fill('https://example.org/abs/2501.00010');
      await page.getByRole('button', { name: 'Open' }).click();
      const alert = page.getByRole('alert');
      expect(await alert.textContent()).toBe(
        'This opens no paper: unsupported URL: "https://example.org/abs/2501.00010" (expected ' +
          'https://arxiv.org/abs/<id>, https://arxiv.org/pdf/<id> or https://doi.org/<doi>).',
      );
      expect(await page.getByLabel(OPEN_LABEL).getAttribute('aria-invalid')).toBe('true');
      expect(new URL(page.url()).pathname).toBe('/papers');
      expect(await screenshotsAndAxe(page, 'papers-open-refused')).toEqual([]);
    });

    it('opens a paper from an id or link typed after /papers/ in the address, and says in words when none is named', async () => {
      const { page } = w;
      await openEach((typed) => page.goto(`${stack.url}/papers/${typed}`));
      await page.goto(`${stack.url}/papers/phase-estimation`);
      await page.getByRole('heading', { level: 1, name: 'This address names no paper' }).waitFor();
      expect(await page.locator('main .notice').textContent()).toBe(
        '“phase-estimation” is not a preprint id or DOI (invalid preprint id or DOI: "phase-estimation").',
      );
      // No request was made for it: the page knows it names nothing.
      expect(w.consoleErrors.filter((e) => e.includes('phase-estimation'))).toEqual([]);
      expect(await screenshotsAndAxe(page, 'paper-not-a-paper')).toEqual([]);
    });

    it("shows a paper's record, abstract, versions and figures gallery, and downloads its images", async () => {
      const { page } = w;
      const imageRequests: string[] = [];
      page.on('request', (r) => {
        if (r.url().includes('/images/') && !r.url().endsWith('/zip')) imageRequests.push(r.url());
      });
      await page.goto(`${stack.url}/papers/2501.00010v2`);
      await page.getByRole('heading', { level: 1, name: /Entanglement witnesses in practice/ }).waitFor();
      expect(await page.locator('.paper-title .paper-id').textContent()).toBe('2501.00010v2');
      const facts = await page
        .locator('.paper-facts')
        .evaluate((dl) =>
          [...dl.querySelectorAll('dt')].map((dt) => [dt.textContent, dt.nextElementSibling?.textContent]),
        );
      expect(facts).toEqual([
        ['Authors', 'Ada Lovelace, Charles Babbage and Mary Somerville'],
        ['Published', 'Jan 2, 2025'],
        ['arXiv', '2501.00010'],
        ['DOI', '10.1234/ew.2025.10'],
        ['Metadata from', 'arXiv'],
      ]);
      expect(await page.getByRole('link', { name: '10.1234/ew.2025.10' }).getAttribute('href')).toBe(
        'https://doi.org/10.1234/ew.2025.10',
      );
      expect(await page.getByRole('region', { name: 'Abstract' }).locator('p').textContent()).toBe(
        'We measure entanglement witnesses on a photonic platform and correct them for detector losses. ' +
          'The corrected witnesses certify entanglement in every run.',
      );

      const versions = page.getByRole('region', { name: 'Stored versions' });
      const rows = await versions
        .locator('tbody tr')
        .evaluateAll((trs) =>
          trs.map((tr) =>
            ['Version', 'Markdown', 'Images'].map((l) => tr.querySelector(`td[data-label="${l}"]`)?.textContent),
          ),
        );
      expect(rows).toEqual([
        ['v2', expect.stringMatching(/^\d+ B$/), '4'],
        ['v1', 'none', '0'],
      ]);
      expect(await versions.locator('.sha').first().textContent()).toMatch(/^ sha256 [0-9a-f]{12}…$/);

      const gallery = page.getByRole('region', { name: /^Figures/ });
      expect(await gallery.getByRole('heading', { level: 2 }).textContent()).toBe('Figures (2)');
      const figures = gallery.getByRole('list', { name: 'Figures' }).locator('figure');
      expect(await figures.locator('figcaption').allTextContents()).toEqual([
        'Figure 1: The experimental setup.',
        'Fig. 2. Witness values (a) before and (b) after.',
      ]);
      const setup = figures.nth(0).getByRole('img', { name: 'Figure 1' });
      const before = figures.nth(1).getByRole('img', { name: 'Figure 2, part 1 of 2' });
      const after = figures.nth(1).getByRole('img', { name: 'Figure 2, part 2 of 2' });
      const unused = gallery
        .getByRole('list', { name: 'Other images' })
        .getByRole('img', { name: 'Image “unused.png”' });
      const width = (img: typeof setup) =>
        img.evaluate((el) => {
          const i = el as unknown as { complete: boolean; naturalWidth: number };
          return i.complete ? i.naturalWidth : 0;
        });
      await expect.poll(() => width(setup)).toBe(64);
      await expect.poll(() => width(before)).toBe(48);
      await expect.poll(() => width(after)).toBe(48);
      await expect.poll(() => width(unused)).toBe(64);
      expect(await setup.getAttribute('src')).toMatch(/^blob:/);
      // The gallery shows every stored image; the markdown below shows those it links.
      expect([...new Set(imageRequests.map((u) => new URL(u).pathname))].sort()).toEqual(
        ['after.png', 'before.png', 'setup.png', 'unused.png'].map((n) => `/api/papers/2501.00010v2/images/${n}`),
      );
      expect(await screenshotsAndAxe(page, 'paper-record')).toEqual([]);

      const zip = await downloadFrom(gallery.getByRole('button', { name: 'Download all 4 images (zip)' }));
      expect(zip.name).toBe('2501.00010v2-images.zip');
      const direct = await stack.api('/api/papers/2501.00010v2/images/zip');
      expect(direct.status).toBe(200);
      expect(zip.bytes.equals(Buffer.from(await direct.arrayBuffer()))).toBe(true);
    });

    it('says when nothing is stored for a paper', async () => {
      const { page } = w;
      await page.goto(`${stack.url}/papers/2501.00999v1`);
      await page
        .getByText('This server stores nothing for 2501.00999v1 yet: converting it below fetches it from arXiv.')
        .waitFor();
      expect(await page.getByRole('region', { name: 'Stored versions' }).count()).toBe(0);
    });

    it('caused no CSP violation, console error or request to another host', () => {
      expect(w.cspViolations).toEqual([]);
      expect(
        unexpectedConsoleErrors(w, stack.url, ['/api/papers/quant-ph/9508027v2', '/api/papers/2501.00999v1']),
      ).toEqual([]);
      expect(w.externalRequests.filter((u) => !u.startsWith(stack.gh.url))).toEqual([]);
    });
  });
});
