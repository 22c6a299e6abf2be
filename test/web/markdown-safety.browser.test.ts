/**
 * Hostile markdown in a real browser against a real pksd. A paper's markdown reaches only the paper's own images
 * (CONTRACT §11.4): no spelling of `..`, backslash, absolute or protocol-relative path makes the browser call
 * another API route with the reader's token, while its real figures still load. Markdown nested ten thousand
 * levels deep is shown as text, without a page error, and the page stays usable.
 */
import type { Request, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessEnv, startDoubles, type Doubles } from '../server/access/support/harness.js';
import { pdfBytes } from '../server/papers/helpers.js';
import { makeZip } from '../server/papers/zip.js';
import { CHROMIUM, screenshotsAndAxe, useBrowser, type WebPage } from './support/browser.js';
import type { PageGlobals } from './support/page-globals.js';
import { makePng } from './support/png.js';
import { openSignedIn, startStack, upload, type Stack } from './support/stack.js';

const FIGURE = makePng(48, 30, (x, y) => [200, 60 + x * 3, 40 + y * 5]);
const PAPER = '2503.00030v1';
/** The name MinerU gives an extracted figure: `images/<sha256>.jpg`. */
const HASHED = `${'3f2a9c'.repeat(10)}abcd.jpg`;

const HOSTILE_PAPER = [
  '# A paper with hostile references',
  '',
  '![Hashed figure](images/' + HASHED + ')',
  '',
  '![Bare figure](fig1.png)',
  '',
  '![Dotted figure](./images/fig1.png)',
  '',
  '![dots](../../pat) ![dots3](../../../pat) ![markdown](../markdown) ![abs](/api/pat)',
  '![enc](%2e%2e/%2e%2e/pat) ![enc-upper](%2E%2E/%2E%2E/%2E%2E/pat) ![enc-in](images/%2e%2e/%2e%2e/markdown)',
  '![enc-slash](images%2f..%2f..%2fpat) ![mixed](.%2e/.%2e/pat)',
  // In markdown `\\` is one backslash of the URL; a lone `\` escapes the character after it.
  '![bs](..\\\\..\\\\pat) ![bs-lone](images\\..\\..\\pat) ![bs-enc](..%5C..%5Cpat)',
  '![proto](//evil.example/x.png) ![http](http://images.example/x.png)',
  // http: URLs the browser reads as paths of this http page (http://127.0.0.1:<port>), or on its host.
  '![http-abs](HTTP:/api/pat) ![http-path](http:../markdown) ![same-host](http://127.0.0.1:1/x.png)',
  '',
  'Links: [rel](../markdown) [up](../../pat) [abs](/api/pat) [enc](%2e%2e/%2e%2e/pat) [bs](..\\\\..\\\\pat)',
  '[proto](//evil.example/x) [app](/pat) [device](/device?user_code=ABCD-EFGH) [figure](images/fig1.png)',
  '[external](https://example.org/paper) [section](#a-paper-with-hostile-references).',
  'Device codes: [http-device](http:/device?user_code=ABCD-EFGH) [http-upper](HTTP:/pat) [http-rel](http:pat)',
  '[http-up](http:../../api/pat) [same-host](http://127.0.0.1/device?user_code=ABCD-EFGH).',
  '',
  'Wiki syntax is text here: [[../../api/pat]] and [[concept-qubit]].',
].join('\n');

const deepPage = (id: string, title: string, body: string): string =>
  `---\nid: ${id}\ntitle: ${title}\ntype: concept\ncategory: fixture\ncreated_at: 2026-03-01\n---\n\n${body}\n`;

const DEEP = 10_000;
/** Deep nesting of each kind, written compactly (one line each), between two plain paragraphs. */
const DEEP_PAGES = [
  ['concept-deep-lists', '10 000 nested lists', `${'- '.repeat(DEEP)}innermost item`],
  ['concept-deep-quotes', '10 000 nested quotes', `${'> '.repeat(DEEP)}innermost quote`],
  ['concept-deep-footnotes', '10 000 nested footnotes', `${'[^n]: '.repeat(DEEP)}innermost note`],
  ['concept-deep-emphasis', '10 000 nested emphases', `${'*a '.repeat(DEEP)}innermost${' b*'.repeat(DEEP)}`],
  [
    'concept-deep-matrices',
    '200 nested matrices',
    `$$${'\\begin{matrix}'.repeat(200)}x${'\\end{matrix}'.repeat(200)}$$`,
  ],
  ['concept-deep-images', '5 000 nested images', `${'!['.repeat(5000)}innermost${'](x.png)'.repeat(5000)}`],
  // Lists and emphasis at their bounds, the formula past the group bound (together too deep for React).
  [
    'concept-deep-mixed',
    '100 lists around 1 000 emphases around a formula 1 000 groups deep',
    `${'- '.repeat(100)}${'*a '.repeat(1000)}$${'{'.repeat(1000)}x${'}'.repeat(1000)}$${' b*'.repeat(1000)}`,
  ],
] as const;
/** Nesting the bounds cannot see: macros that would expand to 300 nested matrices (2 400 levels of elements). */
const MACRO_MATRICES = `$$\\def\\B{\\begin{matrix}}\\def\\E{\\end{matrix}}${'\\B '.repeat(300)}x${' \\E'.repeat(300)}$$`;
/** Every bound reached at once, none passed: typeset. */
const AT_THE_BOUNDS = `${'- '.repeat(100)}${'*a '.repeat(1000)}$${'\\frac{'.repeat(40)}x${'}{2}'.repeat(40)}$${' b*'.repeat(1000)} ${'['.repeat(500)}x${'](y)'.repeat(500)}`;
const PAGES = Object.fromEntries([
  ...DEEP_PAGES.map(([id, title, nested]) => [
    `concepts/${id}.md`,
    deepPage(id, title, `Before the nesting.\n\n${nested}\n\nAfter the nesting.`),
  ]),
  ['concepts/concept-at-the-bounds.md', deepPage('concept-at-the-bounds', 'At the bounds', AT_THE_BOUNDS)],
  ['concepts/concept-macro-matrices.md', deepPage('concept-macro-matrices', 'Macro matrices', MACRO_MATRICES)],
]);

describe.skipIf(!CHROMIUM)('web front end: markdown from papers and the wiki', () => {
  const browser = useBrowser();
  let d: Doubles;
  let stack: Stack;
  let w: WebPage;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    d = await startDoubles();
    stack = await startStack(PAGES, accessEnv(d));
    await upload(stack, PAPER, 'pdf', pdfBytes(PAPER));
    await upload(
      stack,
      PAPER,
      'parser',
      makeZip([
        { name: 'full.md', content: HOSTILE_PAPER },
        { name: `images/${HASHED}`, content: FIGURE },
        { name: 'images/fig1.png', content: FIGURE },
      ]),
    );
    w = await openSignedIn(browser(), stack.url);
    w.page.on('pageerror', (e) => pageErrors.push(e.message));
  });
  afterAll(async () => {
    await w?.close();
    await stack?.close();
    await d?.close();
  });

  it('loads only the paper’s own images and shows the other references without requests', async () => {
    const { page } = w;
    const base = `/api/papers/${PAPER}`;
    // The API requests made once the markdown has arrived: those its rendering causes.
    const apiRequests: Request[] = [];
    let markdownArrived = false;
    const record = (r: Request) => {
      if (markdownArrived && new URL(r.url()).pathname.startsWith('/api/')) apiRequests.push(r);
    };
    const arrived = (r: Response) => {
      if (new URL(r.url()).pathname === `${base}/markdown`) markdownArrived = true;
    };
    page.on('request', record);
    page.on('response', arrived);
    await page.goto(`${stack.url}/papers/${PAPER}`);
    const article = page.getByRole('article', { name: `Markdown of ${PAPER}` });
    const figures = article.getByRole('img', { name: /figure$/ });
    await expect
      .poll(() =>
        figures.evaluateAll((imgs) =>
          imgs.map((el) => {
            const img = el as unknown as { alt: string; complete: boolean; naturalWidth: number };
            return [img.alt, img.complete ? img.naturalWidth : 0];
          }),
        ),
      )
      .toEqual([
        ['Hashed figure', 48],
        ['Bare figure', 48],
        ['Dotted figure', 48],
      ]);
    page.off('request', record);
    page.off('response', arrived);
    expect(markdownArrived).toBe(true);
    // The page's own status polls may repeat; nothing else but the two stored figures is asked for.
    const allowed = new Set([
      `${base}/markdown/status`,
      `${base}/pdf/status`,
      `${base}/images/${HASHED}`,
      `${base}/images/fig1.png`,
    ]);
    const paths = apiRequests.map((r) => new URL(r.url()).pathname);
    expect(paths.filter((p) => !allowed.has(p))).toEqual([]);
    // The figures were fetched with the reader's token.
    const images = apiRequests.filter((r) => new URL(r.url()).pathname.startsWith(`${base}/images/`));
    expect(new Set(images.map((r) => new URL(r.url()).pathname))).toEqual(
      new Set([`${base}/images/${HASHED}`, `${base}/images/fig1.png`]),
    );
    for (const r of images) expect((await r.allHeaders())['authorization']).toMatch(/^Bearer /);

    // Every other image is a placeholder and every other link is text.
    expect(await article.locator('.image-missing').allTextContents()).toEqual(
      [
        'dots',
        'dots3',
        'markdown',
        'abs',
        'enc',
        'enc-upper',
        'enc-in',
        'enc-slash',
        'mixed',
        'bs',
        'bs-lone',
        'bs-enc',
        'proto',
        'http-abs',
        'http-path',
        'same-host',
      ].map((alt) => `[image not available: ${alt}]`),
    );
    const links = await article
      .getByRole('link')
      .evaluateAll((as) => as.map((a) => [a.textContent, a.getAttribute('href'), a.getAttribute('rel')] as const));
    expect(links).toEqual([
      ['[external image: http]', 'http://images.example/x.png', 'noopener noreferrer'],
      ['external', 'https://example.org/paper', 'noopener noreferrer'],
      ['section', '#a-paper-with-hostile-references', null],
    ]);
    const linkTexts = ['rel', 'up', 'abs', 'enc', 'bs', 'proto', 'app', 'device', 'figure'];
    for (const text of [...linkTexts, 'http-device', 'http-upper', 'http-rel', 'http-up', 'same-host']) {
      expect(await article.getByText(text, { exact: true }).count(), text).toBe(1);
    }
    await article.getByText('Wiki syntax is text here: [[../../api/pat]] and [[concept-qubit]].').waitFor();
    expect(await screenshotsAndAxe(page, 'paper-hostile-markdown')).toEqual([]);
    expect(w.externalRequests.filter((u) => !u.startsWith(stack.gh.url))).toEqual([]);
  });

  for (const [id, title, nested] of DEEP_PAGES) {
    it(`shows ${title} as text and stays responsive`, async () => {
      const { page } = w;
      await page.goto(`${stack.url}/wiki/${id}`);
      await page.getByRole('heading', { level: 1, name: title }).waitFor();
      const body = page.locator('#wiki-body');
      await body
        .getByText(
          'This document nests lists, block quotes, emphasis, links or formulas too deeply to be typeset; it is shown as plain text.',
        )
        .waitFor();
      expect(await body.locator('pre.markdown-source').textContent()).toBe(
        `Before the nesting.\n\n${nested}\n\nAfter the nesting.`,
      );
      if (id === 'concept-deep-lists') expect(await screenshotsAndAxe(page, id)).toEqual([]);
      // Responsive: the page answers script and the router still navigates.
      expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).document.readyState)).toBe('complete');
      await page.getByRole('link', { name: 'Wiki', exact: true }).first().click();
      await page.waitForURL(`${stack.url}/wiki`);
      expect(pageErrors).toEqual([]);
    });
  }

  it('typesets a document at every bound', async () => {
    const { page } = w;
    await page.goto(`${stack.url}/wiki/concept-at-the-bounds`);
    await page.getByRole('heading', { level: 1, name: 'At the bounds' }).waitFor();
    const body = page.locator('#wiki-body');
    await body.locator('.katex').first().waitFor();
    expect(await body.locator('pre.markdown-source').count()).toBe(0);
    expect(await body.locator('li').count()).toBe(100);
    expect(await body.locator('em').count()).toBe(1000);
    expect(pageErrors).toEqual([]);
  });

  it('shows a formula that defines macros as a KaTeX error, without expanding them', async () => {
    const { page } = w;
    await page.goto(`${stack.url}/wiki/concept-macro-matrices`);
    await page.getByRole('heading', { level: 1, name: 'Macro matrices' }).waitFor();
    const error = page.locator('#wiki-body .katex-error');
    await error.waitFor();
    expect(await error.getAttribute('title')).toMatch(/^ParseError: KaTeX parse error: /);
    expect(await page.locator('#wiki-body .katex').count()).toBe(0);
    await page.getByRole('link', { name: 'Wiki', exact: true }).first().click();
    await page.waitForURL(`${stack.url}/wiki`);
    expect(pageErrors).toEqual([]);
  });

  it('caused no page error, CSP violation or console error', () => {
    expect(pageErrors).toEqual([]);
    expect(w.cspViolations).toEqual([]);
    expect(w.consoleErrors).toEqual([]);
  });
});
