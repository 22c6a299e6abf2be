/**
 * The browser side of the web front-end tests: Debian Chromium through playwright-core, the strict
 * Content-Security-Policy added to every document response, CSP-violation capture, axe-core checks and the
 * screenshot matrix (1280 px and 390 px, light and dark).
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { useFixture } from '../../support/fixture.js';
import { REPO_ROOT } from '../../support/server.js';
import type { PageGlobals } from './page-globals.js';

export const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((p) =>
  existsSync(p),
);

/**
 * The policy the pages are tested under: the one the server is going to send, without even `'unsafe-inline'` for
 * styles (the front end needs none: no inline script, no eval, no other host, no inline style element or attribute).
 */
export const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; frame-ancestors 'none'";

export const SCREENSHOT_DIR = path.join(REPO_ROOT, '.cache/screenshots/web');

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM!, args: ['--no-sandbox'] });
}

/** Chromium for the tests of the calling `describe`: launched before them, closed after them. */
export function useBrowser(): () => Browser {
  return useFixture('Chromium', launchBrowser, (browser) => browser.close());
}

export interface WebPage {
  readonly page: Page;
  readonly context: BrowserContext;
  /** CSP violations and other console errors seen so far. */
  readonly cspViolations: string[];
  readonly consoleErrors: string[];
  /** Requests to any host other than the server under test. */
  readonly externalRequests: string[];
  /** Drops the routes (letting requests in flight finish quietly) and closes the context. */
  close(): Promise<void>;
}

/**
 * A fresh context (own storage) whose documents from `baseUrl` carry the CSP header. `routes` run before the
 * pages' own requests and may answer API calls with contract-shaped bodies.
 */
export async function openPage(
  browser: Browser,
  baseUrl: string,
  viewport = { width: 1280, height: 900 },
): Promise<WebPage> {
  const context = await browser.newContext({ viewport, colorScheme: 'light' });
  const cspViolations: string[] = [];
  const consoleErrors: string[] = [];
  const externalRequests: string[] = [];
  const origin = new URL(baseUrl).origin;
  await context.route(
    (url) => url.origin === origin && !url.pathname.startsWith('/api/') && !url.pathname.startsWith('/assets/'),
    async (route) => {
      const response = await route.fetch();
      const headers = { ...response.headers(), 'content-security-policy': CSP };
      await route.fulfill({ response, headers });
    },
  );
  const page = await context.newPage();
  page.on('request', (r) => {
    const u = r.url();
    if (!u.startsWith(origin) && !u.startsWith('blob:') && !u.startsWith('data:')) externalRequests.push(u);
  });
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    const text = m.text();
    if (/Content Security Policy/i.test(text)) cspViolations.push(text);
    else consoleErrors.push(`${text} ${m.location().url}`.trim());
  });
  await page.exposeFunction('__pksCspViolation', (text: string) => cspViolations.push(text));
  await page.addInitScript(() => {
    const win = globalThis as unknown as PageGlobals;
    win.document.addEventListener('securitypolicyviolation', (e) => {
      const report = win['__pksCspViolation'] as (t: string) => Promise<void>;
      void report(`${e.violatedDirective} blocked ${e.blockedURI || 'inline'} (${e.sourceFile}:${e.lineNumber})`);
    });
  });
  const close = async () => {
    await context.unrouteAll({ behavior: 'ignoreErrors' });
    await context.close();
  };
  return { page, context, cspViolations, consoleErrors, externalRequests, close };
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/** axe-core's serious and critical violations on the page as it is now. */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  // Evaluated through the DevTools protocol, which the page's CSP does not govern.
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: {
          run: (
            ctx: unknown,
            opts: object,
          ) => Promise<{
            violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[];
          }>;
        };
      }
    ).axe;
    const result = await axe.run((globalThis as unknown as PageGlobals).document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => JSON.stringify(n.target)),
    }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

const VIEWPORTS = [
  { width: 1280, height: 900 },
  { width: 390, height: 844 },
] as const;

/** How many CSS pixels the page is wider than the viewport (0 when nothing scrolls sideways). */
const sidewaysOverflow = (page: Page): Promise<number> =>
  page.evaluate(() => {
    const root = (globalThis as unknown as PageGlobals).document.documentElement;
    return root.scrollWidth - root.clientWidth;
  });

/**
 * Screenshots of the current page at both widths in both colour schemes (`<name>-<width>-<scheme>.png`), with
 * axe-core run in each and a check that nothing scrolls sideways (also at 360 px); `ready` is awaited after every
 * change so the picture shows the settled page. Returns the problems found (empty when all is well).
 */
export async function screenshotsAndAxe(
  page: Page,
  name: string,
  ready: () => Promise<unknown> = async () => undefined,
): Promise<{ shot: string; violations: AxeViolation[] }[]> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  const found: { shot: string; violations: AxeViolation[] }[] = [];
  const original = page.viewportSize();
  const settle = () =>
    page.evaluate(() => {
      const raf = (globalThis as unknown as PageGlobals).requestAnimationFrame;
      return new Promise((r) => raf(() => raf(r)));
    });
  for (const viewport of VIEWPORTS) {
    await page.setViewportSize(viewport);
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await ready();
      // Let layout settle after the change (two animation frames).
      await settle();
      const shot = `${name}-${viewport.width}-${colorScheme}.png`;
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, shot), fullPage: true });
      const violations = await seriousAxeViolations(page);
      const overflow = await sidewaysOverflow(page);
      if (overflow > 0) {
        violations.push({
          id: 'sideways-overflow',
          impact: 'serious',
          help: `${overflow} px wider than the viewport`,
          nodes: [],
        });
      }
      if (violations.length) found.push({ shot, violations });
    }
  }
  await page.setViewportSize({ width: 360, height: 740 });
  await settle();
  const narrow = await sidewaysOverflow(page);
  if (narrow > 0) {
    found.push({
      shot: `${name}-360 (not saved)`,
      violations: [{ id: 'sideways-overflow', impact: 'serious', help: `${narrow} px wider than 360 px`, nodes: [] }],
    });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  if (original) await page.setViewportSize(original);
  return found;
}
