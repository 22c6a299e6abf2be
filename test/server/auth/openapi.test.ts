import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authHarness, type AuthHarness } from './harness.js';

describe('OpenAPI document', () => {
  let h: AuthHarness;
  beforeAll(async () => {
    h = await authHarness();
  });
  afterAll(() => h.close());

  it('documents the identity routes from their validation schemas', async () => {
    const res = await h.inject({ method: 'GET', url: '/swagger/doc.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.swagger).toBe('2.0');
    for (const path of [
      '/api/pat',
      '/api/pat/{id}',
      '/api/oauth/device/code',
      '/api/oauth/device/token',
      '/api/collections/users/auth-with-oauth2',
    ]) {
      expect(doc.paths[path], path).toBeDefined();
    }
    const create = doc.paths['/api/pat'].post;
    const body = create.parameters.find((p: { in: string }) => p.in === 'body');
    expect(Object.keys(body.schema.properties)).toEqual(['name', 'description', 'expires_in_days', 'scopes']);
    expect(body.schema.additionalProperties).toBe(false);
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['201', '400', '429']));
  });
});
