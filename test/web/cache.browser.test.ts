/**
 * Fast loads in a real Chromium against a real pksd (issue 22, item 8): the front end's hashed files arrive
 * precompressed (brotli) and marked immutable, so a reload takes them from the browser cache without asking the
 * server; `index.html` is revalidated on every load (304).
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, SCREENSHOT_DIR, useBrowser } from './support/browser.js';
import { signIn, useStack, WEB_DIST } from './support/stack.js';

interface Seen {
  readonly path: string;
  readonly status: number;
  readonly headers: Record<string, string>;
}

const PAGE = '/wiki/concept-qubit';

describe.skipIf(!CHROMIUM)('web front end: caching', () => {
  const stack = useStack();
  const browser = useBrowser();
  let context: BrowserContext;

  beforeAll(async () => {
    // No `context.route` here (unlike `openPage`): routing switches Chromium's HTTP cache off.
    context = await browser().newContext({ viewport: { width: 1280, height: 900 }, colorScheme: 'light' });
  });
  afterAll(() => context?.close());

  it('a warm reload takes every hashed file from the cache; index.html is revalidated (304)', async () => {
    const page = await context.newPage();
    const seen: Seen[] = [];
    page.on('response', (r) => {
      const url = new URL(r.url());
      if (url.origin === stack().url) seen.push({ path: url.pathname, status: r.status(), headers: r.headers() });
    });
    const rendered = async () => {
      await page.getByRole('heading', { level: 1, name: 'Qubit' }).waitFor();
      await page.locator('#wiki-body .katex').first().waitFor();
    };

    // Cold: signed in, then the page loaded as a document; every script and stylesheet came immutable, brotli-compressed when the build
    // has a compressed copy (files under 1 KiB have none).
    await signIn(page, stack().url, PAGE);
    await page.goto(stack().url + PAGE);
    await rendered();
    const cold = seen.filter((s) => s.path.startsWith('/assets/') && /\.(?:js|css)$/.test(s.path));
    expect(cold.length).toBeGreaterThan(3);
    expect(cold.filter((s) => s.headers['content-encoding'] === 'br').length).toBeGreaterThan(3);
    for (const s of cold) {
      expect([s.path, s.status, s.headers['content-encoding'], s.headers['cache-control']]).toEqual([
        s.path,
        200,
        existsSync(path.join(WEB_DIST, `${s.path}.br`)) ? 'br' : undefined,
        'public, max-age=31536000, immutable',
      ]);
    }
    const coldDocument = seen.findLast((s) => s.path === PAGE);
    expect([coldDocument?.status, coldDocument?.headers['cache-control']]).toEqual([200, 'no-cache']);

    // Warm: a reload asks the server for the document (304) and the API, never for a hashed file. Read through
    // the DevTools protocol, which tells cache hits and revalidations apart.
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    const warm = new Map<string, { path: string; status: number; cached: boolean; bytes: number }>();
    // Sent before the response event of the same request.
    const servedFromCache = new Set<string>();
    cdp.on('Network.requestServedFromCache', ({ requestId }) => servedFromCache.add(requestId));
    cdp.on('Network.responseReceived', ({ requestId, response }) => {
      const url = new URL(response.url);
      if (url.origin !== stack().url) return;
      const cached = response.fromDiskCache === true || servedFromCache.has(requestId);
      warm.set(requestId, { path: url.pathname, status: response.status, cached, bytes: 0 });
    });
    // The status on the wire: a revalidated response is reported as the cached 200 it refreshed.
    const wireStatus = new Map<string, number>();
    cdp.on('Network.responseReceivedExtraInfo', ({ requestId, statusCode }) => wireStatus.set(requestId, statusCode));
    cdp.on('Network.loadingFinished', ({ requestId, encodedDataLength }) => {
      const r = warm.get(requestId);
      if (r) r.bytes = encodedDataLength;
    });
    await page.reload();
    await rendered();
    const responses = [...warm.values()];
    const assets = responses.filter((r) => r.path.startsWith('/assets/'));
    expect(assets.length).toBeGreaterThan(3);
    expect(assets.filter((r) => !r.cached || r.bytes > 0)).toEqual([]);
    const document = [...warm].find(([, r]) => r.path === PAGE);
    expect([document?.[1].cached, wireStatus.get(document?.[0] ?? '')]).toEqual([false, 304]);
    await cdp.detach();

    await mkdir(SCREENSHOT_DIR, { recursive: true });
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'cache-warm-reload-1280-light.png') });
    await page.close();
  });
});
