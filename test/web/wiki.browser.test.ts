/**
 * The wiki in a real browser against a real pksd (CONTRACT §13): overview, list with filters and sorting, a page
 * with KaTeX, wikilinks in all four forms and backlinks, search as you type, sync status and pull.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, openPage, screenshotsAndAxe, type WebPage } from './support/browser.js';
import { signIn, startSignedIn, type SignedInStack, type Stack } from './support/stack.js';
import type { PageGlobals } from './support/page-globals.js';

const fixturePage = (id: string, title: string, body: string, extra = ''): string =>
  `---\nid: ${id}\ntitle: ${title}\ntype: concept\ncategory: technique\ncreated_at: 2026-03-01\nstatus: review\ntags: [fixture]\n${extra}---\n\n# ${title}\n\n${body}\n`;

const PAGES = {
  'concepts/concept-link-forms.md': fixturePage(
    'concept-link-forms',
    'Link forms',
    [
      '## Definition',
      '',
      'A plain link to [[concept-qubit]], one with text to [[concept-superposition|superposition]], one to a section',
      'of this page, [[#Second section]], one to a section of another page, [[concept-fixture-target#Deep section|the deep part]],',
      'and one to a page that does not exist: [[concept-does-not-exist]]. Code keeps its brackets: `[[not-a-link]]`.',
      '',
      'Inline math $E = mc^2$ and a display equation:',
      '',
      '$$\\int_0^1 x\\,dx = \\tfrac{1}{2}$$',
      '',
      '## Second section',
      '',
      'The end.',
    ].join('\n'),
    'related: [concept-fixture-other]\n',
  ),
  'concepts/concept-fixture-target.md': fixturePage(
    'concept-fixture-target',
    'Fixture target',
    `## Definition\n\nA page other pages link to.\n\n${'Filler paragraph.\n\n'.repeat(30)}## Deep section\n\nFar down the page.`,
  ),
  'concepts/concept-fixture-other.md': fixturePage(
    'concept-fixture-other',
    'Fixture other',
    '## Definition\n\nThe craft of zymurgy links to [[concept-fixture-target]].',
  ).replace('status: review', 'status: draft'),
};

describe.skipIf(!CHROMIUM)('web front end: wiki', () => {
  let web: SignedInStack;
  let stack: Stack;
  let browser: Browser;
  let w: WebPage;

  beforeAll(async () => {
    web = await startSignedIn(PAGES);
    ({ stack, browser, w } = web);
  });
  afterAll(() => web?.close());

  it('shows the overview with wiki and paper statistics', async () => {
    const { page } = w;
    await page.goto(`${stack.url}/`);
    await page.getByRole('heading', { name: 'Welcome, Ada Lovelace' }).waitFor();
    const wiki = page.locator('section', { has: page.getByRole('heading', { name: 'Wiki' }) });
    // sample-wiki has 14 entries and 1 source; the fixture adds 3 entries.
    await wiki.getByText('Entries').waitFor();
    expect(await wiki.locator('.stat', { hasText: 'Entries' }).locator('.stat-value').textContent()).toBe('17');
    expect(await wiki.locator('.stat', { hasText: 'Sources' }).locator('.stat-value').textContent()).toBe('1');
    expect(await screenshotsAndAxe(page, 'home', () => page.locator('.stat').first().waitFor())).toEqual([]);
  });

  it('renders a page: frontmatter facts, KaTeX inline and display, wikilinks of all four forms, broken links', async () => {
    const { page } = w;
    await page.goto(`${stack.url}/wiki/concept-link-forms`);
    await page.getByRole('heading', { level: 1, name: 'Link forms' }).waitFor();
    const body = page.locator('#wiki-body');
    // The body's own "# Link forms" is not repeated under the page title.
    expect(await body.locator('h1').count()).toBe(0);
    // KaTeX: one inline and one display formula, each with MathML carrying the TeX source.
    await body.locator('.katex').first().waitFor();
    expect(await body.locator('.katex').count()).toBe(2);
    expect(await body.locator('.katex-display').count()).toBe(1);
    expect(await body.locator('annotation[encoding="application/x-tex"]').allTextContents()).toEqual([
      'E = mc^2',
      '\\int_0^1 x\\,dx = \\tfrac{1}{2}',
    ]);
    // Wikilinks: [[id]] (shown with the page's title), [[id|text]], [[#section]], [[id#section|text]], and a
    // missing target (styled as broken once the page list is in).
    const links = () =>
      body.locator('a.wikilink').evaluateAll((as) =>
        as.map((a) => ({
          text: a.textContent,
          href: a.getAttribute('href'),
          broken: a.classList.contains('broken'),
        })),
      );
    await expect.poll(links).toEqual([
      { text: 'Qubit', href: '/wiki/concept-qubit', broken: false },
      { text: 'superposition', href: '/wiki/concept-superposition', broken: false },
      { text: 'Second section', href: '#second-section', broken: false },
      { text: 'the deep part', href: '/wiki/concept-fixture-target#deep-section', broken: false },
      { text: 'concept-does-not-exist', href: '/wiki/concept-does-not-exist', broken: true },
    ]);
    await expect.poll(() => body.locator('a.wikilink.broken').count()).toBe(1);
    expect(await body.locator('code').textContent()).toBe('[[not-a-link]]');
    // Facts from the frontmatter.
    const facts = page.locator('section', { has: page.getByRole('heading', { name: 'About this page' }) });
    expect(await facts.locator('dd').first().textContent()).toBe('concept-link-forms');
    expect(await facts.getByText('Mar 1, 2026').count()).toBe(1);
    expect(await page.locator('#related-list').getByRole('link').allTextContents()).toEqual(['Fixture other']);
    expect(await screenshotsAndAxe(page, 'wiki-page-links')).toEqual([]);

    await page.getByRole('link', { name: 'superposition', exact: true }).click();
    await page.waitForURL(`${stack.url}/wiki/concept-superposition`);
    await page.getByRole('heading', { level: 1, name: 'Superposition' }).waitFor();
    await page.goBack();
    await page.getByRole('link', { name: 'the deep part' }).click();
    await page.waitForURL(`${stack.url}/wiki/concept-fixture-target#deep-section`);
    const deep = page.locator('#deep-section');
    await deep.waitFor();
    // Scrolled into view (the section is near the end, so the page cannot scroll it to the very top).
    await expect
      .poll(() =>
        deep.evaluate((el) => {
          const r = el.getBoundingClientRect();
          const win = globalThis as unknown as PageGlobals;
          return win.scrollY > 0 && r.top >= 0 && r.bottom <= win.innerHeight;
        }),
      )
      .toBe(true);
  });

  it('lists the backlinks of a page', async () => {
    const { page } = w;
    await page.goto(`${stack.url}/wiki/concept-fixture-target`);
    const list = page.locator('#backlinks-list');
    await list.waitFor();
    // In id order, as the server lists them; titles once the page index has come (ids until then).
    await expect.poll(() => list.getByRole('link').allTextContents()).toEqual(['Fixture other', 'Link forms']);
    expect(await list.getByRole('link').evaluateAll((as) => as.map((a) => a.getAttribute('href')))).toEqual([
      '/wiki/concept-fixture-other',
      '/wiki/concept-link-forms',
    ]);
  });

  it('renders a sample page with many formulas and a contents list', async () => {
    const { page } = w;
    await page.goto(`${stack.url}/wiki/concept-qubit`);
    await page.getByRole('heading', { level: 1, name: 'Qubit' }).waitFor();
    await page.locator('#wiki-body .katex-display').first().waitFor();
    expect(await page.locator('#wiki-body .katex').count()).toBeGreaterThan(5);
    expect(await page.getByRole('navigation', { name: 'On this page' }).getByRole('link').allTextContents()).toContain(
      'Measurement',
    );
    expect(await screenshotsAndAxe(page, 'wiki-page-math')).toEqual([]);
  });

  it('shows a missing page as such', async () => {
    const { page } = w;
    await page.goto(`${stack.url}/wiki/concept-does-not-exist`);
    await page.getByRole('heading', { level: 1, name: 'No page “concept-does-not-exist”' }).waitFor();
    expect(await screenshotsAndAxe(page, 'wiki-page-missing')).toEqual([]);
  });

  it('finds a page by a word of its body as you type, with the word highlighted', async () => {
    const { page } = w;
    await page.goto(`${stack.url}/search`);
    await page.getByLabel('Search terms').pressSequentially('zymurg', { delay: 30 });
    await page.getByLabel('Search terms').press('y');
    const results = page.locator('.result');
    await expect.poll(() => results.locator('.result-title').allTextContents()).toEqual(['Fixture other']);
    expect(await results.locator('.snippet mark').allTextContents()).toEqual(['zymurgy']);
    expect(await page.locator('#search-count').textContent()).toBe('1 page matches.');
    expect(page.url()).toBe(`${stack.url}/search?q=zymurgy`);
    expect(await screenshotsAndAxe(page, 'search')).toEqual([]);
    await results.getByRole('link', { name: 'Fixture other' }).click();
    await page.waitForURL(`${stack.url}/wiki/concept-fixture-other`);
  });

  it('lists pages with filters and sorting kept in the address', async () => {
    const { page } = w;
    await page.goto(`${stack.url}/wiki`);
    await page.locator('.page-row').first().waitFor();
    expect(await page.locator('#page-count').textContent()).toBe('17 pages');
    expect(await screenshotsAndAxe(page, 'wiki-list')).toEqual([]);

    await page.getByLabel('Tags (any of, comma-separated)').fill('fixture');
    await page.getByLabel('Tags (any of, comma-separated)').press('Enter');
    await expect
      .poll(() => page.locator('.page-row-title').allTextContents())
      .toEqual(['Fixture other', 'Fixture target', 'Link forms']);
    await page.getByLabel('Sort by').selectOption('id');
    await page.getByRole('button', { name: 'Sort descending' }).click();
    await expect
      .poll(() => page.locator('.page-row-title').allTextContents())
      .toEqual(['Link forms', 'Fixture target', 'Fixture other']);
    await page.getByLabel('Status').selectOption('draft');
    await expect.poll(() => page.locator('.page-row-title').allTextContents()).toEqual(['Fixture other']);
    expect(new URL(page.url()).searchParams.toString()).toBe('tags=fixture&sort=id&dir=desc&status=draft');
    await page.getByLabel('Type').selectOption('source');
    await page.getByText('No page matches these filters.').waitFor();
  });

  it('shows the checkout state and pulls new commits from upstream', async () => {
    const { page } = w;
    await page.goto(`${stack.url}/wiki`);
    const panel = page.locator('.sync-panel');
    await panel.getByText('clean').waitFor();
    expect(await panel.locator('dd').first().textContent()).toBe('main → origin/main');
    const before = await stack.wiki.head(stack.wiki.wiki);
    const after = await stack.wiki.publish({
      'concepts/concept-pulled-page.md': fixturePage('concept-pulled-page', 'Pulled page', 'Pulled from upstream.'),
    });
    await panel.getByRole('button', { name: 'Pull from upstream' }).click();
    await panel.getByText(`Updated ${before.slice(0, 7)} → ${after.slice(0, 7)}.`).waitFor();
    await page.getByLabel('Title or id contains').fill('pulled');
    await expect.poll(() => page.locator('.page-row-title').allTextContents()).toEqual(['Pulled page']);
    expect(await screenshotsAndAxe(page, 'wiki-list-pulled')).toEqual([]);
  });

  it('loads KaTeX, the editor and the graph library only on the pages that need them', async () => {
    const fresh = await openPage(browser, stack.url);
    try {
      const scripts: string[] = [];
      fresh.page.on('request', (r) => {
        if (r.resourceType() === 'script') scripts.push(new URL(r.url()).pathname);
      });
      await signIn(fresh.page, stack.url, '/');
      await fresh.page.goto(`${stack.url}/`, { waitUntil: 'networkidle' });
      await fresh.page.getByRole('heading', { name: 'Welcome, Ada Lovelace' }).waitFor();
      expect(scripts.filter((s) => /Markdown|GraphView|GraphPage|CypherEditor/.test(s))).toEqual([]);
      await fresh.page.goto(`${stack.url}/wiki/concept-qubit`);
      await fresh.page.locator('#wiki-body .katex').first().waitFor();
      expect(scripts.some((s) => /\/assets\/Markdown-[\w-]+\.js$/.test(s))).toBe(true);
      expect(scripts.filter((s) => /GraphView|GraphPage/.test(s))).toEqual([]);
    } finally {
      await fresh.close();
    }
  });

  it('works from the keyboard: skip link first, visible focus, focus moves to the new page', async () => {
    const { page } = w;
    type Focused = { textContent: string | null; id: string; tagName: string };
    const focused = () =>
      page.locator(':focus').evaluate((el) => {
        const e = el as unknown as Focused;
        const style = (
          globalThis as unknown as { getComputedStyle(e: unknown): { outlineStyle: string } }
        ).getComputedStyle(el);
        return { text: e.textContent, id: e.id, tag: e.tagName, outline: style.outlineStyle };
      });
    await page.goto(`${stack.url}/wiki/concept-link-forms`);
    await page.getByRole('heading', { level: 1, name: 'Link forms' }).waitFor();
    await page.keyboard.press('Tab');
    expect(await focused()).toEqual({ text: 'Skip to content', id: '', tag: 'A', outline: 'solid' });
    expect(await page.getByRole('link', { name: 'Skip to content' }).isVisible()).toBe(true);
    await page.keyboard.press('Enter');
    expect((await focused()).id).toBe('main');
    // The next Tab stops are the article's links, the first one the breadcrumb.
    await page.keyboard.press('Tab');
    expect(await focused()).toMatchObject({ text: 'Wiki', tag: 'A', outline: 'solid' });
    // Following a link by keyboard moves focus to the new page's content.
    const link = page.getByRole('link', { name: 'superposition', exact: true });
    await link.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Superposition' }).waitFor();
    await expect.poll(async () => (await focused()).id).toBe('main');
  });

  it('caused no CSP violation, console error or request to another host', () => {
    expect(w.cspViolations).toEqual([]);
    // The missing page's 404 is the one failed request the tests asked for.
    expect(w.consoleErrors.filter((e) => !e.endsWith('/api/pages/concept-does-not-exist'))).toEqual([]);
    expect(w.externalRequests.filter((u) => !u.startsWith(stack.gh.url))).toEqual([]);
  });
});
