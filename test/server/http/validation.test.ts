import { describe, expect, it } from 'vitest';
import { validatorsByPart } from '../../../src/server/http/validation.js';

type Validator = ((data: unknown) => unknown) & { readonly errors?: unknown; readonly schemaEnv?: unknown };
const compiler = (validatorsByPart as unknown as (external: object, options: object) => (route: object) => Validator)(
  {},
  {},
);
const route = (httpPart: string, schema: object) => ({ schema, httpPart, method: 'POST', url: '/x' });

describe('route validators (compiled on first use)', () => {
  it('text parts are coerced, JSON bodies validated as sent; errors as Ajv reports them', () => {
    const schema = { type: 'object', properties: { limit: { type: 'integer' }, ids: { type: 'array' } } };
    const query = compiler(route('querystring', schema));
    const data: Record<string, unknown> = { limit: '5', ids: 'a' };
    expect(query(data)).toBe(true);
    expect(data).toEqual({ limit: 5, ids: ['a'] });
    expect(query({ limit: 'five' })).toBe(false);
    expect(query.errors).toMatchObject([{ instancePath: '/limit', message: 'must be integer' }]);

    const body = compiler(route('body', { type: 'object', properties: { name: { type: 'string' } } }));
    expect(body({ name: 5 })).toBe(false);
    expect(body.errors).toMatchObject([{ instancePath: '/name', message: 'must be string' }]);
    expect(body({ name: 'x' })).toBe(true);
    expect(body.errors).toBeNull();
    // Fastify passes the parent data (root coercion) to a function that has `schemaEnv`, as Ajv's have.
    expect(body.schemaEnv).toBeTruthy();
  });

  it('building a route’s validator does not compile its schema; its first use does', () => {
    const broken = compiler(route('body', { type: 'no-such-type' }));
    expect(() => broken({})).toThrow('schema is invalid: data/type must be equal to one of the allowed values');
  });
});
