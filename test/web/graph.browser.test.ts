/**
 * The graph explorer and a wiki page's neighbourhood in a real browser (CONTRACT §14). The graph routes are
 * answered by `page.route` with contract-shaped bodies until the server registers them; the rest is a real pksd.
 */
import type { Browser, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, launchBrowser, openPage, screenshotsAndAxe, type WebPage } from './support/browser.js';
import { signIn, startStack, type Stack } from './support/stack.js';

const node = (id: string, label: string, properties: Record<string, unknown>) => ({ id, labels: [label], properties });
const SHOR = node('4:a:1', 'Algorithm', { wiki_id: 'algo-shors-algorithm', title: "Shor's algorithm", source: 'wiki' });
const QPE = node('4:a:2', 'Primitive', {
  wiki_id: 'prim-phase-estimation',
  title: 'Quantum phase estimation',
  source: 'wiki',
});
const QFT = node('4:a:3', 'Primitive', {
  wiki_id: 'prim-quantum-fourier-transform',
  title: 'Quantum Fourier transform',
  source: 'wiki',
});
const rel = (id: string, from: string, to: string) => ({
  id,
  type: 'DEPENDS_ON',
  start_node: from,
  end_node: to,
  properties: { source: 'wiki' },
});

const json = (route: Route, body: unknown, status = 200) =>
  route.fulfill({ status, contentType: 'application/json', body: JSON.stringify(body) });

/** Answers /api/server/info (graph configured) and the three graph routes; returns the query bodies received. */
async function fakeGraph(page: Page): Promise<{ query: string; limit: number }[]> {
  const queries: { query: string; limit: number }[] = [];
  await page.route('**/api/server/info', async (route) => {
    const real = (await (await route.fetch()).json()) as Record<string, unknown>;
    await json(route, { ...real, graph_configured: true });
  });
  await page.route('**/api/graph/stats', (route) =>
    json(route, {
      nodes: 3,
      relationships: 2,
      labels: ['Algorithm', 'Primitive'],
      label_counts: { Algorithm: 1, Primitive: 2 },
    }),
  );
  await page.route('**/api/graph/schema', (route) =>
    json(route, {
      labels: ['Algorithm', 'Primitive'],
      relationship_types: ['DEPENDS_ON'],
      property_keys: ['source', 'title', 'wiki_id'],
    }),
  );
  await page.route('**/api/graph/query', (route) => {
    const body = route.request().postDataJSON() as { query: string; limit: number };
    queries.push(body);
    if (/LOAD\s+CSV/i.test(body.query)) return json(route, { detail: 'LOAD CSV is not allowed in graph queries' }, 400);
    if (/CREATE/i.test(body.query)) {
      return json(route, { query: body.query, error: 'Writing in read access mode not allowed.' });
    }
    return json(route, {
      query: `${body.query}\nLIMIT ${body.limit}`,
      columns: ['a', 'r', 'p'],
      records: [
        { a: SHOR, r: rel('5:r:1', SHOR.id, QPE.id), p: QPE },
        { a: SHOR, r: rel('5:r:2', SHOR.id, QFT.id), p: QFT },
      ],
      truncated: false,
    });
  });
  return queries;
}

describe.skipIf(!CHROMIUM)('web front end: graph explorer', () => {
  let stack: Stack;
  let browser: Browser;
  let w: WebPage;

  beforeAll(async () => {
    stack = await startStack();
    browser = await launchBrowser();
    w = await openPage(browser, stack.url);
    await signIn(w.page, stack.url, '/');
  });
  afterAll(async () => {
    await w?.close();
    await browser?.close();
    await stack?.close();
  });

  it('runs a Cypher query typed in the editor and shows it as a table and as a drawing', async () => {
    const { page } = w;
    const queries = await fakeGraph(page);
    await page.goto(`${stack.url}/graph`);
    await page.getByRole('button', { name: /^:Primitive/ }).waitFor();
    expect(await page.getByText('3 nodes · 2 relationships').count()).toBe(1);
    const editor = page.getByRole('textbox', { name: 'Cypher query' });
    await editor.click();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.press('Delete');
    await page.keyboard.type('MATCH (a:Algorithm)-[r:DEPENDS_ON]->(p) RETURN a, r, p');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+Enter');
    await page.getByRole('heading', { name: '2 rows' }).waitFor();
    expect(queries.at(-1)).toEqual({ query: 'MATCH (a:Algorithm)-[r:DEPENDS_ON]->(p) RETURN a, r, p', limit: 100 });
    expect(await page.locator('.result-table th').allTextContents()).toEqual(['a', 'r', 'p']);
    expect(await page.locator('.result-table tbody tr').first().locator('td').allTextContents()).toEqual([
      "(:Algorithm Shor's algorithm)",
      '[:DEPENDS_ON]',
      '(:Primitive Quantum phase estimation)',
    ]);
    expect(await screenshotsAndAxe(page, 'graph-table')).toEqual([]);

    await page.getByRole('tab', { name: 'Graph (3 nodes)' }).click();
    const drawing = page.getByRole('img', { name: 'Query result drawn as 3 nodes and 2 relationships' });
    await drawing.waitFor();
    expect(await drawing.getAttribute('data-nodes')).toBe('3');
    expect(await drawing.getAttribute('data-edges')).toBe('2');
    // cytoscape drew on its canvases: some pixels are not transparent.
    await expect
      .poll(() =>
        drawing.evaluate((el) =>
          [...el.querySelectorAll('canvas')].some((c) => {
            const ctx = c.getContext('2d');
            if (!ctx || c.width === 0) return false;
            const data = ctx.getImageData(0, 0, c.width, c.height).data;
            for (let i = 3; i < data.length; i += 4) if (data[i] !== 0) return true;
            return false;
          }),
        ),
      )
      .toBe(true);
    expect(await screenshotsAndAxe(page, 'graph-drawing')).toEqual([]);
    expect(w.cspViolations).toEqual([]);
  });

  it('shows refusals and graph errors in words', async () => {
    const { page } = w;
    await page.goto(`${stack.url}/graph`);
    const editor = page.getByRole('textbox', { name: 'Cypher query' });
    await editor.click();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.press('Delete');
    await page.keyboard.type("LOAD CSV FROM 'file:///etc/passwd' AS l RETURN l");
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Run query' }).click();
    await page.getByRole('alert').filter({ hasText: 'LOAD CSV is not allowed in graph queries' }).waitFor();
    await editor.click();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.press('Delete');
    await page.keyboard.type('CREATE (n:Paper) RETURN n');
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Run query' }).click();
    await page.getByRole('alert').filter({ hasText: 'Writing in read access mode not allowed.' }).waitFor();
  });

  it("draws a wiki page's neighbourhood when the graph is configured", async () => {
    const { page } = w;
    const queries = await fakeGraph(page);
    await page.goto(`${stack.url}/wiki/algo-shors-algorithm`);
    await page.getByRole('heading', { level: 1, name: "Shor's algorithm" }).waitFor();
    await page.getByRole('heading', { name: 'In the graph' }).scrollIntoViewIfNeeded();
    const drawing = page.getByRole('img', { name: /^Graph neighbourhood of algo-shors-algorithm/ });
    await drawing.waitFor();
    expect(await drawing.getAttribute('data-nodes')).toBe('3');
    expect(queries.at(-1)!.query).toContain("n.wiki_id = 'algo-shors-algorithm'");
    expect(await screenshotsAndAxe(page, 'wiki-page-neighbourhood')).toEqual([]);
    expect(w.cspViolations).toEqual([]);
  });
});
