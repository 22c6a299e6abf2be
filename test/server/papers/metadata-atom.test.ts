/**
 * Reading the arXiv API's Atom (CONTRACT §18.1): the feed the arXiv double sends (hard-wrapped title and abstract,
 * namespaced extension elements), the error entry of an unknown id, and bodies that are not Atom.
 */
import { describe, expect, it } from 'vitest';
import { MalformedAtomError, metadataFromAtom } from '../../../src/server/papers/metadata/arxiv-atom.js';
import { atomErrorFeed, atomFeed } from '../../support/upstreams/arxiv.js';

const ENTRY = {
  title: 'Quantum algorithms for linear systems of equations: a rather long title that arXiv wraps over lines',
  authors: ['Aram W. Harrow', 'Avinatan Hassidim', 'Seth Lloyd'],
  abstract:
    'Solving linear systems of equations is a common problem that arises both on its own and as a subroutine ' +
    'in more complex problems: given a matrix A and a vector b, find a vector x such that Ax = b & more <here>.',
  published: '2008-11-19',
  doi: '10.1103/PhysRevLett.103.150502',
};

describe('metadataFromAtom', () => {
  it('reads the entry of the requested paper: whitespace collapsed, DOI lower-cased, date of v1', () => {
    expect(metadataFromAtom(atomFeed('0811.3171', ENTRY, 3), '0811.3171')).toEqual({
      title: ENTRY.title,
      authors: ENTRY.authors,
      abstract: ENTRY.abstract,
      published: '2008-11-19',
      doi: '10.1103/physrevlett.103.150502',
      openalex_id: null,
      cited_by_count: null,
      source: 'arxiv',
    });
  });

  it('an old-style id; no DOI → null; a numeric title stays text', () => {
    const xml = atomFeed('quant-ph/9508027', { title: '2048', authors: [], abstract: 'x', published: '1995-08-30' }, 2);
    expect(metadataFromAtom(xml, 'quant-ph/9508027')).toMatchObject({ title: '2048', authors: [], doi: null });
  });

  it("an unknown id's error entry, or an entry of another paper, is null (not found)", () => {
    expect(metadataFromAtom(atomErrorFeed('2501.99999'), '2501.99999')).toBeNull();
    expect(metadataFromAtom(atomFeed('0811.3171', ENTRY, 1), '0811.3172')).toBeNull();
  });

  it('a feed with no entry is null', () => {
    const xml =
      '<?xml version="1.0" encoding="UTF-8"?><feed xmlns="http://www.w3.org/2005/Atom" ' +
      'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/"><opensearch:totalResults>0</opensearch:totalResults></feed>';
    expect(metadataFromAtom(xml, '2501.00010')).toBeNull();
  });

  it.each([
    ['plain text (a throttled answer)', 'Rate exceeded.'],
    ['broken XML', '<feed><entry><id>http://arxiv.org/abs/2501.00010v1</id></feed>'],
    ['XML that is not a feed', '<html><body>maintenance</body></html>'],
    [
      'an entry without a title',
      '<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>http://arxiv.org/abs/2501.00010v1</id></entry></feed>',
    ],
  ])('%s throws MalformedAtomError', (_name, body) => {
    expect(() => metadataFromAtom(body, '2501.00010')).toThrow(MalformedAtomError);
  });
});
