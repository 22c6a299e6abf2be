/**
 * Typeset mathematics measured in the browser, not read from class names: the boxes of a formula's glyphs show
 * whether a script is smaller and raised (or lowered) and whether a fraction stacks, whatever KaTeX's markup is.
 */
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

/** One glyph run (a text node) of a formula as the browser laid it out, in CSS pixels. */
export interface Glyph {
  text: string;
  top: number;
  bottom: number;
  left: number;
  right: number;
  fontSize: number;
}

/** The formulas a page must typeset correctly, by their TeX source as written in the markdown. */
export type MathCheck =
  | { kind: 'superscript' | 'subscript'; tex: string; base: string; script: string }
  | { kind: 'fraction'; tex: string; numerator: string; denominator: string };

/** The glyph runs of the first formula under `root` whose TeX source is `tex` (empty when there is none). */
export function formulaGlyphs(page: Page, root: string, tex: string): Promise<Glyph[]> {
  return page.evaluate(
    ({ root, tex }) => {
      interface El {
        querySelector(s: string): El | null;
        querySelectorAll(s: string): Iterable<El>;
        textContent: string | null;
      }
      interface TextNode {
        textContent: string | null;
        parentElement: El;
      }
      const g = globalThis as unknown as {
        document: {
          querySelector(s: string): El | null;
          createTreeWalker(root: El, what: number): { nextNode(): TextNode | null };
          createRange(): {
            selectNodeContents(n: TextNode): void;
            getBoundingClientRect(): { top: number; bottom: number; left: number; right: number };
          };
        };
        getComputedStyle(e: El): { fontSize: string };
      };
      const scope = g.document.querySelector(root);
      if (!scope) return [];
      const formula = [...scope.querySelectorAll('.katex')].find(
        (k) => k.querySelector('annotation[encoding="application/x-tex"]')?.textContent?.trim() === tex,
      );
      // The visible rendering (KaTeX adds MathML for screen readers beside it).
      const visible = formula?.querySelector('[aria-hidden="true"]');
      if (!visible) return [];
      const walker = g.document.createTreeWalker(visible, 4 /* NodeFilter.SHOW_TEXT */);
      const glyphs = [];
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        // Struts are zero-width spaces.
        const text = (node.textContent ?? '').replace(/[\u200b\s]/g, '');
        if (!text) continue;
        const range = g.document.createRange();
        range.selectNodeContents(node);
        const r = range.getBoundingClientRect();
        const fontSize = parseFloat(g.getComputedStyle(node.parentElement).fontSize);
        glyphs.push({ text, top: r.top, bottom: r.bottom, left: r.left, right: r.right, fontSize });
      }
      return glyphs;
    },
    { root, tex },
  );
}

/** Two neighbouring glyph runs: `first` then `second`, or (`eitherOrder`) the other way round. */
const pair = (glyphs: Glyph[], first: string, second: string, eitherOrder = false): [Glyph, Glyph] => {
  const at = (a: string, b: string) => glyphs.findIndex((g, n) => g.text === a && glyphs[n + 1]?.text === b);
  const i = at(first, second);
  if (i >= 0) return [glyphs[i]!, glyphs[i + 1]!];
  // KaTeX writes a fraction's denominator before its numerator.
  const j = eitherOrder ? at(second, first) : -1;
  expect(j, `glyphs "${first}" and "${second}" in ${JSON.stringify(glyphs.map((g) => g.text))}`).toBeGreaterThan(-1);
  return [glyphs[j + 1]!, glyphs[j]!];
};

/**
 * Checks one formula's layout: a script is drawn at most 80 % the size of its base (its box shorter than the base's), after it, its centre a tenth of
 * the base's height above (or below) the base's; a fraction's numerator is above its denominator and over it, not
 * beside it. Failure messages carry the measured boxes.
 */
export async function expectTypeset(page: Page, root: string, check: MathCheck): Promise<void> {
  const glyphs = await formulaGlyphs(page, root, check.tex);
  expect(glyphs.length, `a typeset formula ${check.tex}`).toBeGreaterThan(0);
  if (check.kind === 'fraction') {
    const [num, den] = pair(glyphs, check.numerator, check.denominator, true);
    const measured = `numerator ${JSON.stringify(num)}, denominator ${JSON.stringify(den)}`;
    expect(num.bottom, `${check.tex} stacks: ${measured}`).toBeLessThanOrEqual(den.top + 1);
    const overlap = Math.min(num.right, den.right) - Math.max(num.left, den.left);
    expect(overlap, `${check.tex}: the numerator stands over the denominator: ${measured}`).toBeGreaterThan(0);
    return;
  }
  const [base, script] = pair(glyphs, check.base, check.script);
  const measured = `base ${JSON.stringify(base)}, script ${JSON.stringify(script)}`;
  expect(script.fontSize, `${check.tex}: the script is smaller: ${measured}`).toBeLessThanOrEqual(0.8 * base.fontSize);
  const height = base.bottom - base.top;
  expect(script.bottom - script.top, `${check.tex}: the script's box is smaller: ${measured}`).toBeLessThan(height);
  // Centres, not edges: a smaller glyph's box shrinks around its own baseline.
  const centre = (g: Glyph) => (g.top + g.bottom) / 2;
  const shift = centre(script) - centre(base);
  if (check.kind === 'superscript') {
    expect(shift, `${check.tex}: the superscript is raised: ${measured}`).toBeLessThan(-0.1 * height);
  } else {
    expect(shift, `${check.tex}: the subscript is lowered: ${measured}`).toBeGreaterThan(0.1 * height);
  }
  expect(script.left, `${check.tex}: the script follows its base: ${measured}`).toBeGreaterThanOrEqual(base.right - 1);
}
