/**
 * Preprint ids (CONTRACT §2.1, §3.1–3.2) against a reference model: ids are generated from their parts, written in
 * every accepted spelling, and must parse to exactly the canonical form, shard and stem the contract derives; random
 * strings must be accepted exactly when the contract's grammar (written out here) accepts them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  idFromStem,
  legacyPaperKeys,
  paperKeys,
  parseAssetKey,
  parsePreprintId,
  parseVersionedId,
  PREPRINT_ID_PATTERN,
  VERSIONED_ID_PATTERN,
  type VersionedPreprintId,
} from '../../src/shared/ids.js';

interface ModelId {
  /** Canonical id as the contract writes it. */
  readonly canonical: string;
  readonly versionless: string;
  readonly version: number | null;
  readonly yymm: string;
  readonly style: 'new' | 'old';
  /** The spelling before decoration (bare old-style ids are written without their category). */
  readonly written: string;
}

const digits = (min: number, max: number) =>
  fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: min, maxLength: max });
const lowerWord = fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz'), minLength: 1, maxLength: 6 });
const anyWord = fc.string({
  unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'),
  minLength: 1,
  maxLength: 6,
});
const version = fc.option(fc.integer({ min: 1, max: 10_000 }), { nil: null });

const newStyle = fc
  .record({ yy: digits(2, 2), mm: fc.integer({ min: 1, max: 12 }), n: fc.oneof(digits(4, 4), digits(5, 5)), version })
  .map(({ yy, mm, n, version }): ModelId => {
    const versionless = `${yy}${String(mm).padStart(2, '0')}.${n}`;
    const canonical = version === null ? versionless : `${versionless}v${version}`;
    return { canonical, versionless, version, yymm: versionless.slice(0, 4), style: 'new', written: canonical };
  });

const category = fc
  .record({
    archive: fc.array(lowerWord, { minLength: 1, maxLength: 3 }),
    subject: fc.option(fc.array(anyWord, { minLength: 1, maxLength: 3 }), { nil: null }),
  })
  .map(({ archive, subject }) => archive.join('-') + (subject === null ? '' : `.${subject.join('-')}`));

const oldStyle = fc
  .record({ category, number: digits(7, 7), version, bare: fc.boolean() })
  .map(({ category, number, version, bare }): ModelId => {
    const cat = bare ? 'quant-ph' : category;
    const versionless = `${cat}/${number}`;
    const canonical = version === null ? versionless : `${versionless}v${version}`;
    const suffix = version === null ? '' : `v${version}`;
    return {
      canonical,
      versionless,
      version,
      yymm: number.slice(0, 4),
      style: 'old',
      written: bare ? `${number}${suffix}` : canonical,
    };
  });

const modelId = fc.oneof(newStyle, oldStyle);

/** Every decoration the contract allows: surrounding blanks, an `arXiv:` prefix in any case plus spaces, `V`. */
const spelling = (id: ModelId) =>
  fc
    .record({
      before: fc.constantFrom('', ' ', '  '),
      after: fc.constantFrom('', ' ', '   '),
      prefix: fc.constantFrom('', 'arXiv:', 'arxiv:', 'ARXIV:', 'arXiv: ', 'arxiv:  '),
      upperV: fc.boolean(),
    })
    .map(({ before, after, prefix, upperV }) => {
      const body = upperV && id.version !== null ? id.written.replace(/v(\d+)$/, 'V$1') : id.written;
      return `${before}${prefix}${body}${after}`;
    });

describe('preprint ids: reference model', () => {
  it('every accepted spelling parses to the canonical id, shard and stem', () => {
    fc.assert(
      fc.property(
        modelId.chain((id) => fc.tuple(fc.constant(id), spelling(id))),
        ([model, text]) => {
          const id = parsePreprintId(text);
          expect(id).not.toBeNull();
          expect(id).toMatchObject({
            id: model.canonical,
            versionless: model.versionless,
            version: model.version,
            yymm: model.yymm,
            style: model.style,
            stem: model.canonical.replace('/', '_'),
          });
        },
      ),
    );
  });

  it('parsing is idempotent and canonical ids match the published patterns', () => {
    const any = new RegExp(PREPRINT_ID_PATTERN);
    const versioned = new RegExp(VERSIONED_ID_PATTERN);
    fc.assert(
      fc.property(modelId, (model) => {
        const id = parsePreprintId(model.written)!;
        expect(parsePreprintId(id.id)?.id).toBe(id.id);
        expect(any.test(id.id)).toBe(true);
        expect(versioned.test(id.id)).toBe(id.version !== null);
      }),
    );
  });

  it('object keys map back to the id; legacy keys map to quant-ph', () => {
    fc.assert(
      fc.property(
        modelId.filter((m) => m.version !== null),
        (model) => {
          const id = parseVersionedId(model.written) as VersionedPreprintId;
          const keys = paperKeys(id);
          expect(keys.pdf).toBe(`pdf/${model.yymm}/${model.canonical.replace('/', '_')}.pdf`);
          expect(parseAssetKey(keys.pdf)).toMatchObject({ kind: 'pdf', legacy: false, id: { id: model.canonical } });
          expect(parseAssetKey(keys.markdown)).toMatchObject({ kind: 'markdown', id: { id: model.canonical } });
          expect(parseAssetKey(`${keys.imagesPrefix}fig/1.png`)).toMatchObject({ kind: 'images', file: 'fig/1.png' });
          expect(idFromStem(id.stem)?.id).toBe(model.canonical);
          const legacy = legacyPaperKeys(id);
          if (model.style === 'new') {
            expect(legacy).toBeNull();
          } else {
            const number = model.versionless.split('/')[1]!;
            expect(legacy!.pdf).toBe(`pdf/${model.yymm}/${number}v${model.version}.pdf`);
            expect(parseAssetKey(legacy!.pdf)).toMatchObject({
              legacy: true,
              id: { id: `quant-ph/${number}v${model.version}` },
            });
          }
        },
      ),
    );
  });
});

// The grammar of CONTRACT §2.1, written out independently of the implementation.
const GRAMMAR = new RegExp(
  '^(?:\\d{2}(?:0[1-9]|1[0-2])\\.\\d{4,5}' +
    '|[a-z]+(?:-[a-z]+)*(?:\\.[A-Za-z]+(?:-[A-Za-z]+)*)?/\\d{7}' +
    '|\\d{7})(?:[vV][1-9]\\d*)?$',
);
const contractAccepts = (raw: string) => GRAMMAR.test(raw.trim().replace(/^arxiv:\s*/i, ''));

describe('preprint ids: random strings', () => {
  // Characters ids are made of, and the ones that break them.
  const idish = fc.string({ unit: fc.constantFrom(...'0123456789.-/vVabqupht:AXrxiI _'), maxLength: 30 });

  it('are accepted exactly when the contract grammar accepts them', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          idish,
          fc.string({ maxLength: 30 }),
          modelId.map((m) => m.written),
        ),
        (raw) => {
          // Control characters are outside the grammar's alphabet; the contract leaves them to the implementation.
          fc.pre(![...raw].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f));
          expect(parsePreprintId(raw) !== null).toBe(contractAccepts(raw));
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('a bare id is never accepted where a version is required', () => {
    fc.assert(
      fc.property(
        modelId.filter((m) => m.version === null),
        (model) => {
          expect(parseVersionedId(model.written)).toBeNull();
        },
      ),
    );
  });
});
