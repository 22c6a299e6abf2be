import type { Page } from 'playwright-core';

/** A wiki page of ten display equations, which the web benchmarks render. */
export const MATH_PAGE = 'concept-ten-equations';

const EQUATIONS = [
  'e^{i\\pi} + 1 = 0',
  '\\hat{H}\\lvert\\psi\\rangle = E\\lvert\\psi\\rangle',
  'U_{\\mathrm{QFT}}\\lvert j\\rangle = \\frac{1}{\\sqrt{N}} \\sum_{k=0}^{N-1} e^{2\\pi i jk/N}\\lvert k\\rangle',
  '\\rho = \\sum_i p_i \\lvert\\psi_i\\rangle\\langle\\psi_i\\rvert',
  'F(\\rho,\\sigma) = \\left(\\operatorname{tr}\\sqrt{\\sqrt{\\rho}\\,\\sigma\\sqrt{\\rho}}\\right)^2',
  'H = \\frac{1}{\\sqrt 2}\\begin{pmatrix} 1 & 1 \\\\ 1 & -1 \\end{pmatrix}',
  '\\Pr[\\text{success}] \\ge 1 - \\frac{1}{2(2^{t-n}-2)}',
  'O\\!\\left(\\sqrt{N}\\right) \\text{ queries versus } \\Omega(N)',
  '\\lvert\\Phi^+\\rangle = \\tfrac{1}{\\sqrt2}\\left(\\lvert 00\\rangle + \\lvert 11\\rangle\\right)',
  'S(\\rho) = -\\operatorname{tr}(\\rho \\log_2 \\rho)',
];

/** The page's source, a concept of the wiki (`concepts/<MATH_PAGE>.md`). */
export const MATH_SOURCE = [
  '---',
  `id: ${MATH_PAGE}`,
  'title: Ten equations',
  'type: concept',
  'category: technique',
  'created_at: 2026-01-15',
  'status: published',
  '---',
  '',
  '## Definition',
  '',
  ...EQUATIONS.flatMap((eq, i) => [`Equation ${i + 1} relates [[concept-qubit]] to the rest:`, '', `$$${eq}$$`, '']),
].join('\n');

/** The bodies of the scripts and stylesheets `page` loads from `origin`, by URL, as they arrive. */
export function scriptAndStyleBodies(page: Page, origin: string): Map<string, Promise<Buffer>> {
  const bodies = new Map<string, Promise<Buffer>>();
  page.on('response', (r) => {
    const type = r.request().resourceType();
    if ((type === 'script' || type === 'stylesheet') && r.url().startsWith(origin)) bodies.set(r.url(), r.body());
  });
  return bodies;
}
