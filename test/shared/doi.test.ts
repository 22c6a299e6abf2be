import { describe, expect, it } from 'vitest';
import { looksLikeDoi, normaliseDoi, parseIdOrDoi, stripDoiPrefix } from '../../src/shared/doi.js';
import { InvalidInputError } from '../../src/shared/domain-errors.js';

describe('CONTRACT §2.3 DOI normalisation', () => {
  const ok: [string, string][] = [
    ['10.1103/PhysRevLett.1', '10.1103/physrevlett.1'],
    ['  10.1234/ABC ', '10.1234/abc'],
    ['https://doi.org/10.1234/x', '10.1234/x'],
    ['HTTP://DOI.ORG/10.1234/x', '10.1234/x'],
    ['https://dx.doi.org/10.1234/x', '10.1234/x'],
    ['http://dx.doi.org/10.1234/x', '10.1234/x'],
    ['doi.org/10.1234/x', '10.1234/x'],
    ['dx.doi.org/10.1234/x', '10.1234/x'],
    ['doi:10.123456789/a/b/c', '10.123456789/a/b/c'],
    ['DOI:10.1038/nature12373', '10.1038/nature12373'],
  ];
  it.each(ok)('%j → %j', (raw, doi) => {
    expect(normaliseDoi(raw)).toEqual({ ok: true, doi });
  });

  const bad: [string, string][] = [
    ['10.' + '1'.repeat(300), 'longer than 256 characters'],
    ['10.1234/\u0001x', 'contains a control character'],
    ['10.1234/x\u007f', 'contains a control character'],
    ['10.1234/é', 'contains a non-ASCII character'],
    ['10.123/x', 'expected 10.<4-9 digits>/<suffix>'],
    ['10.1234567890/x', 'expected 10.<4-9 digits>/<suffix>'],
    ['10.1234/', 'expected 10.<4-9 digits>/<suffix>'],
    ['10.1234/a b', 'expected 10.<4-9 digits>/<suffix>'],
    ['doi:doi:10.1234/x', 'expected 10.<4-9 digits>/<suffix>'],
  ];
  it.each(bad)('%j rejected (%s)', (raw, reason) => {
    expect(normaliseDoi(raw)).toEqual({ ok: false, reason });
  });

  it('checks the length before anything else', () => {
    expect(normaliseDoi('\u0001'.repeat(257))).toEqual({ ok: false, reason: 'longer than 256 characters' });
    expect(normaliseDoi(' '.repeat(10) + '10.1234/' + 'a'.repeat(248))).toEqual({
      ok: true,
      doi: '10.1234/' + 'a'.repeat(248),
    });
  });

  it('detection after prefix stripping', () => {
    expect(looksLikeDoi('10.1/x')).toBe(true);
    expect(looksLikeDoi('https://doi.org/10.1234/x')).toBe(true);
    expect(looksLikeDoi('2501.00010v1')).toBe(false);
    expect(stripDoiPrefix(' doi:10.1/x')).toBe('10.1/x');
  });
});

describe('paper-access id or DOI', () => {
  it('classifies', () => {
    expect(parseIdOrDoi('https://doi.org/10.1234/X')).toEqual({ type: 'doi', doi: '10.1234/x' });
    const r = parseIdOrDoi('9508027');
    expect(r.type === 'id' && r.id.id).toBe('quant-ph/9508027');
  });
  it('invalid DOI → invalid input with the doi field', () => {
    try {
      parseIdOrDoi('10.12/x');
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(InvalidInputError);
      expect((e as InvalidInputError).message).toBe('invalid DOI: expected 10.<4-9 digits>/<suffix>');
      expect((e as InvalidInputError).fields).toEqual({ doi: '10.12/x' });
    }
  });
  it('invalid id → 400', () => {
    expect(() => parseIdOrDoi('junk')).toThrow('invalid preprint id or DOI: "junk"');
  });
});
