/**
 * Query schemas (http/query-schema.ts): one declaration gives the documented object, the typed value and the
 * contract's 400 messages; unknown parameters are ignored, repeated ones follow §0.2.
 */
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../src/shared/domain-errors.js';
import {
  booleanField,
  booleanFilterField,
  integerField,
  listField,
  mapField,
  oneOfField,
  queryDecoder,
  queryDocument,
  querySchema,
  sha256Field,
  textField,
} from '../../../src/server/http/query-schema.js';

const Query = querySchema({
  overwrite: booleanField('replace'),
  has_md: booleanFilterField('filter'),
  page: mapField(integerField('page', 1), (n) => Math.max(1, n)),
  expected_sha256: sha256Field('hash'),
  q: textField('text'),
  sort: oneOfField(['updated_at', 'id'], 'updated_at', 'order'),
  ids: listField('ids'),
});
const decode = queryDecoder(Query);

/** The message of the 400 `decode(query)` throws. */
function refusal(query: Record<string, unknown>): string {
  try {
    decode(query);
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidInputError);
    return (err as Error).message;
  }
  throw new Error(`accepted ${JSON.stringify(query)}`);
}

describe('querySchema', () => {
  it('decodes absent parameters to their defaults and ignores unknown ones', () => {
    expect(decode({ extra: 'x' })).toEqual({
      overwrite: false,
      has_md: null,
      page: 1,
      expected_sha256: null,
      q: null,
      sort: 'updated_at',
      ids: [],
    });
  });

  it('decodes given parameters to typed values (repeated text: the first; a list: every value)', () => {
    const sha = 'AB'.repeat(32);
    const query = decode({
      overwrite: 'TRUE',
      has_md: '0',
      page: ' -3 ',
      expected_sha256: sha,
      q: ['first', 'second'],
      sort: 'id',
      ids: ['a,b', 'c'],
    });
    expect(query).toEqual({
      overwrite: true,
      has_md: false,
      page: 1,
      expected_sha256: sha.toLowerCase(),
      q: 'first',
      sort: 'id',
      ids: ['a,b', 'c'],
    });
  });

  it.each([
    [{ overwrite: 'yes' }, 'overwrite must be a boolean'],
    [{ overwrite: ['true', 'false'] }, 'overwrite must be a boolean'],
    [{ has_md: '' }, 'has_md must be a boolean'],
    [{ page: '1.5' }, 'page must be an integer'],
    [{ page: '' }, 'page must be an integer'],
    [{ expected_sha256: 'xyz' }, 'expected_sha256 must be 64 hex characters'],
    [{ sort: 'title' }, 'sort must be one of updated_at, id'],
  ])('refuses %j: %s', (query, message) => {
    expect(refusal(query)).toBe(message);
  });

  it('documents each field with its own schema, none required', () => {
    const doc = JSON.parse(JSON.stringify(queryDocument(Query))) as {
      type: string;
      required?: string[];
      properties: Record<string, Record<string, unknown>>;
    };
    expect(doc.type).toBe('object');
    expect(doc.required).toBeUndefined();
    expect(doc.properties['overwrite']).toMatchObject({ type: 'string', description: 'replace' });
    expect(doc.properties['page']).toEqual({ type: 'integer', description: 'page' });
    expect(doc.properties['sort']).toEqual({
      type: 'string',
      enum: ['updated_at', 'id'],
      default: 'updated_at',
      description: 'order',
    });
    expect(doc.properties['ids']).toEqual({ type: 'array', items: { type: 'string' }, description: 'ids' });
  });
});
