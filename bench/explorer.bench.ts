/**
 * Graph explorer drawing benchmark (run: `npm run build && npx vitest run --config bench/support/vitest.config.ts
 * explorer`).
 *
 * A real pksd with a real Neo4j holding 300 `:Bench` nodes (four labels, titled) and 600 relationships between them;
 * Debian Chromium (playwright-core) signs in, runs a query returning all of them in the explorer and, once drawn,
 * measures frames per second with `requestAnimationFrame` while the drawing is panned (a mouse drag on its
 * background, one step per frame) and while it is zoomed (wheel events, one per frame), against the idle frame rate.
 * The input goes through the page's real event path (synthetic mouse and wheel events on the drawing), so what is
 * measured is cytoscape redrawing 300 nodes with captions and 600 edges. Target: ≥ 50 fps in both. Figures are
 * printed; targets are reported, not asserted.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { CHROMIUM, type WebPage } from '../test/web/support/browser.js';
import { startGraphSignedIn, type GraphSignedInStack, type Stack } from '../test/web/support/stack.js';
import { machine } from './support/papers-util.js';
import { peakRssMiB } from './support/load.js';

const NODES = 300;
const EDGES_PER_NODE = 2;
const PHASE_MS = 4_000;
const QUERY = 'MATCH (n:Bench) OPTIONAL MATCH (n)-[r:BENCH_LINK]->(m:Bench) RETURN n, r, m';

const report = (line: string) => console.log(line);
const verdict = (ok: boolean) => (ok ? 'meets target' : 'MISSES target');

let web: GraphSignedInStack;
let stack: Stack;
let w: WebPage;

beforeAll(async () => {
  web = await startGraphSignedIn(async (graph) => {
    // Four labels (four colours), captions of realistic length, each node linked to two others.
    const kinds = ['Algorithm', 'Concept', 'Primitive', 'Paper'];
    for (const [k, label] of kinds.entries()) {
      const rows = Array.from({ length: NODES }, (_, i) => i)
        .filter((i) => i % kinds.length === k)
        .map((i) => ({ i, title: `Bench ${label.toLowerCase()} number ${i}`, wiki_id: `bench-${i}` }));
      await graph.driver.executeQuery(`UNWIND $rows AS row CREATE (n:Bench:${label}) SET n = row`, { rows });
    }
    const pairs = Array.from({ length: NODES }, (_, i) => [
      [i, (i * 7 + 1) % NODES],
      [i, (i * 13 + 5) % NODES],
    ]).flat();
    await graph.driver.executeQuery(
      'UNWIND $pairs AS p MATCH (a:Bench {i: p[0]}), (b:Bench {i: p[1]}) CREATE (a)-[:BENCH_LINK]->(b)',
      { pairs },
    );
  });
  ({ stack, w } = web);
  report(`explorer: ${NODES} nodes, ${NODES * EDGES_PER_NODE} relationships; ${machine()}`);
});

afterAll(async () => {
  report(`peak RSS (benchmark process): ${peakRssMiB().toFixed(0)} MiB`);
  await web?.close();
});

/** The browser globals the in-page measurement uses (the root tsconfig has no DOM lib; a cast only). */
interface InPageTarget {
  dispatchEvent(event: unknown): boolean;
}
interface InPage extends InPageTarget {
  document: {
    querySelector(selector: string): {
      querySelectorAll(selector: string): ArrayLike<InPageTarget>;
      getBoundingClientRect(): { left: number; top: number; width: number; height: number };
      getAttribute(name: string): string | null;
    } | null;
  };
  MouseEvent: new (type: string, init: Record<string, unknown>) => unknown;
  WheelEvent: new (type: string, init: Record<string, unknown>) => unknown;
  requestAnimationFrame(callback: (time: number) => void): number;
}

interface Frames {
  frames: number;
  seconds: number;
  p95: number;
  worst: number;
  moved: number;
}

test.skipIf(!CHROMIUM)('graph explorer drawing benchmark', async () => {
  const { page } = w;
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${stack.url}/graph?${new URLSearchParams({ query: QUERY, limit: '1000' }).toString()}`);
  const drawing = page.getByRole('img', { name: /^Query result drawn as/ });
  await drawing.waitFor({ timeout: 60_000 });
  expect(await drawing.getAttribute('data-nodes')).toBe(String(NODES));
  const edges = Number(await drawing.getAttribute('data-edges'));
  expect(edges).toBe(NODES * EDGES_PER_NODE);
  await page.getByRole('button', { name: 'Zoom in' }).click(); // captions readable, as a reader would look

  const measure = (mode: 'idle' | 'pan' | 'zoom') =>
    page.evaluate(
      ({ duration, mode }) =>
        new Promise<Frames>((resolve) => {
          const win = globalThis as unknown as InPage;
          const doc = win.document;
          const el = doc.querySelector('.graph-canvas')!;
          const canvas = el.querySelectorAll('canvas');
          const target = canvas[canvas.length - 1]!;
          const box = el.getBoundingClientRect();
          // Inside the drawing's padding: background, so a drag pans.
          const x0 = box.left + 8;
          const y0 = box.top + box.height - 8;
          const mouse = (type: string, x: number, y: number, on: InPageTarget) =>
            on.dispatchEvent(
              new win.MouseEvent(type, {
                clientX: x,
                clientY: y,
                bubbles: true,
                cancelable: true,
                buttons: 1,
                button: 0,
              }),
            );
          const times: number[] = [];
          const start = performance.now();
          const before = el.getAttribute(mode === 'zoom' ? 'data-zoom' : 'data-pan');
          let step = 0;
          if (mode === 'pan') mouse('mousedown', x0, y0, target);
          const tick = (now: number) => {
            times.push(now);
            step++;
            if (mode === 'pan') {
              // A circle of 120 px radius, one turn a second at 60 fps.
              const a = (step / 60) * 2 * Math.PI;
              mouse('mousemove', x0 + 120 * Math.sin(a), y0 - 120 + 120 * Math.cos(a), win);
            } else if (mode === 'zoom') {
              target.dispatchEvent(
                new win.WheelEvent('wheel', {
                  clientX: box.left + box.width / 2,
                  clientY: box.top + box.height / 2,
                  deltaY: step % 40 < 20 ? -60 : 60,
                  bubbles: true,
                  cancelable: true,
                }),
              );
            }
            if (now - start < duration) {
              win.requestAnimationFrame(tick);
              return;
            }
            if (mode === 'pan') mouse('mouseup', x0, y0, win);
            const gaps = times
              .slice(1)
              .map((t, i) => t - times[i]!)
              .sort((a, b) => a - b);
            const after = el.getAttribute(mode === 'zoom' ? 'data-zoom' : 'data-pan');
            resolve({
              frames: times.length - 1,
              seconds: (times.at(-1)! - times[0]!) / 1000,
              p95: gaps[Math.floor(gaps.length * 0.95)] ?? 0,
              worst: gaps.at(-1) ?? 0,
              moved: after === before ? 0 : 1,
            });
          };
          win.requestAnimationFrame(tick);
        }),
      { duration: PHASE_MS, mode },
    );

  // The renderer's main-thread busy time per frame (CDP `Performance.getMetrics`, TaskDuration): what the drawing
  // costs, less dependent than the frame rate on what else the machine runs.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const busySeconds = async (): Promise<number> =>
    (await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'TaskDuration')?.value ?? 0;
  const measured = async (mode: 'idle' | 'pan' | 'zoom') => {
    const before = await busySeconds();
    const frames = await measure(mode);
    return { ...frames, busyMs: ((await busySeconds()) - before) * 1000 };
  };
  const idle = await measured('idle');
  const pan = await measured('pan');
  const zoom = await measured('zoom');
  const fps = (f: Frames) => f.frames / f.seconds;
  const idleFps = fps(idle);
  for (const [name, f] of [
    ['pan', pan],
    ['zoom', zoom],
  ] as const) {
    report(
      `explorer ${name} (${NODES} nodes, ${edges} relationships): ${fps(f).toFixed(1)} fps (p95 frame ${f.p95.toFixed(1)} ms, ` +
        `worst ${f.worst.toFixed(1)} ms; main thread busy ${(f.busyMs / f.frames).toFixed(1)} ms per frame) — ` +
        `${verdict(fps(f) >= 50)} ≥ 50 fps; idle ${idleFps.toFixed(1)} fps (busy ${(idle.busyMs / idle.frames).toFixed(1)} ms per frame), ` +
        `ratio ${(fps(f) / idleFps).toFixed(2)}`,
    );
  }
  // The input reached the drawing: it moved and zoomed.
  expect(pan.moved).toBe(1);
  expect(zoom.moved).toBe(1);
});
