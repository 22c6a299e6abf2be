import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { authHarness, bearer, type AuthHarness } from './harness.js';

const EMAIL = 'root@example.org';
const PASSWORD = 'correct horse battery';

describe('superusers and the admin routes', () => {
  let h: AuthHarness;
  let su: string;
  beforeAll(async () => {
    h = await authHarness();
    await h.identity.superusers.upsert(EMAIL, PASSWORD);
  });
  afterAll(() => h.close());

  const signIn = (identity: string, password: string, remoteAddress = '127.0.0.1') =>
    h.inject({
      method: 'POST',
      url: '/api/collections/_superusers/auth-with-password',
      payload: { identity, password },
      remoteAddress,
    });

  beforeEach(async () => {
    const res = await signIn(EMAIL, PASSWORD, '10.9.9.9');
    expect(res.statusCode).toBe(200);
    su = res.json().token;
  });

  it('auth-with-password → token (1 day) and the _superusers record', async () => {
    const res = await signIn('ROOT@example.org', PASSWORD, '10.0.0.1');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.record).toEqual({
      collectionId: 'pbc_3142635823',
      collectionName: '_superusers',
      id: expect.stringMatching(/^[a-z0-9]{15}$/),
      email: EMAIL,
      created: '2026-05-01 12:00:00.000Z',
      updated: '2026-05-01 12:00:00.000Z',
    });
    const claims = JSON.parse(Buffer.from(body.token.split('.')[1], 'base64url').toString());
    expect(claims.exp - claims.iat).toBe(86_400);
  });

  it('wrong credentials → 400 Failed to authenticate.; the 11th failure per minute per IP → 429', async () => {
    for (let i = 0; i < 10; i++) {
      const res = await signIn(EMAIL, 'wrong password', '10.0.0.2');
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ status: 400, message: 'Failed to authenticate.', data: {} });
    }
    const limited = await signIn(EMAIL, PASSWORD, '10.0.0.2');
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBe('60');
    expect((await signIn('nobody@example.org', PASSWORD, '10.0.0.3')).statusCode).toBe(400);
    expect((await signIn(EMAIL, PASSWORD, '10.0.0.3')).statusCode).toBe(200); // other IPs unaffected
  });

  it('a superuser token is not a credential for the other /api/* routes', async () => {
    const res = await h.inject({ method: 'GET', url: '/api/pat', headers: bearer(su) });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ detail: 'invalid or expired credential' });
  });

  it('users list pages; a user session or no token → 401', async () => {
    const a = await h.login('pagea');
    await h.login('pageb');
    const res = await h.inject({
      method: 'GET',
      url: '/api/collections/users/records?page=1&perPage=1',
      headers: { authorization: su },
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ page: 1, perPage: 1, totalPages: body.totalItems });
    expect(body.items).toHaveLength(1);
    expect(body.items[0]).toMatchObject({ collectionName: 'users' });
    for (const headers of [{}, { authorization: a.token }]) {
      const denied = await h.inject({ method: 'GET', url: '/api/collections/users/records', headers });
      expect(denied.statusCode).toBe(401);
      expect(denied.json()).toEqual({
        status: 401,
        message: 'The request requires valid superuser authorization token.',
        data: {},
      });
    }
    // a superuser may read any user record
    const one = await h.inject({
      method: 'GET',
      url: `/api/collections/users/records/${a.user.id}`,
      headers: { authorization: su },
    });
    expect(one.statusCode).toBe(200);
  });

  it('PAT records: superuser sees all or filters by user; a session sees only its own; delete purges the cache', async () => {
    const alice = await h.login('alice');
    const bob = await h.login('bob');
    const pa = await h.identity.pats.mint(alice.user.id, {
      name: 'a',
      description: '',
      expiresInDays: 5,
      scopes: ['wiki:read'],
    });
    const pb = await h.identity.pats.mint(bob.user.id, { name: 'b', description: '', expiresInDays: 5, scopes: [] });
    const list = (headers: Record<string, string>, filter?: string) =>
      h.inject({
        method: 'GET',
        url: `/api/collections/pat_tokens/records${filter ? `?filter=${encodeURIComponent(filter)}` : ''}`,
        headers,
      });
    const filtered = (await list({ authorization: su }, `user='${alice.user.id}'`)).json();
    expect(filtered.items.map((p: { id: string }) => p.id)).toEqual([pa.id]);
    expect(filtered.items[0]).toEqual({
      collectionId: 'pat_tokens',
      collectionName: 'pat_tokens',
      id: pa.id,
      user: alice.user.id,
      name: 'a',
      description: '',
      prefix: pa.prefix,
      scopes: ['wiki:read'],
      expires_at: '2026-05-06 12:00:00.000Z',
      last_used_at: '',
      created: '2026-05-01 12:00:00.000Z',
      updated: '2026-05-01 12:00:00.000Z',
    });
    expect(JSON.stringify(filtered)).not.toMatch(/token_hash|[0-9a-f]{64}/);
    const own = (await list(bearer(bob.token))).json();
    expect(own.items.map((p: { id: string }) => p.id)).toEqual([pb.id]);
    expect((await list(bearer(bob.token), `user='${alice.user.id}'`)).json().items).toEqual([]);
    expect((await list({ authorization: su }, 'name="x"')).statusCode).toBe(400);

    expect(await h.identity.pats.verify(pa.plaintext, false)).not.toBeNull(); // now cached
    const foreign = await h.inject({
      method: 'DELETE',
      url: `/api/collections/pat_tokens/records/${pa.id}`,
      headers: bearer(bob.token),
    });
    expect(foreign.statusCode).toBe(404);
    const byOwner = await h.inject({
      method: 'DELETE',
      url: `/api/collections/pat_tokens/records/${pa.id}`,
      headers: bearer(alice.token),
    });
    expect(byOwner.statusCode).toBe(204);
    expect(await h.identity.pats.verify(pa.plaintext, false)).toBeNull();
    const bySu = await h.inject({
      method: 'DELETE',
      url: `/api/collections/pat_tokens/records/${pb.id}`,
      headers: { authorization: su },
    });
    expect(bySu.statusCode).toBe(204);
  });

  it('deleting a user (superuser) → 204; its PATs stop working at once and its sessions too', async () => {
    const carol = await h.login('carol');
    const pat = await h.identity.pats.mint(carol.user.id, {
      name: 'c',
      description: '',
      expiresInDays: 5,
      scopes: ['wiki:read'],
    });
    expect(await h.identity.pats.verify(pat.plaintext, false)).not.toBeNull();
    const del = await h.inject({
      method: 'DELETE',
      url: `/api/collections/users/records/${carol.user.id}`,
      headers: { authorization: su },
    });
    expect(del.statusCode).toBe(204);
    expect(await h.identity.pats.verify(pat.plaintext, false)).toBeNull();
    expect((await h.inject({ method: 'GET', url: '/api/pat', headers: bearer(carol.token) })).statusCode).toBe(401);
    const again = await h.inject({
      method: 'DELETE',
      url: `/api/collections/users/records/${carol.user.id}`,
      headers: { authorization: su },
    });
    expect(again.statusCode).toBe(404);
  });

  it('settings (masked, sorted) and the full health body need a superuser token', async () => {
    const settings = await h.inject({ method: 'GET', url: '/api/admin/settings', headers: { authorization: su } });
    expect(settings.statusCode).toBe(200);
    const names = settings.json().settings.map((s: { name: string }) => s.name);
    expect(names).toEqual([...names].sort((a: string, b: string) => a.localeCompare(b)));
    expect(names).toContain('SVC_SYSTEM_PAT');
    const health = await h.inject({ method: 'GET', url: '/api/admin/health', headers: { authorization: su } });
    expect(health.statusCode).toBe(200);
    expect(health.json().data.checks.rawstore.dir).toBe(h.config.rawDir);
    for (const url of ['/api/admin/settings', '/api/admin/health']) {
      expect((await h.inject({ method: 'GET', url })).statusCode).toBe(401);
    }
  });

  it('a password reset (upsert) ends the old superuser tokens', async () => {
    await h.identity.superusers.upsert(EMAIL, PASSWORD);
    expect(
      (await h.inject({ method: 'GET', url: '/api/admin/settings', headers: { authorization: su } })).statusCode,
    ).toBe(401);
  });

  it('superuser tokens expire after a day', async () => {
    h.clock.advance(86_400_000);
    expect(
      (await h.inject({ method: 'GET', url: '/api/admin/settings', headers: { authorization: su } })).statusCode,
    ).toBe(401);
  });

  it('GET /_/ serves the self-contained admin page; /_ redirects to it', async () => {
    const page = await h.inject({ method: 'GET', url: '/_/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.body).not.toMatch(/(src|href)=["']?(https?:)?\/\//);
    const script = await h.inject({ method: 'GET', url: '/_/admin.js' });
    expect(script.statusCode).toBe(200);
    expect(script.body).toContain('auth-with-password');
    expect(script.body).not.toMatch(/(https?:)?\/\/[a-z]/i);
    const redirect = await h.inject({ method: 'GET', url: '/_' });
    expect(redirect.statusCode).toBe(302);
    expect(redirect.headers.location).toBe('/_/');
  });
});
