/**
 * Search snippets as plain text (web/src/lib/plain-text.ts, latex-text.ts): markdown marks, links, wikilinks and
 * LaTeX become readable text, also where the snippet cut a construct in two (CONTRACT §13.4 snippets).
 */
import { describe, expect, it } from 'vitest';
import { latexText } from '../../web/src/lib/latex-text.js';
import { plainText } from '../../web/src/lib/plain-text.js';

describe('latexText', () => {
  const cases: [tex: string, text: string][] = [
    ['x_1^2', 'x₁²'],
    ['2^n', '2ⁿ'],
    ['x_{1}, \\ldots, x_{n}', 'x₁, …, xₙ'],
    ['\\frac{1}{\\sqrt{2}}(|0\\rangle + |1\\rangle)', '1/√2(|0⟩ + |1⟩)'],
    ['\\frac{a+b}{2}', '(a+b)/2'],
    ['\\ket{\\psi} = \\alpha\\ket{0} + \\beta\\ket{1}', '|ψ⟩ = α|0⟩ + β|1⟩'],
    ['O(\\log^2 N)', 'O(log² N)'],
    ['e^{2\\pi i \\phi}', 'e^(2π i φ)'],
    ['\\mathbb{R}^{n \\times n}', 'ℝ^(n × n)'],
    ['\\sum_{k=0}^{N-1} a_k', '∑ₖ₌₀^(N-1) aₖ'],
    ['\\text{poly}(n) \\leq 2^{n}', 'poly(n) ≤ 2ⁿ'],
    ['\\left( \\frac{1}{2} \\right)', '( 1/2 )'],
    ['U^\\dagger U = I', 'U† U = I'],
    ['\\sqrt[3]{x}', '³√x'],
    ['\\mathcal{O}(n)', 'O(n)'],
    ['\\unknowncommand{x}', 'unknowncommandx'],
    ['\\frac{1}{', '1/'],
    ['a}b', 'ab'],
  ];
  it.each(cases)('%j → %j', (tex, text) => {
    expect(latexText(tex)).toBe(text);
  });
});

describe('plainText', () => {
  const titles: Record<string, string> = { 'quantum-phase-estimation': 'Quantum phase estimation' };
  const titleOf = (id: string) => titles[id];
  const cases: [snippet: string, text: string][] = [
    ['Plain words stay.', 'Plain words stay.'],
    ['## Overview The **algorithm** uses *phase kickback*.', 'Overview The algorithm uses phase kickback.'],
    ['See [[quantum-phase-estimation]] and [[shor-algorithm|Shor]].', 'See Quantum phase estimation and Shor.'],
    ['From [[paper-preprint-2501.00010v1]].', 'From arXiv 2501.00010v1.'],
    ['Part of [[quantum-phase-estimation#Accuracy]].', 'Part of Quantum phase estimation § Accuracy.'],
    ['Uses [[unknown-page-id]].', 'Uses unknown page id.'],
    ['A [link](https://example.org) and ![a figure](images/f1.png).', 'A link and a figure.'],
    ['The state $\\ket{\\psi} = \\frac{1}{\\sqrt{2}}$ is used.', 'The state |ψ⟩ = 1/√2 is used.'],
    ['Cost $$O(2^n)$$ total.', 'Cost O(2ⁿ) total.'],
    ['Cost \\(x_1\\) total.', 'Cost x₁ total.'],
    ['...with error $\\epsilon', '...with error ε'],
    ['...\\frac{1}{2}$ of the time', '...1/2 of the time'],
    ['costs $5 and $10 each', 'costs $5 and $10 each'],
    ['Call `qpe()` now', 'Call qpe() now'],
    ['> quoted - item', 'quoted - item'],
    ['| a | b | |---|---| | 1 | 2 |', '· a · b · 1 · 2 ·'],
    ['snake_case_name and 2 * 3', 'snake_case_name and 2 * 3'],
    ['in 2024. The end', 'in 2024. The end'],
    ['<sup>1</sup> escaped \\*star\\*', '1 escaped *star*'],
  ];
  it.each(cases)('%j → %j', (snippet, text) => {
    expect(plainText(snippet, titleOf)).toBe(text);
  });
});
