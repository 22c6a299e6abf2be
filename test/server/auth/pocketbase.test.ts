import { createHash } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startGitHubDouble, type GitHubDouble, type GitHubUser } from '../../support/upstreams/github.js';
import { authHarness, bearer, SYSTEM_PAT, type AuthHarness } from './harness.js';

const PUBLIC_URL = 'https://pks.example.org';
const REDIRECT = `${PUBLIC_URL}/api/oauth2-redirect`;
const OCTO: GitHubUser = {
  id: 583231,
  login: 'Octocat',
  name: 'The Octocat',
  email: 'octocat@github.example',
  avatar_url: 'https://avatars.example/u/583231',
};

let gh: GitHubDouble;
beforeAll(async () => {
  gh = await startGitHubDouble(OCTO);
});
afterAll(() => gh.close());

const harnesses: AuthHarness[] = [];
afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.close();
  gh.user = OCTO;
});
async function harness(env: Record<string, string>): Promise<AuthHarness> {
  const h = await authHarness({ SVC_PUBLIC_URL: PUBLIC_URL, ...gh.env, ...env });
  harnesses.push(h);
  return h;
}

/** The browser's side of the sign-in: auth-methods → IdP authorize → /api/oauth2-redirect → auth-with-oauth2. */
async function signIn(h: AuthHarness, providerName = 'github') {
  const methods = await h.inject({ method: 'GET', url: '/api/collections/users/auth-methods' });
  expect(methods.statusCode).toBe(200);
  const provider = methods.json().oauth2.providers[0];
  const authorize = await fetch(provider.authURL + encodeURIComponent(REDIRECT), { redirect: 'manual' });
  expect(authorize.status).toBe(302);
  const back = new URL(authorize.headers.get('location')!);
  expect(back.origin + back.pathname).toBe(REDIRECT);
  const callback = await h.inject({ method: 'GET', url: back.pathname + back.search });
  expect(callback.statusCode).toBe(302);
  expect(callback.headers.location).toBe(`/auth/callback${back.search}`);
  const params = new URL(callback.headers.location as string, PUBLIC_URL).searchParams;
  expect(params.get('state')).toBe(provider.state);
  return h.inject({
    method: 'POST',
    url: '/api/collections/users/auth-with-oauth2',
    payload: {
      provider: providerName,
      code: params.get('code'),
      codeVerifier: provider.codeVerifier,
      redirectURL: REDIRECT,
      createData: {},
    },
  });
}

describe('auth-methods', () => {
  it('lists the configured provider with PKCE material and an authURL ending in redirect_uri=', async () => {
    const h = await harness({ SVC_ALLOWED_IDP_LOGINS: 'octocat' });
    const body = (await h.inject({ method: 'GET', url: '/api/collections/users/auth-methods' })).json();
    expect(body).toMatchObject({
      password: { enabled: false, identityFields: [] },
      oauth2: { enabled: true },
      mfa: { enabled: false, duration: 0 },
      otp: { enabled: false, duration: 0 },
    });
    const p = body.oauth2.providers[0];
    expect(p).toMatchObject({ name: 'github', displayName: 'GitHub', codeChallengeMethod: 'S256' });
    expect(p.codeChallenge).toBe(createHash('sha256').update(p.codeVerifier).digest('base64url'));
    expect(p.authURL.endsWith('&redirect_uri=')).toBe(true);
    const q = new URL(p.authURL).searchParams;
    expect(Object.fromEntries(q)).toEqual({
      client_id: gh.clientId,
      response_type: 'code',
      scope: 'read:user user:email',
      state: p.state,
      code_challenge: p.codeChallenge,
      code_challenge_method: 'S256',
      redirect_uri: '',
    });
  });

  it('providers is empty when OAuth is not configured', async () => {
    const h = await authHarness();
    harnesses.push(h);
    const body = (await h.inject({ method: 'GET', url: '/api/collections/users/auth-methods' })).json();
    expect(body.oauth2).toEqual({ enabled: false, providers: [] });
  });
});

describe('sign-in through the GitHub double', () => {
  it('an allowed login gets a session token, a user record and PocketBase meta; the session works on /api/pat', async () => {
    const h = await harness({ SVC_ALLOWED_IDP_LOGINS: 'someone, OCTOCAT ' });
    const res = await signIn(h);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    const id = 'u' + createHash('sha256').update('github:583231').digest('hex').slice(0, 14);
    expect(body.record).toEqual({
      collectionId: '_pb_users_auth_',
      collectionName: 'users',
      id,
      email: 'octocat@github.example',
      emailVisibility: false,
      verified: true,
      name: 'The Octocat',
      login: 'Octocat',
      avatar: 'https://avatars.example/u/583231',
      provider: 'github',
      created: '2026-05-01 12:00:00.000Z',
      updated: '2026-05-01 12:00:00.000Z',
    });
    expect(body.meta).toEqual({
      id: '583231',
      name: 'The Octocat',
      username: 'Octocat',
      email: 'octocat@github.example',
      avatarURL: 'https://avatars.example/u/583231',
      accessToken: '',
      refreshToken: '',
      expiry: '',
      isNew: true,
      rawUser: {
        id: 583231,
        login: 'Octocat',
        name: 'The Octocat',
        email: 'octocat@github.example',
        avatar_url: 'https://avatars.example/u/583231',
      },
    });
    const [, payload] = (body.token as string).split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    expect(claims).toMatchObject({ id, type: 'auth', collectionId: '_pb_users_auth_', refreshable: true });
    expect(claims.exp - claims.iat).toBe(1_209_600);

    // the code exchange sent exactly the contract's fields
    const exchange = gh.requests.filter((r) => r.path === '/login/oauth/access_token').at(-1)!;
    expect(Object.keys(exchange.form!).sort()).toEqual([
      'client_id',
      'client_secret',
      'code',
      'code_verifier',
      'grant_type',
      'redirect_uri',
    ]);
    expect(exchange.form!['grant_type']).toBe('authorization_code');

    const pats = await h.inject({ method: 'GET', url: '/api/pat', headers: bearer(body.token) });
    expect(pats.statusCode).toBe(200);

    // a second sign-in updates the same record
    gh.user = { ...OCTO, name: 'Renamed' };
    const again = (await signIn(h)).json();
    expect(again.record).toMatchObject({ id, name: 'Renamed' });
    expect(again.meta.isNew).toBe(false);
    expect(await h.identity.users.count()).toBe(1);
  });

  it('a login outside the allow-list → 403, and no user record or token is created', async () => {
    const h = await harness({ SVC_ALLOWED_IDP_LOGINS: 'alice', SVC_ADMIN_IDP_LOGINS: 'bob' });
    const res = await signIn(h);
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ status: 403, message: 'This account is not authorized to sign in.', data: {} });
    expect(await h.identity.users.count()).toBe(0);
  });

  it('the admin list also admits, case-insensitively', async () => {
    const h = await harness({ SVC_ADMIN_IDP_LOGINS: 'OctoCat' });
    expect((await signIn(h)).statusCode).toBe(200);
  });

  it('both lists empty → nobody can sign in (fail closed)', async () => {
    const h = await harness({});
    expect((await signIn(h)).statusCode).toBe(403);
    expect(await h.identity.users.count()).toBe(0);
  });

  it('an empty login is refused', async () => {
    const h = await harness({ SVC_ALLOWED_IDP_LOGINS: 'octocat' });
    gh.user = { ...OCTO, login: ' ' };
    expect((await signIn(h)).statusCode).toBe(403);
  });

  it('GitHub without a public email: the primary verified address from /user/emails', async () => {
    const h = await harness({ SVC_ALLOWED_IDP_LOGINS: 'octocat' });
    gh.user = {
      ...OCTO,
      email: null,
      emails: [
        { email: 'old@example.org', primary: false, verified: true },
        { email: 'main@example.org', primary: true, verified: true },
      ],
    };
    const res = await signIn(h);
    expect(res.json().record.email).toBe('main@example.org');
  });

  it('IdP failures (bad code, wrong verifier, wrong provider) → 400 Failed to authenticate.', async () => {
    const h = await harness({ SVC_ALLOWED_IDP_LOGINS: 'octocat' });
    const failed = { status: 400, message: 'Failed to authenticate.', data: {} };
    const post = (payload: object) =>
      h.inject({ method: 'POST', url: '/api/collections/users/auth-with-oauth2', payload });
    const bad = await post({ provider: 'github', code: 'nope', codeVerifier: 'v', redirectURL: REDIRECT });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual(failed);
    expect((await post({ provider: 'gitlab', code: 'x', codeVerifier: 'v', redirectURL: REDIRECT })).json()).toEqual(
      failed,
    );
    expect((await post({})).json()).toEqual(failed);

    const provider = (await h.inject({ method: 'GET', url: '/api/collections/users/auth-methods' })).json().oauth2
      .providers[0];
    const authorize = await fetch(provider.authURL + encodeURIComponent(REDIRECT), { redirect: 'manual' });
    const code = new URL(authorize.headers.get('location')!).searchParams.get('code');
    const wrongVerifier = await post({
      provider: 'github',
      code,
      codeVerifier: 'x'.repeat(43),
      redirectURL: REDIRECT,
      unknownField: 1,
    });
    expect(wrongVerifier.json()).toEqual(failed); // unknown properties are ignored on PocketBase routes
    expect(await h.identity.users.count()).toBe(0);
  });

  it("a redirect target outside this server's origin is refused before the IdP is contacted", async () => {
    const h = await harness({ SVC_ALLOWED_IDP_LOGINS: 'octocat' });
    const provider = (await h.inject({ method: 'GET', url: '/api/collections/users/auth-methods' })).json().oauth2
      .providers[0];
    const authorize = await fetch(provider.authURL + encodeURIComponent(REDIRECT), { redirect: 'manual' });
    const code = new URL(authorize.headers.get('location')!).searchParams.get('code');
    const exchangesBefore = gh.requests.filter((r) => r.path === '/login/oauth/access_token').length;
    for (const redirectURL of [
      'https://evil.example/api/oauth2-redirect',
      `${PUBLIC_URL}/elsewhere`,
      `${REDIRECT}/x`,
    ]) {
      const res = await h.inject({
        method: 'POST',
        url: '/api/collections/users/auth-with-oauth2',
        payload: { provider: 'github', code, codeVerifier: provider.codeVerifier, redirectURL },
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ status: 400, message: 'Failed to authenticate.', data: {} });
    }
    expect(gh.requests.filter((r) => r.path === '/login/oauth/access_token').length).toBe(exchangesBefore);
    expect(await h.identity.users.count()).toBe(0);
  });

  it('OAuth not configured → auth-with-oauth2 400', async () => {
    const h = await authHarness({ SVC_ALLOWED_IDP_LOGINS: 'octocat' });
    harnesses.push(h);
    const res = await h.inject({
      method: 'POST',
      url: '/api/collections/users/auth-with-oauth2',
      payload: { provider: 'github', code: 'c', codeVerifier: 'v', redirectURL: REDIRECT },
    });
    expect(res.statusCode).toBe(400);
  });
});

describe('auth-refresh and records', () => {
  it('auth-refresh returns a fresh 14-day token (raw or Bearer), re-checking the allow-list', async () => {
    const h = await harness({ SVC_ALLOWED_IDP_LOGINS: 'octocat' });
    const { token, record } = (await signIn(h)).json();
    h.clock.advance(10 * 86_400_000);
    for (const authorization of [token, `Bearer ${token}`]) {
      const res = await h.inject({
        method: 'POST',
        url: '/api/collections/users/auth-refresh',
        headers: { authorization },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json().record).toEqual(record);
      const claims = JSON.parse(Buffer.from(res.json().token.split('.')[1], 'base64url').toString());
      expect(claims.iat).toBe(Math.floor(h.clock.ms / 1000));
    }
    // a refreshed token outlives the original
    const fresh = (
      await h.inject({ method: 'POST', url: '/api/collections/users/auth-refresh', headers: { authorization: token } })
    ).json().token;
    h.clock.advance(5 * 86_400_000);
    expect((await h.inject({ method: 'GET', url: '/api/pat', headers: bearer(token) })).statusCode).toBe(401);
    expect((await h.inject({ method: 'GET', url: '/api/pat', headers: bearer(fresh) })).statusCode).toBe(200);
  });

  it('auth-refresh: invalid token → 401 PocketBase shape; login removed from the list → 403', async () => {
    const h = await harness({ SVC_ALLOWED_IDP_LOGINS: 'octocat' });
    const { token } = (await signIn(h)).json();
    for (const headers of [{}, { authorization: 'garbage' }, bearer(SYSTEM_PAT)]) {
      const res = await h.inject({ method: 'POST', url: '/api/collections/users/auth-refresh', headers });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({
        status: 401,
        message: 'The request requires valid record authorization token.',
        data: {},
      });
    }
    const h2 = await authHarness({ SVC_ALLOWED_IDP_LOGINS: 'someone-else' }, { dir: h.dir, clock: h.clock });
    harnesses.push(h2);
    const res = await h2.inject({
      method: 'POST',
      url: '/api/collections/users/auth-refresh',
      headers: { authorization: token },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ status: 403, message: 'This account is not authorized to sign in.', data: {} });
  });

  it('records/{id}: own record → 200; another id or no token → 404', async () => {
    const h = await harness({ SVC_ALLOWED_IDP_LOGINS: 'octocat' });
    const { token, record } = (await signIn(h)).json();
    const own = await h.inject({
      method: 'GET',
      url: `/api/collections/users/records/${record.id}`,
      headers: { authorization: token },
    });
    expect(own.statusCode).toBe(200);
    expect(own.json()).toEqual(record);
    const other = await h.login('someone');
    for (const [url, headers] of [
      [`/api/collections/users/records/${other.user.id}`, { authorization: token }],
      [`/api/collections/users/records/${record.id}`, {}],
    ] as const) {
      const res = await h.inject({ method: 'GET', url, headers });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ status: 404, message: "The requested resource wasn't found.", data: {} });
    }
  });
});

describe('a generic OAuth2 provider (IDP_PROVIDER=oauth2)', () => {
  it('signs in through the configured endpoints and claims, with the configured name', async () => {
    // The double's IDP_*_URL settings (spread by `harness`) are the configured endpoints.
    const h = await harness({
      IDP_PROVIDER: 'oauth2',
      IDP_LOGIN_CLAIM: 'login',
      IDP_ID_CLAIM: 'id',
      IDP_NAME: 'sso',
      IDP_DISPLAY_NAME: 'Lab sign-in',
      IDP_SCOPES: 'openid profile',
      SVC_ALLOWED_IDP_LOGINS: 'octocat',
    });
    const methods = (await h.inject({ method: 'GET', url: '/api/collections/users/auth-methods' })).json();
    expect(methods.oauth2.providers[0]).toMatchObject({ name: 'sso', displayName: 'Lab sign-in' });
    expect(new URL(methods.oauth2.providers[0].authURL).searchParams.get('scope')).toBe('openid profile');
    const res = await signIn(h, 'sso');
    expect(res.statusCode).toBe(200);
    expect(res.json().record).toMatchObject({ login: 'Octocat', name: 'The Octocat' });
    expect(await h.identity.users.count()).toBe(1);
  });
});
