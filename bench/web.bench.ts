/**
 * Web front-end benchmark (run: `npm run build && npx vitest run --config bench/support/vitest.config.ts web`).
 *
 * A real pksd serves the built front end (`web/dist`) and a generated 10,000-page wiki plus one page with ten
 * display equations; Debian Chromium (playwright-core) signs in through the GitHub IdP double and measures:
 * - the first page's JavaScript and CSS, gzip-compressed (target < 200 KB), against the whole build's;
 * - navigation to a rendered 10-equation wiki page, cold (fresh browser cache) and warm (target < 500 ms), against
 *   navigation to a static file of the same server;
 * - frames per second while the 10,000-page list scrolls (target ≥ 50 fps), against the idle frame rate.
 * Prints the figures and peak RSS; targets are reported, not asserted.
 */
import { readdir, readFile, rm, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startTestServer, type TestServer } from '../test/support/server.js';
import { startGitHubDouble, type GitHubDouble } from '../test/support/upstreams/github.js';
import { CHROMIUM, launchBrowser } from '../test/web/support/browser.js';
import { ensureWebBuild, openSignedIn, WEB_DIST } from '../test/web/support/stack.js';
import { generateWiki } from '../test/wiki/generate.js';
import { median, peakRssMiB, percentile } from './support/load.js';
import { MATH_PAGE, MATH_SOURCE, scriptAndStyleBodies } from './support/web.js';
import type { PageGlobals } from '../test/web/support/page-globals.js';
import { machine } from './support/papers-util.js';

const PAGES = 10_000;
const RENDER_RUNS = 12;
const SCROLL_MS = 4_000;

const lines: string[] = [];
const report = (line: string) => {
  lines.push(line);
  console.log(line);
};
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const verdict = (ok: boolean) => (ok ? 'meets target' : 'MISSES target');
let base: string;
let gh: GitHubDouble;
let server: TestServer;
let browser: Browser;
let storageState: Awaited<ReturnType<BrowserContext['storageState']>>;

beforeAll(async () => {
  await ensureWebBuild();
  base = await mkdtemp(path.join(os.tmpdir(), 'pks-web-bench-'));
  const wikiDir = path.join(base, 'wiki');
  await generateWiki(wikiDir, PAGES - 1, { sourceEvery: 0 });
  await writeFile(path.join(wikiDir, 'concepts', `${MATH_PAGE}.md`), MATH_SOURCE);
  gh = await startGitHubDouble({ id: 7, login: 'bench', name: 'Bench', email: 'bench@example.org', avatar_url: '' });
  server = await startTestServer(
    { ...gh.env, SVC_ALLOWED_IDP_LOGINS: 'bench', SVC_WIKI_DIR: wikiDir, SVC_LOG_LEVEL: 'warn' },
    { webRoot: WEB_DIST },
  );
  browser = await launchBrowser();
  const w = await openSignedIn(browser, server.url);
  storageState = await w.context.storageState();
  await w.close();
  report(`${PAGES} wiki pages; ${machine()}`);
});

afterAll(async () => {
  report(`peak RSS (benchmark process): ${peakRssMiB().toFixed(0)} MiB`);
  await browser?.close();
  await server?.close();
  await gh?.close();
  if (base) await rm(base, { recursive: true, force: true });
});

/** A fresh context (empty HTTP cache) holding the signed-in session. */
const freshContext = () =>
  browser.newContext({ viewport: { width: 1280, height: 900 }, storageState, serviceWorkers: 'block' });

test.skipIf(!CHROMIUM)('web front-end benchmark', async () => {
  // 1. First page: every script and stylesheet the overview loads, gzip -9 each (what a compressing proxy sends).
  const ctx = await freshContext();
  const page = await ctx.newPage();
  const assets = scriptAndStyleBodies(page, server.url);
  await page.goto(`${server.url}/`, { waitUntil: 'networkidle' });
  await page.getByRole('heading', { name: 'Welcome, Bench' }).waitFor();
  let js = 0;
  let css = 0;
  let raw = 0;
  const names: string[] = [];
  for (const [url, body] of assets) {
    const bytes = await body;
    const gz = gzipSync(bytes, { level: 9 }).length;
    raw += bytes.length;
    if (url.endsWith('.css')) css += gz;
    else js += gz;
    names.push(path.basename(new URL(url).pathname));
  }
  let buildGz = 0;
  for (const f of await readdir(path.join(WEB_DIST, 'assets'))) {
    if (f.endsWith('.js') || f.endsWith('.css'))
      buildGz += gzipSync(await readFile(path.join(WEB_DIST, 'assets', f)), { level: 9 }).length;
  }
  const first = js + css;
  report(
    `first page (/): ${kb(first)} gzipped (JS ${kb(js)}, CSS ${kb(css)}; ${kb(raw)} raw, ${assets.size} files) — ` +
      `${verdict(first < 200 * 1024)} < 200 KB; ${((first / buildGz) * 100).toFixed(0)} % of the whole build (${kb(buildGz)})`,
  );
  expect(names.some((n) => /katex|Markdown|GraphView|GraphPage|cytoscape/i.test(n))).toBe(false);
  await ctx.close();

  // 2. Navigation → ten rendered equations, cold and warm, against a static file of the same server.
  // Predicates are functions (run through the DevTools protocol): a string would be eval'd, which the CSP forbids.
  type Ready = () => number | false;
  const renderOnce = async (c: BrowserContext, url: string, ready: Ready): Promise<number> => {
    const p = await c.newPage();
    await p.goto(url, { waitUntil: 'commit' });
    const handle = await p.waitForFunction(ready, undefined, { polling: 'raf', timeout: 30_000 });
    const t = (await handle.jsonValue()) as number;
    await p.close();
    return t;
  };
  const TEN: Ready = () =>
    (globalThis as unknown as PageGlobals).document.querySelectorAll('#wiki-body .katex-display').length >= 10 &&
    performance.now();
  const STATIC: Ready = () =>
    (globalThis as unknown as PageGlobals).document.readyState === 'complete' && performance.now();
  const cold: number[] = [];
  const warm: number[] = [];
  const baseline: number[] = [];
  for (let i = 0; i < RENDER_RUNS; i++) {
    const c = await freshContext();
    cold.push(await renderOnce(c, `${server.url}/wiki/${MATH_PAGE}`, TEN));
    warm.push(await renderOnce(c, `${server.url}/wiki/${MATH_PAGE}`, TEN));
    baseline.push(await renderOnce(c, `${server.url}/favicon.svg`, STATIC));
    await c.close();
  }
  const coldMs = median(cold);
  const warmMs = median(warm);
  report(
    `10-equation page rendered: cold median ${coldMs.toFixed(0)} ms (p90 ${percentile(
      [...cold].sort((a, b) => a - b),
      0.9,
    ).toFixed(0)}), ` +
      `warm median ${warmMs.toFixed(0)} ms — ${verdict(coldMs < 500)} < 500 ms; static file ${median(baseline).toFixed(0)} ms; ` +
      `ratio cold/static ${(coldMs / median(baseline)).toFixed(1)}`,
  );

  // 3. Scrolling the 10,000-page list: frames per second while scrolling at ~6,000 px/s, against idle.
  const c = await freshContext();
  const list = await c.newPage();
  await list.goto(`${server.url}/wiki`);
  await list.getByText(`${PAGES.toLocaleString('en')} pages`).waitFor({ timeout: 30_000 });
  const measure = (scroll: boolean) =>
    list.evaluate(
      ({ duration, scroll }) =>
        new Promise<{ frames: number; seconds: number; worst: number; p95: number; scrolled: number }>((resolve) => {
          const times: number[] = [];
          const start = performance.now();
          const win = globalThis as unknown as PageGlobals;
          const startY = win.scrollY;
          const tick = (now: number) => {
            times.push(now);
            if (scroll) win.scrollBy(0, 100);
            if (now - start < duration) win.requestAnimationFrame(tick);
            else {
              const gaps = times
                .slice(1)
                .map((t, i) => t - times[i]!)
                .sort((a, b) => a - b);
              resolve({
                frames: times.length - 1,
                seconds: (times.at(-1)! - times[0]!) / 1000,
                worst: gaps.at(-1) ?? 0,
                p95: gaps[Math.floor(gaps.length * 0.95)] ?? 0,
                scrolled: win.scrollY - startY,
              });
            }
          };
          win.requestAnimationFrame(tick);
        }),
      { duration: SCROLL_MS, scroll },
    );
  const idle = await measure(false);
  const scrolling = await measure(true);
  const idleFps = idle.frames / idle.seconds;
  const fps = scrolling.frames / scrolling.seconds;
  const rows = await list.locator('.page-row').count();
  report(
    `list scroll: ${fps.toFixed(1)} fps over ${(scrolling.scrolled / 1000).toFixed(0)}k px (p95 frame ${scrolling.p95.toFixed(1)} ms, ` +
      `worst ${scrolling.worst.toFixed(1)} ms; ${rows} rows in the DOM) — ${verdict(fps >= 50)} ≥ 50 fps; idle ${idleFps.toFixed(1)} fps; ` +
      `ratio ${(fps / idleFps).toFixed(2)}`,
  );
  expect(scrolling.scrolled).toBeGreaterThan(10_000);
  expect(rows).toBeLessThan(100);
  await c.close();
});
