/**
 * What the papers page opens from pasted text (web/src/lib/paper-ref.ts): ids in every accepted form (CONTRACT
 * §2.1), DOIs (§2.3), arxiv.org `abs`/`pdf` links and doi.org links; anything else opens nothing.
 */
import { describe, expect, it } from 'vitest';
import { paperPath, parsePaperRef, readPaperRef, type PaperRef } from '../../web/src/lib/paper-ref.js';

const id = (v: string): PaperRef => ({ kind: 'id', id: v });
const doi = (v: string): PaperRef => ({ kind: 'doi', doi: v });

describe('parsePaperRef', () => {
  const cases: [input: string, expected: PaperRef | null][] = [
    // Ids as typed.
    ['2501.00010v1', id('2501.00010v1')],
    ['2501.00010', id('2501.00010')],
    ['  2501.00010V2  ', id('2501.00010v2')],
    ['arXiv:2501.00010v1', id('2501.00010v1')],
    ['arxiv: 2501.00010', id('2501.00010')],
    ['quant-ph/9508027v2', id('quant-ph/9508027v2')],
    ['cond-mat.stat-mech/0001001v2', id('cond-mat.stat-mech/0001001v2')],
    ['9508027', id('quant-ph/9508027')],
    ['9508027v2', id('quant-ph/9508027v2')],
    // arxiv.org links: abs and pdf, with or without .pdf, scheme, www, trailing slash, query or fragment.
    ['https://arxiv.org/abs/2501.00010v1', id('2501.00010v1')],
    ['https://arxiv.org/abs/2501.00010', id('2501.00010')],
    ['http://arxiv.org/abs/quant-ph/9508027', id('quant-ph/9508027')],
    ['https://arxiv.org/pdf/2501.00010v1', id('2501.00010v1')],
    ['https://arxiv.org/pdf/2501.00010v1.pdf', id('2501.00010v1')],
    ['https://arxiv.org/pdf/quant-ph/9508027v2.pdf', id('quant-ph/9508027v2')],
    ['https://www.arxiv.org/abs/2501.00010v3/', id('2501.00010v3')],
    ['https://export.arxiv.org/abs/2501.00010?context=quant-ph#top', id('2501.00010')],
    ['arxiv.org/abs/2501.00010v1', id('2501.00010v1')],
    ['HTTPS://ARXIV.ORG/abs/2501.00010v1', id('2501.00010v1')],
    // DOIs and doi.org links, normalised as the server does (lower case).
    ...Object.entries({
      '10.1137/S0097539795293172': '10.1137/s0097539795293172',
      'doi:10.1103/PhysRevLett.79.325': '10.1103/physrevlett.79.325',
      'https://doi.org/10.1137/S0097539795293172': '10.1137/s0097539795293172',
      'http://dx.doi.org/10.1038/nature23879': '10.1038/nature23879',
      'doi.org/10.1038/nature23879': '10.1038/nature23879',
      'https://doi.org/10.1002%2F(SICI)1097-0207': '10.1002/(sici)1097-0207',
    }).map(([input, normalised]): [string, PaperRef] => [input, doi(normalised)]),
    // Nothing to open.
    ['', null],
    ['   ', null],
    ['phase estimation', null],
    ['2501', null],
    ['2513.00010', null],
    ['2501.00010v0', null],
    ['10.12/short', null],
    ['doi:', null],
    ['https://arxiv.org/list/quant-ph/new', null],
    ['https://arxiv.org/abs/not-an-id', null],
    ['https://arxiv.org/', null],
    ['https://doi.org/', null],
    ['https://doi.org/%E0%A4%A', null],
    ['https://example.org/abs/2501.00010v1', null],
    ['https://arxiv.org.evil.example/abs/2501.00010v1', null],
  ];
  it.each(cases)('%j', (input, expected) => {
    expect(parsePaperRef(input)).toEqual(expected);
  });
});

describe('readPaperRef', () => {
  it('says why text opens nothing, in the shared words', () => {
    expect(readPaperRef('phase estimation')).toEqual({ problem: 'invalid preprint id or DOI: "phase estimation"' });
    expect(readPaperRef('10.12/short')).toEqual({ problem: 'invalid DOI: expected 10.<4-9 digits>/<suffix>' });
    expect(readPaperRef('https://arxiv.org/abs/nope')).toEqual({
      problem: 'not an arXiv id in URL: "https://arxiv.org/abs/nope"',
    });
  });
});

describe('paperPath', () => {
  const cases: [ref: PaperRef | string, path: string][] = [
    [id('2501.00010v1'), '/papers/2501.00010v1'],
    [id('quant-ph/9508027v2'), '/papers/quant-ph/9508027v2'],
    [doi('10.1137/s0097539795293172'), '/papers/10.1137/s0097539795293172'],
    [doi('10.1000/a#b?c;d'), '/papers/10.1000/a%23b%3Fc%3Bd'],
    ['cond-mat.stat-mech/0001001', '/papers/cond-mat.stat-mech/0001001'],
  ];
  it.each(cases)('%j → %s', (ref, path) => {
    expect(paperPath(ref)).toBe(path);
  });
});
