/**
 * Mathematics on the sample wiki's pages, measured in a real browser against a real pksd: scripts smaller than
 * their base and raised or lowered, fractions stacked. A stylesheet from another KaTeX version than the renderer's
 * (the two copies this once had: 0.19's stylesheet, 0.16's markup) leaves scripts full size and this test red;
 * axe and screenshots alone cannot see it.
 */
import { describe, expect, it } from 'vitest';
import { CHROMIUM, screenshotsAndAxe } from './support/browser.js';
import { expectTypeset, type MathCheck } from './support/katex-geometry.js';
import { useSignedIn } from './support/stack.js';

/** The quantum Fourier transform's defining formula: a fraction, and QFT with N as its subscript. */
const QFT = '\\mathrm{QFT}_N\\,|x\\rangle = \\frac{1}{\\sqrt{N}} \\sum_{y=0}^{N-1} e^{2\\pi i\\,xy/N}\\,|y\\rangle,';

/** Formulas of sample-wiki/ by page, with what their layout must show. */
const PAGES: { id: string; title: string; checks: MathCheck[] }[] = [
  {
    id: 'prim-quantum-fourier-transform',
    title: 'Quantum Fourier transform',
    checks: [
      { kind: 'superscript', tex: 'N = 2^n', base: '2', script: 'n' },
      { kind: 'subscript', tex: 'x = x_1 x_2 \\dots x_n', base: 'x', script: '1' },
      { kind: 'fraction', tex: QFT, numerator: '1', denominator: 'N' },
      { kind: 'subscript', tex: QFT, base: 'QFT', script: 'N' },
    ],
  },
  {
    id: 'concept-hadamard-gate',
    title: 'Hadamard gate',
    checks: [
      { kind: 'superscript', tex: 'H^2 = I', base: 'H', script: '2' },
      {
        kind: 'fraction',
        tex: 'H = \\frac{1}{\\sqrt{2}}\\begin{pmatrix} 1 & 1 \\\\ 1 & -1 \\end{pmatrix},',
        numerator: '1',
        denominator: '2',
      },
    ],
  },
  {
    id: 'algo-grovers-algorithm',
    title: "Grover's algorithm",
    checks: [{ kind: 'fraction', tex: '\\frac{\\pi}{4}\\sqrt{N}', numerator: 'π', denominator: '4' }],
  },
];

describe.skipIf(!CHROMIUM)('web front end: mathematics as typeset (sample wiki)', () => {
  const web = useSignedIn();

  it.each(PAGES)('$id: scripts are small and raised or lowered, fractions stack', async ({ id, title, checks }) => {
    const { stack, w } = web();
    const { page } = w;
    await page.goto(`${stack.url}/wiki/${id}`);
    await page.getByRole('heading', { level: 1, name: title }).waitFor();
    await page.locator('#wiki-body .katex').first().waitFor();
    // The KaTeX fonts loaded: glyph boxes are measured in the fonts the page shows.
    await page.evaluate(
      () => (globalThis as unknown as { document: { fonts: { ready: Promise<unknown> } } }).document.fonts.ready,
    );
    for (const check of checks) await expectTypeset(page, '#wiki-body', check);
    expect(w.cspViolations).toEqual([]);
  });

  it('screenshots a page of formulas at both widths, light and dark', async () => {
    const { stack, w } = web();
    const { page } = w;
    await page.goto(`${stack.url}/wiki/prim-quantum-fourier-transform`);
    await page.locator('#wiki-body .katex-display').first().waitFor();
    expect(await screenshotsAndAxe(page, 'katex-qft')).toEqual([]);
  });
});
