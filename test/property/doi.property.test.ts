/**
 * DOIs (CONTRACT §2.3) against a reference model: DOIs generated from their parts and decorated with every accepted
 * prefix, case and blank normalise to the bare lower-case DOI; for any input the result obeys the contract's shape.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidInputError, type DomainError } from '../../src/shared/domain-errors.js';
import { looksLikeDoi, normaliseDoi, parseIdOrDoi } from '../../src/shared/doi.js';

const PREFIXES = [
  'https://doi.org/',
  'http://doi.org/',
  'https://dx.doi.org/',
  'http://dx.doi.org/',
  'doi.org/',
  'dx.doi.org/',
  'doi:',
];
const SHAPE = /^10\.\d{4,9}\/\S+$/;

/** Printable ASCII without space: what a DOI suffix may hold. */
const suffixChar = fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c));
const bareDoi = fc
  .record({
    registrant: fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 4, maxLength: 9 }),
    suffix: fc.string({ unit: suffixChar, minLength: 1, maxLength: 60 }),
  })
  .map(({ registrant, suffix }) => `10.${registrant}/${suffix}`);

/** A random upper/lower spelling of `text`. */
const anyCase = (text: string) =>
  fc
    .array(fc.boolean(), { minLength: text.length, maxLength: text.length })
    .map((upper) => [...text].map((c, i) => (upper[i] ? c.toUpperCase() : c.toLowerCase())).join(''));

const decorated = bareDoi.chain((doi) =>
  fc
    .record({
      prefix: fc.constantFrom('', ...PREFIXES).chain(anyCase),
      spelled: anyCase(doi),
      before: fc.constantFrom('', ' ', '  '),
      after: fc.constantFrom('', ' ', '  '),
    })
    .map(({ prefix, spelled, before, after }) => ({ doi, text: `${before}${prefix}${spelled}${after}` })),
);

describe('DOIs: reference model', () => {
  it('any accepted spelling normalises to the lower-cased bare DOI', () => {
    fc.assert(
      fc.property(decorated, ({ doi, text }) => {
        fc.pre(text.trim().length <= 256);
        expect(normaliseDoi(text)).toEqual({ ok: true, doi: doi.toLowerCase() });
        expect(looksLikeDoi(text)).toBe(true);
        expect(parseIdOrDoi(text)).toEqual({ type: 'doi', doi: doi.toLowerCase() });
      }),
    );
  });

  it('is idempotent', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          decorated.map((d) => d.text),
          fc.string(),
        ),
        (text) => {
          const once = normaliseDoi(text);
          if (once.ok) expect(normaliseDoi(once.doi)).toEqual(once);
        },
      ),
    );
  });

  it('refuses anything longer than 256 characters first, whatever else is wrong', () => {
    fc.assert(
      fc.property(bareDoi, fc.string({ minLength: 1 }), (doi, tail) => {
        const long = `${doi}${'x'.repeat(257)}${tail}`;
        expect(normaliseDoi(long)).toEqual({ ok: false, reason: 'longer than 256 characters' });
      }),
    );
  });
});

describe('DOIs: any input', () => {
  const input = fc.oneof(
    fc.string({ maxLength: 80 }),
    fc.string({ unit: 'binary', maxLength: 40 }),
    decorated.map((d) => d.text),
    // A valid DOI with one character replaced by anything (control characters and non-ASCII included).
    fc
      .tuple(decorated, fc.nat(), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }))
      .map(([d, at, c]) => d.text.slice(0, at % d.text.length) + c + d.text.slice((at % d.text.length) + 1)),
  );

  it('normalises only to the contract shape: ASCII, lower case, ≤ 256, 10.<4-9 digits>/<non-space>', () => {
    fc.assert(
      fc.property(input, (text) => {
        const r = normaliseDoi(text);
        if (!r.ok) return;
        expect(r.doi).toMatch(SHAPE);
        expect(r.doi).toBe(r.doi.toLowerCase());
        expect(r.doi.length).toBeLessThanOrEqual(256);
        expect([...r.doi].every((c) => c.charCodeAt(0) > 0x20 && c.charCodeAt(0) < 0x7f)).toBe(true);
      }),
      { numRuns: 2_000 },
    );
  });

  it('a paper-access value is a DOI, an id, or an InvalidInputError — nothing else', () => {
    fc.assert(
      fc.property(input, (text) => {
        let outcome: unknown;
        try {
          outcome = parseIdOrDoi(text);
        } catch (err) {
          expect(err).toBeInstanceOf(InvalidInputError);
          expect((err as DomainError).message).toMatch(/^invalid (DOI: |preprint id or DOI: )/);
          return;
        }
        expect(outcome).toMatchObject({ type: expect.stringMatching(/^(doi|id)$/) });
      }),
      { numRuns: 2_000 },
    );
  });
});
