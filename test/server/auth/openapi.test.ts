import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLIC, SUPERUSER, SUPERUSER_OR_SESSION } from '../../../src/server/routes/guard.js';
import { authHarness, type AuthHarness } from './harness.js';

/** The seven admin data operations (CONTRACT §7.9) and the guard each declares. */
const ADMIN_OPERATIONS = [
  ['get', '/api/collections/users/records', 'superuser'],
  ['delete', '/api/collections/users/records/{id}', 'superuser'],
  ['post', '/api/admin/users/{id}/revoke-sessions', 'superuser'],
  ['get', '/api/collections/pat_tokens/records', 'superuser-or-session'],
  ['delete', '/api/collections/pat_tokens/records/{id}', 'superuser-or-session'],
  ['get', '/api/admin/settings', 'superuser'],
  ['get', '/api/admin/health', 'superuser'],
] as const;

type Doc = {
  swagger: string;
  paths: Record<string, Record<string, { security?: unknown; responses: Record<string, { schema?: unknown }> }>>;
};

describe('OpenAPI document', () => {
  let h: AuthHarness;
  let doc: Doc;
  beforeAll(async () => {
    // Probe routes without a `security` of their own: whatever the document says about them comes from the guard.
    const probe = (guard: typeof PUBLIC) => ({
      config: { guard },
      schema: { response: { 200: Type.Object({ ok: Type.Boolean() }) } },
    });
    h = await authHarness(
      {},
      {
        register: (app) => {
          app.get('/api/admin/probe-superuser', probe(SUPERUSER), async () => ({ ok: true }));
          app.get('/api/collections/probe-owner', probe(SUPERUSER_OR_SESSION), async () => ({ ok: true }));
          app.get('/api/probe-public', probe(PUBLIC), async () => ({ ok: true }));
        },
      },
    );
    doc = (await h.inject({ method: 'GET', url: '/swagger/doc.json' })).json();
  });
  afterAll(() => h.close());

  it('documents the identity routes from their validation schemas', async () => {
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
    const create = doc.paths['/api/pat']!['post'] as unknown as {
      parameters: { in: string; schema: { properties: object; additionalProperties: boolean } }[];
      responses: object;
    };
    const body = create.parameters.find((p) => p.in === 'body')!;
    expect(Object.keys(body.schema.properties)).toEqual(['name', 'description', 'expires_in_days', 'scopes']);
    expect(body.schema.additionalProperties).toBe(false);
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['201', '400', '429']));
  });

  it.each(ADMIN_OPERATIONS)(
    '%s %s: Bearer security and the PocketBase 401 from its %s guard, no 403',
    (method, path, guard) => {
      const route = path.replace(/\{id\}/g, ':id');
      expect(h.app.routeTable.find((r) => r.method === method.toUpperCase() && r.url === route)?.guard).toEqual({
        kind: guard,
      });
      const op = doc.paths[path]![method]!;
      expect(op.security).toEqual([{ Bearer: [] }]);
      expect(op.responses['401']!.schema).toMatchObject({
        type: 'object',
        properties: { status: { type: 'integer' }, message: { type: 'string' }, data: { type: 'object' } },
      });
      expect(op.responses['403']).toBeUndefined();
    },
  );

  it("an operation's security comes from its guard, not from its schema", () => {
    for (const path of ['/api/admin/probe-superuser', '/api/collections/probe-owner']) {
      expect(doc.paths[path]!['get']!.security, path).toEqual([{ Bearer: [] }]);
      expect(Object.keys(doc.paths[path]!['get']!.responses), path).toEqual(expect.arrayContaining(['200', '401']));
    }
    expect(doc.paths['/api/probe-public']!['get']!.security).toBeUndefined();
    expect(doc.paths['/api/probe-public']!['get']!.responses['401']).toBeUndefined();
  });
});
