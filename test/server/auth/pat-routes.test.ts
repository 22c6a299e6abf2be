import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { authHarness, bearer, SYSTEM_PAT, type AuthHarness } from './harness.js';
import { sql } from '../../support/user-db.js';

const DAY = 86_400_000;
const SESSION_REQUIRED = {
  detail: 'this endpoint requires a browser session (PATs and the system PAT are not accepted)',
};

describe('PAT management routes', () => {
  let h: AuthHarness;
  let session: Awaited<ReturnType<AuthHarness['login']>>;
  const create = (payload: unknown, token = session.token) =>
    h.inject({ method: 'POST', url: '/api/pat', headers: bearer(token), payload: payload as object });

  beforeEach(async () => {
    h = await authHarness();
    session = await h.login('alice');
  });
  afterEach(() => h.close());

  it('POST /api/pat → 201 with the plaintext once; GET lists without it', async () => {
    const res = await create({
      name: '  laptop ',
      expires_in_days: 90,
      scopes: ['wiki:read', 'papers:write', 'wiki:read'],
    });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toEqual({
      id: expect.stringMatching(/^[a-z0-9]{15}$/),
      name: 'laptop',
      prefix: body.plaintext.slice(0, 12),
      plaintext: expect.stringMatching(/^pat_[A-Za-z0-9]{32}$/),
      description: '',
      scopes: ['wiki:read', 'papers:write'],
      expires_at: '2026-07-30T12:00:00Z',
      created: '2026-05-01T12:00:00Z',
    });
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');

    const list = await h.inject({ method: 'GET', url: '/api/pat', headers: bearer(session.token) });
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual({
      tokens: [
        {
          id: body.id,
          name: 'laptop',
          prefix: body.prefix,
          description: '',
          scopes: ['wiki:read', 'papers:write'],
          expires_at: '2026-07-30T12:00:00Z',
          last_used_at: null,
          created: '2026-05-01T12:00:00Z',
          expired: false,
        },
      ],
    });
    expect(list.body).not.toContain(body.plaintext);
  });

  it('GET /api/pat: newest first, own tokens only, expired included, scopes never null, last use shown', async () => {
    const first = (await create({ name: 'one', expires_in_days: 1, scopes: [] })).json();
    h.clock.advance(1000);
    const second = (await create({ name: 'two', description: 'd', expires_in_days: 7, scopes: ['graph:read'] })).json();
    const bob = await h.login('bob');
    await create({ name: 'bobs', expires_in_days: 7, scopes: [] }, bob.token);
    await sql(h.identity.db, 'UPDATE pat_tokens SET scopes = NULL WHERE id = ?', first.id);
    await h.inject({ method: 'GET', url: '/api/pat/scopes', headers: bearer(second.plaintext) });
    h.clock.advance(2 * DAY);
    // a guarded request with the second PAT records its use
    await h.inject({ method: 'GET', url: '/api/pat', headers: bearer(second.plaintext) });
    const list = async () =>
      (await h.inject({ method: 'GET', url: '/api/pat', headers: bearer(session.token) })).json().tokens;
    // The use is recorded in the background, a database round trip of its own: await it, then read the list.
    await expect.poll(async () => (await list())[0].last_used_at).toBe('2026-05-03T12:00:01Z');
    const tokens = await list();
    expect(tokens.map((t: { name: string }) => t.name)).toEqual(['two', 'one']);
    expect(tokens[1]).toMatchObject({ scopes: [], expired: true });
    expect(tokens[0]).toMatchObject({ description: 'd', expired: false, last_used_at: '2026-05-03T12:00:01Z' });
  });

  it.each([
    [{ expires_in_days: 30, scopes: [] }, 'name required'],
    [{ name: '   ', expires_in_days: 30, scopes: [] }, 'name required'],
    [{ name: 'x'.repeat(81), expires_in_days: 30, scopes: [] }, 'name max length is 80'],
    [{ name: 'n', description: 'd'.repeat(201), expires_in_days: 30, scopes: [] }, 'description max length is 200'],
    [{ name: 'n', scopes: [] }, 'expires_in_days is required and must be an integer between 1 and 365'],
    [
      { name: 'n', expires_in_days: 0, scopes: [] },
      'expires_in_days is required and must be an integer between 1 and 365',
    ],
    [
      { name: 'n', expires_in_days: 1.5, scopes: [] },
      'expires_in_days is required and must be an integer between 1 and 365',
    ],
    [
      { name: 'n', expires_in_days: '30', scopes: [] },
      'expires_in_days is required and must be an integer between 1 and 365',
    ],
    [{ name: 'n', expires_in_days: 366, scopes: [] }, 'expires_in_days exceeds maximum of 365 (one year)'],
    [{ name: 'n', expires_in_days: 30, scopes: ['wiki:admin'] }, 'unknown scope "wiki:admin"'],
    [{ name: 'n', expires_in_days: 30, scopes: ['*'] }, 'wildcard scope is not allowed'],
    [{ name: 'n', expires_in_days: 30, scopes: [], owner: 'x' }, "unknown field 'owner'"],
  ])('POST /api/pat %j → 400 %s', async (payload, detail) => {
    const res = await create(payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ detail });
  });

  it('accepts an empty scope list and the limits 1, 80 and 365', async () => {
    const res = await create({ name: 'x'.repeat(80), description: 'd'.repeat(200), expires_in_days: 365, scopes: [] });
    expect(res.statusCode).toBe(201);
    expect(res.json().expires_at).toBe('2027-05-01T12:00:00Z');
    expect((await create({ name: 'n', expires_in_days: 1, scopes: [] })).statusCode).toBe(201);
  });

  it('invalid JSON → 400 parse body', async () => {
    const res = await h.inject({
      method: 'POST',
      url: '/api/pat',
      headers: { ...bearer(session.token), 'content-type': 'application/json' },
      payload: '{"name":',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toMatch(/^parse body: /);
  });

  it('an empty JSON body counts as no body (validated as such), prototype poisoning is refused', async () => {
    const empty = await h.inject({
      method: 'POST',
      url: '/api/pat',
      headers: { ...bearer(session.token), 'content-type': 'application/json' },
      payload: '',
    });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().detail).not.toMatch(/^parse body: /);
    const poisoned = await h.inject({
      method: 'POST',
      url: '/api/pat',
      headers: { ...bearer(session.token), 'content-type': 'application/json' },
      payload: '{"name":"n","expires_in_days":1,"scopes":[],"__proto__":{"admin":true}}',
    });
    expect(poisoned.statusCode).toBe(400);
  });

  it('DELETE /api/pat/{id} revokes the owner’s token; unknown or foreign → 404 token not found', async () => {
    const pat = (await create({ name: 'n', expires_in_days: 30, scopes: ['wiki:read'] })).json();
    const bob = await h.login('bob');
    const foreign = await h.inject({ method: 'DELETE', url: `/api/pat/${pat.id}`, headers: bearer(bob.token) });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toEqual({ detail: 'token not found' });
    const ok = await h.inject({ method: 'DELETE', url: `/api/pat/${pat.id}`, headers: bearer(session.token) });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ ok: true });
    const again = await h.inject({ method: 'DELETE', url: `/api/pat/${pat.id}`, headers: bearer(session.token) });
    expect(again.statusCode).toBe(404);
    const used = await h.inject({ method: 'GET', url: '/api/pat', headers: bearer(pat.plaintext) });
    expect(used.statusCode).toBe(401);
  });

  it('PATs and the system PAT get 403 on the session-only routes; no credential → 401', async () => {
    const pat = (await create({ name: 'n', expires_in_days: 30, scopes: ['wiki:read'] })).json();
    for (const token of [pat.plaintext, SYSTEM_PAT]) {
      for (const [method, url] of [
        ['GET', '/api/pat'],
        ['POST', '/api/pat'],
        ['DELETE', `/api/pat/${pat.id}`],
      ] as const) {
        const res = await h.inject({
          method,
          url,
          headers: bearer(token),
          ...(method === 'POST' ? { payload: { name: 'n', expires_in_days: 1 } } : {}),
        });
        expect(res.statusCode, `${method} ${url}`).toBe(403);
        expect(res.json()).toEqual(SESSION_REQUIRED);
      }
    }
    const anon = await h.inject({ method: 'GET', url: '/api/pat' });
    expect(anon.statusCode).toBe(401);
    expect(anon.json()).toEqual({
      detail: 'authentication required (sign in at /login and mint a PAT at /pat, or use the system PAT)',
    });
  });

  it('an expired session token is 401; the session lasts 14 days', async () => {
    h.clock.advance(14 * DAY - 1000);
    expect((await h.inject({ method: 'GET', url: '/api/pat', headers: bearer(session.token) })).statusCode).toBe(200);
    h.clock.advance(1000);
    expect((await h.inject({ method: 'GET', url: '/api/pat', headers: bearer(session.token) })).statusCode).toBe(401);
  });

  it('rotating the user token key revokes every session', async () => {
    await h.identity.users.rotateTokenKey(session.user.id);
    expect((await h.inject({ method: 'GET', url: '/api/pat', headers: bearer(session.token) })).statusCode).toBe(401);
  });
});
