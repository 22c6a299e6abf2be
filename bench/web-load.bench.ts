/**
 * Fast-loads benchmark (issue 22, item 8; run: `npx vite build --config web/vite.config.ts` or `npm run build`, then
 * `npx vitest run --config bench/support/vitest.config.ts web-load`).
 *
 * A real pksd serves the built front end (`web/dist`, or `PKS_TEST_WEB_DIST`) and the sample wiki plus a page with
 * ten display equations; Debian Chromium (playwright-core), signed in through the GitHub IdP double, with its HTTP
 * cache on (no request interception). Bytes are what crossed the wire (headers included), read from the DevTools
 * protocol (`Network.loadingFinished`), same origin only:
 * - a cold wiki page load (fresh cache: document, scripts, styles, KaTeX fonts, API answers; target < 350 KB);
 * - a warm reload of the same page (target < 20 KB);
 * - the first page's JavaScript and CSS as sent (brotli) and gzip -9 (target < 200 KB);
 * - navigation to the 10-equation page until all ten are rendered, cold and warm, median of 9 (target < 500 ms).
 * Prints the figures; targets are reported, not asserted.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { CHROMIUM, launchBrowser } from '../test/web/support/browser.js';
import { openSignedIn, startStack, type Stack } from '../test/web/support/stack.js';
import type { PageGlobals } from '../test/web/support/page-globals.js';
import { median, percentile } from './support/load.js';
import { MATH_PAGE, MATH_SOURCE, scriptAndStyleBodies } from './support/web.js';
import { machine, report, verdict } from './support/papers-util.js';

const RUNS = 9;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
let stack: Stack;
let browser: Browser;
let storageState: Awaited<ReturnType<BrowserContext['storageState']>>;

beforeAll(async () => {
  stack = await startStack({ [`concepts/${MATH_PAGE}.md`]: MATH_SOURCE });
  browser = await launchBrowser();
  const w = await openSignedIn(browser, stack.url);
  storageState = await w.context.storageState();
  await w.close();
  report(`web-load: ${machine()}`);
});

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

/** A signed-in context with an empty HTTP cache and no request interception (which would switch the cache off). */
const freshContext = () =>
  browser.newContext({ viewport: { width: 1280, height: 900 }, storageState, serviceWorkers: 'block' });

interface Transfer {
  readonly path: string;
  readonly type: string;
  readonly encoding: string;
  /** Bytes on the wire, headers included (0 for a cache hit). */
  readonly bytes: number;
}

/** Records what each same-origin request of `page` transferred, until the returned function is called. */
async function recordTransfers(context: BrowserContext, page: Page): Promise<() => Promise<Transfer[]>> {
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  const seen = new Map<string, { path: string; type: string; encoding: string }>();
  const done: Transfer[] = [];
  cdp.on('Network.responseReceived', ({ requestId, response, type }) => {
    const url = new URL(response.url);
    if (url.origin !== stack.url) return;
    const encoding = Object.entries(response.headers).find(([k]) => k.toLowerCase() === 'content-encoding')?.[1];
    seen.set(requestId, { path: url.pathname, type, encoding: encoding ?? '' });
  });
  cdp.on('Network.loadingFinished', ({ requestId, encodedDataLength }) => {
    const r = seen.get(requestId);
    if (r) done.push({ ...r, bytes: encodedDataLength });
  });
  return async () => {
    await cdp.detach();
    return done;
  };
}

type Ready = () => number | false;
// Predicates are functions (run through the DevTools protocol): a string would be eval'd, which the CSP forbids.
const TEN_RENDERED: Ready = () =>
  (globalThis as unknown as PageGlobals).document.querySelectorAll('#wiki-body .katex-display').length >= 10 &&
  performance.now();

async function loadUntilRendered(page: Page, url: string): Promise<number> {
  await page.goto(url, { waitUntil: 'commit' });
  const handle = await page.waitForFunction(TEN_RENDERED, undefined, { polling: 'raf', timeout: 30_000 });
  const t = (await handle.jsonValue()) as number;
  // Fonts and late requests: nothing in flight for 500 ms.
  await page.waitForLoadState('networkidle');
  return t;
}

const sum = (ts: readonly Transfer[]) => ts.reduce((n, t) => n + t.bytes, 0);

test.skipIf(!CHROMIUM)('fast loads benchmark', async () => {
  const url = `${stack.url}/wiki/${MATH_PAGE}`;

  // 1 and 2. Cold load and warm reload of the 10-equation page.
  const ctx = await freshContext();
  const page = await ctx.newPage();
  let stop = await recordTransfers(ctx, page);
  await loadUntilRendered(page, url);
  const cold = await stop();
  stop = await recordTransfers(ctx, page);
  await page.reload({ waitUntil: 'commit' });
  await page.waitForFunction(TEN_RENDERED, undefined, { polling: 'raf', timeout: 30_000 });
  await page.waitForLoadState('networkidle');
  const warm = await stop();
  await ctx.close();

  const byType = (ts: readonly Transfer[]) =>
    [...new Set(ts.map((t) => t.type))]
      .map((type) => ts.filter((t) => t.type === type))
      .map((xs) => `${xs[0]!.type} ${kb(sum(xs))} (${xs.length})`)
      .join(', ');
  const largest = [...cold]
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, 5)
    .map((t) => `${t.path.replace(/^\/assets\//, '')} ${kb(t.bytes)}${t.encoding ? ` ${t.encoding}` : ''}`)
    .join(', ');
  const coldBytes = sum(cold);
  const warmBytes = sum(warm);
  report(
    `cold load of a wiki page with 10 equations: ${kb(coldBytes)} in ${cold.length} requests — ` +
      `${verdict(coldBytes < 350 * 1024)} < 350 KB; by type: ${byType(cold)}; largest: ${largest}`,
  );
  report(
    `warm reload: ${kb(warmBytes)} in ${warm.length} requests (${warm.filter((t) => t.bytes === 0).length} from the ` +
      `cache) — ${verdict(warmBytes < 20 * 1024)} < 20 KB; by type: ${byType(warm.filter((t) => t.bytes > 0))}`,
  );
  expect(cold.some((t) => t.encoding === 'br')).toBe(true);

  // 3. The first page (the overview): its scripts and styles as sent, and gzip -9 of their bytes.
  const first = await freshContext();
  const home = await first.newPage();
  const bodies = scriptAndStyleBodies(home, stack.url);
  stop = await recordTransfers(first, home);
  await home.goto(`${stack.url}/`, { waitUntil: 'networkidle' });
  await home.getByRole('heading', { name: /^Welcome/ }).waitFor();
  const sent = (await stop()).filter((t) => t.type === 'Script' || t.type === 'Stylesheet');
  let gz = 0;
  for (const body of bodies.values()) gz += gzipSync(await body, { level: 9 }).length;
  await first.close();
  report(
    `first page (/) JS + CSS: ${kb(gz)} gzip -9 — ${verdict(gz < 200 * 1024)} < 200 KB; ` +
      `${kb(sum(sent))} as sent (brotli, headers included, ${sent.length} files)`,
  );

  // 4. Navigation to the 10-equation page until all ten are rendered: cold (fresh cache) and warm.
  const coldMs: number[] = [];
  const warmMs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const c = await freshContext();
    const p = await c.newPage();
    coldMs.push(await loadUntilRendered(p, url));
    warmMs.push(await loadUntilRendered(p, url));
    await c.close();
  }
  const p90 = (xs: readonly number[]) =>
    percentile(
      [...xs].sort((a, b) => a - b),
      0.9,
    );
  report(
    `navigation → 10 equations rendered: cold median ${median(coldMs).toFixed(0)} ms (p90 ${p90(coldMs).toFixed(0)}), ` +
      `warm median ${median(warmMs).toFixed(0)} ms (p90 ${p90(warmMs).toFixed(0)}) — ` +
      `${verdict(median(coldMs) < 500)} < 500 ms`,
  );
});
