import { describe, expect, it } from 'vitest';
import { parsePaperRef, type PaperRef } from '../../src/shared/paper-ref.js';

const URLS = 'expected https://arxiv.org/abs/<id>, https://arxiv.org/pdf/<id> or https://doi.org/<doi>';

describe('CONTRACT §18.2 fetch items: parsePaperRef', () => {
  const cases: [string, PaperRef][] = [
    // arXiv ids in every accepted spelling (§2.1), handed to resolution as written
    ['2501.00010v1', { kind: 'arxiv', ref: '2501.00010v1' }],
    ['2501.00010', { kind: 'arxiv', ref: '2501.00010' }],
    ['  2501.00010V2 ', { kind: 'arxiv', ref: '2501.00010V2' }],
    ['arXiv:2501.00010', { kind: 'arxiv', ref: 'arXiv:2501.00010' }],
    ['quant-ph/9508027v1', { kind: 'arxiv', ref: 'quant-ph/9508027v1' }],
    ['9508027', { kind: 'arxiv', ref: '9508027' }],
    // DOIs (§2.3), normalised
    ['10.1103/PhysRevLett.1', { kind: 'doi', ref: '10.1103/physrevlett.1' }],
    ['doi:10.1038/nature12373', { kind: 'doi', ref: '10.1038/nature12373' }],
    ['doi.org/10.1234/x', { kind: 'doi', ref: '10.1234/x' }],
    // arxiv.org abstract and PDF URLs: the canonical id
    ['https://arxiv.org/abs/2501.00010v2', { kind: 'url', ref: '2501.00010v2' }],
    ['https://arxiv.org/abs/2501.00010', { kind: 'url', ref: '2501.00010' }],
    ['http://arxiv.org/pdf/2501.00010v1', { kind: 'url', ref: '2501.00010v1' }],
    ['https://arxiv.org/pdf/2501.00010v1.pdf', { kind: 'url', ref: '2501.00010v1' }],
    ['https://www.arxiv.org/abs/2501.00010/', { kind: 'url', ref: '2501.00010' }],
    ['https://export.arxiv.org/abs/2501.00010v3?context=quant-ph#x', { kind: 'url', ref: '2501.00010v3' }],
    ['HTTPS://ARXIV.ORG/abs/2501.00010', { kind: 'url', ref: '2501.00010' }],
    ['https://arxiv.org/abs/quant-ph/9508027v2', { kind: 'url', ref: 'quant-ph/9508027v2' }],
    ['https://arxiv.org/abs/quant-ph%2F9508027', { kind: 'url', ref: 'quant-ph/9508027' }],
    ['https://arxiv.org/abs/arXiv:2501.00010', { kind: 'url', ref: '2501.00010' }],
    ['arxiv.org/abs/2501.00010v1', { kind: 'url', ref: '2501.00010v1' }],
    [' www.arxiv.org/pdf/2501.00010v1 ', { kind: 'url', ref: '2501.00010v1' }],
    // doi.org URLs: the normalised DOI
    ['https://doi.org/10.1103/PhysRevLett.1', { kind: 'url', ref: '10.1103/physrevlett.1' }],
    ['http://dx.doi.org/10.1234/a%2Fb', { kind: 'url', ref: '10.1234/a/b' }],
    ['https://www.doi.org/10.1234/x', { kind: 'url', ref: '10.1234/x' }],
    // invalid: the texts a per-item error carries
    ['', { kind: 'invalid', problem: 'invalid preprint id or DOI: ""' }],
    ['not-an-id', { kind: 'invalid', problem: 'invalid preprint id or DOI: "not-an-id"' }],
    ['2513.00010', { kind: 'invalid', problem: 'invalid preprint id or DOI: "2513.00010"' }],
    ['10.12/x', { kind: 'invalid', problem: 'invalid DOI: expected 10.<4-9 digits>/<suffix>' }],
    [
      'https://arxiv.org/abs/junk',
      { kind: 'invalid', problem: 'not an arXiv id in URL: "https://arxiv.org/abs/junk"' },
    ],
    [
      'https://arxiv.org/list/quant-ph/new',
      { kind: 'invalid', problem: `unsupported URL: "https://arxiv.org/list/quant-ph/new" (${URLS})` },
    ],
    [
      'https://example.org/abs/2501.00010',
      { kind: 'invalid', problem: `unsupported URL: "https://example.org/abs/2501.00010" (${URLS})` },
    ],
    [
      'ftp://arxiv.org/abs/2501.00010',
      { kind: 'invalid', problem: `unsupported URL: "ftp://arxiv.org/abs/2501.00010" (${URLS})` },
    ],
    ['https://doi.org/10.12/x', { kind: 'invalid', problem: 'invalid DOI in URL: expected 10.<4-9 digits>/<suffix>' }],
    ['https://doi.org/', { kind: 'invalid', problem: 'invalid DOI in URL: expected 10.<4-9 digits>/<suffix>' }],
    [
      'https://arxiv.org/abs/%E0%A4%A',
      { kind: 'invalid', problem: `unsupported URL: "https://arxiv.org/abs/%E0%A4%A" (${URLS})` },
    ],
    ['https://[oops', { kind: 'invalid', problem: 'invalid URL: "https://[oops"' }],
  ];
  it.each(cases)('%j → %j', (raw, expected) => {
    expect(parsePaperRef(raw)).toEqual(expected);
  });
});
