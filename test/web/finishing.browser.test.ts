/**
 * The small things that make the front end feel finished, in a real browser against a real pksd: the API reference
 * at /swagger/index.html renders the OpenAPI document (CONTRACT §8.4); search snippets read as plain text, with
 * mathematics as symbols and wikilinks as page titles (§13.4), and highlighted terms keep their contrast in both
 * colour schemes; the admin UI (§7.9) names each user's identity provider, moves focus on sign-in and fits a phone.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Identity } from '../../src/server/auth/identity.js';
import { openTestIdentity } from '../support/server.js';
import {
  CHROMIUM,
  launchBrowser,
  openPage,
  SCREENSHOT_DIR,
  screenshotsAndAxe,
  type WebPage,
} from './support/browser.js';
import { openSignedIn, startStack, type Stack } from './support/stack.js';

const SNIPPET_PAGE = [
  '---',
  'id: concept-snippet-fixture',
  'title: Snippet fixture',
  'type: concept',
  'category: technique',
  'created_at: 2026-03-01',
  'status: review',
  'tags: [fixture]',
  '---',
  '',
  '# Snippet fixture',
  '',
  // Short enough (< 160 characters) to come back whole as the snippet.
  'A **zymurgyx** makes [[concept-qubit]] states $\\frac{1}{\\sqrt{2}}(|0\\rangle + |1\\rangle)$ in $O(n^2)$;',
  'see [[concept-superposition|this]].',
  '',
].join('\n');

describe.skipIf(!CHROMIUM)('web front end: finishing touches', () => {
  let stack: Stack;
  let browser: Browser;
  let identity: Identity;
  const opened: WebPage[] = [];

  beforeAll(async () => {
    stack = await startStack({ 'concepts/concept-snippet-fixture.md': SNIPPET_PAGE });
    browser = await launchBrowser();
    identity = await openTestIdentity(stack.server.config);
    await identity.superusers.upsert('root@example.org', 'correct horse battery');
  });
  afterAll(async () => {
    for (const o of opened) await o.close();
    identity?.close();
    await browser?.close();
    await stack?.close();
  });

  it('renders the API reference from /swagger/index.html, under the policy the server sends', async () => {
    // The server's own Content-Security-Policy (the UI styles itself inline), not the stricter one of the SPA tests.
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    const doc = page.waitForResponse((r) => new URL(r.url()).pathname === '/swagger/doc.json');
    await page.goto(`${stack.url}/swagger/index.html`);
    expect((await doc).status()).toBe(200);
    await page.getByRole('heading', { name: /pks — paper knowledge service/ }).waitFor();
    await page
      .locator('.opblock-summary-path', { hasText: /^\/api\/health$/ })
      .first()
      .waitFor();
    expect(await page.getByText('Unable to render this definition').count()).toBe(0);
    expect(await page.locator('.opblock').count()).toBeGreaterThan(50);
    await page.screenshot({ path: `${SCREENSHOT_DIR}/swagger-1280-light.png` });
    expect(errors).toEqual([]);
    await context.close();
  });

  it('shows search snippets as plain text: no markdown, LaTeX source or wikilink ids', async () => {
    const w = await openSignedIn(browser, stack.url, '/search?q=zymurgyx');
    opened.push(w);
    const { page } = w;
    const result = page.locator('li.result', { hasText: 'Snippet fixture' });
    await result.waitFor();
    // The linked page is named by its title once the page index has arrived.
    await expect
      .poll(() => result.locator('.snippet').textContent())
      .toBe('Snippet fixture A zymurgyx makes Qubit states 1/√2(|0⟩ + |1⟩) in O(n²); see this.');
    expect(await result.locator('.snippet mark').allTextContents()).toEqual(['zymurgyx']);

    // A sample page: its snippet's mathematics ($\mathbb{C}^2$) reads as text too.
    const qubit = page.locator('li.result', { has: page.getByRole('link', { name: 'Qubit', exact: true }) });
    await page.getByLabel('Search terms').fill('Hilbert');
    await expect.poll(() => qubit.locator('.snippet').textContent()).toContain('Hilbert space ℂ²');
    expect(await qubit.locator('.snippet').textContent()).not.toMatch(/[$\\]|\*\*|\[\[/);
    // Highlighted title terms (and the rest) pass contrast in light and dark.
    await page.getByLabel('Search terms').fill('qubit');
    await qubit.locator('.result-title mark').first().waitFor();
    expect(await screenshotsAndAxe(page, 'search-snippets')).toEqual([]);
    expect(w.cspViolations).toEqual([]);
  });

  it('admin UI: the Provider column is filled, focus moves on sign-in and out, and a phone shows no sideways scroll', async () => {
    // Ada exists once she has signed in through the IdP double (GitHub).
    const ada = await openSignedIn(browser, stack.url, '/');
    opened.push(ada);
    const w = await openPage(browser, stack.url);
    opened.push(w);
    const { page } = w;
    page.on('dialog', (d) => void d.accept());
    await page.goto(`${stack.url}/_/`);
    await page.getByLabel('Email').fill('root@example.org');
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const users = page.locator('#users');
    const row = users.locator('tbody tr', { hasText: 'ada' });
    await row.waitFor();
    const headings = await users.locator('thead th').allTextContents();
    const cells = await row.locator('td').allTextContents();
    expect(cells[headings.indexOf('Provider')]).toBe('github');
    // The form is gone: focus is on the first section, not on <body>.
    await expect.poll(() => page.evaluate<string>("document.activeElement?.id ?? ''")).toBe('users-title');
    expect(await screenshotsAndAxe(page, 'admin')).toEqual([]);

    // On a phone each row is a block of labelled lines.
    await page.setViewportSize({ width: 390, height: 844 });
    const provider = row.locator('td[data-label="Provider"]');
    const display = (td: unknown) =>
      (globalThis as unknown as { getComputedStyle(e: unknown): { display: string } }).getComputedStyle(td).display;
    expect(await provider.evaluate(display)).toBe('block');
    expect(await provider.textContent()).toBe('github');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => page.evaluate<string>("document.activeElement?.id ?? ''")).toBe('login-title');
    expect(w.cspViolations).toEqual([]);
  });
});
