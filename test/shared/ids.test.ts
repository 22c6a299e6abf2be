import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../src/shared/domain-errors.js';
import {
  idFromStem,
  imageKey,
  legacyPaperKeys,
  paperKeys,
  parseAssetKey,
  parsePreprintId,
  parseVersionedId,
  PREPRINT_ID_PATTERN,
  preprintPdfUrl,
  requireIngestId,
  requireUploadId,
  VERSIONED_ID_PATTERN,
} from '../../src/shared/ids.js';

describe('CONTRACT §3.1 id → keys table', () => {
  const rows = [
    {
      input: '2501.00010v1',
      preprint_id: '2501.00010v1',
      key: '2501.00010v1',
      pdf_path: 'pdf/2501/2501.00010v1.pdf',
      markdown: 'markdown/2501/2501.00010v1.md',
      images: 'images/2501/2501.00010v1/',
    },
    {
      input: 'quant-ph/9508027v1',
      preprint_id: 'quant-ph/9508027v1',
      key: 'quant-ph_9508027v1',
      pdf_path: 'pdf/9508/quant-ph_9508027v1.pdf',
      markdown: 'markdown/9508/quant-ph_9508027v1.md',
      images: 'images/9508/quant-ph_9508027v1/',
    },
    {
      input: '9508027v1',
      preprint_id: 'quant-ph/9508027v1',
      key: 'quant-ph_9508027v1',
      pdf_path: 'pdf/9508/quant-ph_9508027v1.pdf',
      markdown: 'markdown/9508/quant-ph_9508027v1.md',
      images: 'images/9508/quant-ph_9508027v1/',
    },
  ];
  it.each(rows)('$input', (row) => {
    const id = requireUploadId(row.input);
    expect(id.id).toBe(row.preprint_id);
    expect(id.stem).toBe(row.key);
    const keys = paperKeys(id);
    expect(keys.pdf).toBe(row.pdf_path);
    expect(keys.markdown).toBe(row.markdown);
    expect(keys.imagesPrefix).toBe(row.images);
    expect(imageKey(id, 'a/b.png')).toBe(`${row.images}a/b.png`);
  });
});

describe('CONTRACT §2.1 grammar', () => {
  const valid: [string, string, string, string, number | null][] = [
    // input, canonical, shard, stem, version
    ['2501.00010v1', '2501.00010v1', '2501', '2501.00010v1', 1],
    ['2501.0001v2', '2501.0001v2', '2501', '2501.0001v2', 2],
    ['2501.00010', '2501.00010', '2501', '2501.00010', null],
    ['  arXiv:2501.00010v1 ', '2501.00010v1', '2501', '2501.00010v1', 1],
    ['ARXIV:  2501.00010V3', '2501.00010v3', '2501', '2501.00010v3', 3],
    ['arxiv:quant-ph/9508027', 'quant-ph/9508027', '9508', 'quant-ph_9508027', null],
    ['quant-ph/9508027v1', 'quant-ph/9508027v1', '9508', 'quant-ph_9508027v1', 1],
    ['cond-mat.stat-mech/0001001v2', 'cond-mat.stat-mech/0001001v2', '0001', 'cond-mat.stat-mech_0001001v2', 2],
    ['cs.AI/0001001v1', 'cs.AI/0001001v1', '0001', 'cs.AI_0001001v1', 1],
    ['hep-th/9901001v12', 'hep-th/9901001v12', '9901', 'hep-th_9901001v12', 12],
    ['9508027v2', 'quant-ph/9508027v2', '9508', 'quant-ph_9508027v2', 2],
    ['9508027', 'quant-ph/9508027', '9508', 'quant-ph_9508027', null],
    ['2512.12345v10', '2512.12345v10', '2512', '2512.12345v10', 10],
  ];
  it.each(valid)('%s → %s', (input, canonical, shard, stem, version) => {
    const id = parsePreprintId(input);
    expect(id).not.toBeNull();
    expect(id!.id).toBe(canonical);
    expect(id!.yymm).toBe(shard);
    expect(id!.stem).toBe(stem);
    expect(id!.version).toBe(version);
    expect(id!.versionless).toBe(canonical.replace(/v\d+$/, ''));
  });

  it('marks the category default', () => {
    expect(parsePreprintId('9508027v2')!.categoryDefaulted).toBe(true);
    expect(parsePreprintId('quant-ph/9508027v2')!.categoryDefaulted).toBe(false);
    expect(parsePreprintId('cond-mat.stat-mech/0001001v2')!.category).toBe('cond-mat.stat-mech');
    expect(parsePreprintId('2501.00010v1')!.category).toBeNull();
  });

  const invalid = [
    '',
    '   ',
    '2501.00010v0',
    '2513.00010v1', // month 13
    '2500.00010v1', // month 00
    '2501.010v1', // 3 digits
    '2501.000100v1', // 6 digits
    '2501.00010v',
    '2501.00010v01',
    'Quant-ph/9508027v1', // archive is lower case
    'quant-ph/950802v1', // 6 digits
    'quant-ph/95080270v1',
    'quant-ph-/9508027v1',
    'quant_ph/9508027v1',
    '950802v1',
    '/9508027v1',
    'quant-ph/9508027v1/',
    '10.1234/abc',
    'arXiv:',
    '2501.00010v1 extra',
    '2501.00010v1\n', // a control character is never trimmed away
    '\t2501.00010v1',
    'quant-ph/9508027v1\r\n',
    '2501.00010\u0000v1',
  ];
  it.each(invalid)('rejects %j', (input) => {
    expect(parsePreprintId(input)).toBeNull();
  });
});

describe('OpenAPI patterns of the grammar', () => {
  const versioned = new RegExp(VERSIONED_ID_PATTERN);
  const any = new RegExp(PREPRINT_ID_PATTERN);
  it.each(['2501.00010v1', 'quant-ph/9508027v1', 'cond-mat.stat-mech/0001001v2', 'cs.AI/0001001v1', '9508027v2'])(
    'accepts the canonical versioned form %j, as the parser does',
    (id) => {
      expect(versioned.test(id)).toBe(true);
      expect(any.test(id)).toBe(true);
      expect(parseVersionedId(id)).not.toBeNull();
    },
  );
  it.each(['2501.00010', 'quant-ph/9508027', '9508027'])(
    'versionless %j matches only the optional-version one',
    (id) => {
      expect(versioned.test(id)).toBe(false);
      expect(any.test(id)).toBe(true);
    },
  );
  it.each(['2513.00010v1', '2501.00010v0', 'Quant-ph/9508027v1', '950802v1', '2501.00010v1\n', 'x'])(
    'refuses %j, as the parser does',
    (id) => {
      expect(versioned.test(id)).toBe(false);
      expect(any.test(id)).toBe(false);
      expect(parsePreprintId(id)).toBeNull();
    },
  );
});

describe('CONTRACT §2.2 upload ids', () => {
  it.each([
    '2501.00010',
    'quant-ph/9508027',
    '9508027',
    'nonsense',
    '',
    '2501.00010v1\n',
    '2501.00010v1\r',
    '\r\n9508027v1',
  ])('versionless/invalid %j → the exact invalid-input message', (raw) => {
    let err: unknown;
    try {
      requireUploadId(raw);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InvalidInputError);
    expect((err as InvalidInputError).message).toBe(
      `invalid preprint_id: ${JSON.stringify(raw)} (version suffix vN required)`,
    );
    expect((err as InvalidInputError).fields).toEqual({});
  });

  it('quotes the raw input JSON-style', () => {
    expect(() => requireUploadId('a"b')).toThrow('invalid preprint_id: "a\\"b" (version suffix vN required)');
  });

  it('ingest accepts versionless and rejects junk with its own text', () => {
    expect(requireIngestId('9508027').id).toBe('quant-ph/9508027');
    expect(() => requireIngestId('junk')).toThrow('invalid preprint_id: "junk"');
  });
});

describe('CONTRACT §3.2 legacy read keys', () => {
  it('old-style ids drop the category', () => {
    const keys = legacyPaperKeys(requireUploadId('quant-ph/9508027v1'));
    expect(keys).toEqual({
      pdf: 'pdf/9508/9508027v1.pdf',
      markdown: 'markdown/9508/9508027v1.md',
      imagesPrefix: 'images/9508/9508027v1/',
    });
    expect(legacyPaperKeys(requireUploadId('cs.AI/0001001v3'))!.pdf).toBe('pdf/0001/0001001v3.pdf');
  });
  it('new-style ids never have one', () => {
    expect(legacyPaperKeys(requireUploadId('2501.00010v1'))).toBeNull();
  });
});

describe('keys back to ids (rebuild mapping)', () => {
  const rows: [string, string | null, boolean, string | null][] = [
    ['pdf/2501/2501.00010v1.pdf', '2501.00010v1', false, null],
    ['markdown/9508/quant-ph_9508027v1.md', 'quant-ph/9508027v1', false, null],
    ['pdf/9508/9508027v1.pdf', 'quant-ph/9508027v1', true, null],
    ['images/9508/9508027v1/fig/a.png', 'quant-ph/9508027v1', true, 'fig/a.png'],
    ['images/0001/cond-mat.stat-mech_0001001v2/x.jpg', 'cond-mat.stat-mech/0001001v2', false, 'x.jpg'],
    ['pdf/2502/2501.00010v1.pdf', null, false, null], // wrong shard
    ['pdf/2501/2501.00010.pdf', null, false, null], // no version
    ['pdf/2501/2501.00010v1.md', null, false, null],
    ['pdf/index/papers.parquet', null, false, null],
    ['images/2501/2501.00010v1/', null, false, null],
    ['other/2501/2501.00010v1.pdf', null, false, null],
  ];
  it.each(rows)('%s', (key, id, legacy, file) => {
    const parsed = parseAssetKey(key);
    if (id === null) {
      expect(parsed).toBeNull();
      return;
    }
    expect(parsed!.id.id).toBe(id);
    expect(parsed!.legacy).toBe(legacy);
    expect(parsed!.file).toBe(file);
  });

  it('idFromStem round-trips and refuses bare numbers', () => {
    expect(idFromStem('quant-ph_9508027v1')!.id).toBe('quant-ph/9508027v1');
    expect(idFromStem('2501.00010v1')!.id).toBe('2501.00010v1');
    expect(idFromStem('9508027v1')).toBeNull();
    expect(idFromStem('quant-ph/9508027v1')).toBeNull();
  });
});

describe('pdf_url', () => {
  it('uses the canonical id with the category path', () => {
    expect(preprintPdfUrl('https://arxiv.org', parseVersionedId('9508027v2')!)).toBe(
      'https://arxiv.org/pdf/quant-ph/9508027v2',
    );
    expect(preprintPdfUrl('http://x/', parseVersionedId('2501.00010v1')!)).toBe('http://x/pdf/2501.00010v1');
  });
});
