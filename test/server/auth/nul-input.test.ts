/**
 * NUL characters in what a client sends (CONTRACT §7, §21): PostgreSQL TEXT cannot hold one, SQLite can, so each
 * request below must answer the same clear 4xx on both user databases (this file runs on SQLite and, with
 * `PKS_TEST_USER_DB=postgres`, on PostgreSQL) and never a 5xx.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startGitHubDouble, type GitHubDouble, type GitHubUser } from '../../support/upstreams/github.js';
import { authHarness, bearer, type AuthHarness } from './harness.js';

const PUBLIC_URL = 'https://pks.example.org';
const REDIRECT = `${PUBLIC_URL}/api/oauth2-redirect`;
const SPEC = { name: 'laptop', description: '', expires_in_days: 30, scopes: ['papers:read'] };
const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

let gh: GitHubDouble;
let h: AuthHarness;
let token: string;
const OCTO: GitHubUser = { id: 583231, login: 'alice', name: 'Alice', email: 'alice@example.org', avatar_url: '' };
beforeAll(async () => {
  gh = await startGitHubDouble(OCTO);
  h = await authHarness({ SVC_PUBLIC_URL: PUBLIC_URL, ...gh.env });
  token = (await h.login('alice')).token;
});
afterAll(async () => {
  await h.close();
  await gh.close();
});
afterEach(() => {
  gh.user = OCTO;
});

/** A session token of this instance's users collection whose `id` claim holds a NUL (unsigned: never valid). */
function forgedToken(): string {
  const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
  return `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ ...claims, id: 'a\u0000b' })}.sig`;
}

describe('NUL in requests: the same 4xx on both user databases', () => {
  const cases: [string, () => Promise<{ statusCode: number; body: string }>, number, RegExp][] = [
    [
      'device code: name',
      () => h.inject({ method: 'POST', url: '/api/oauth/device/code', payload: { ...SPEC, name: 'a\u0000b' } }),
      400,
      /name must not contain NUL characters/,
    ],
    [
      'device code: description',
      () => h.inject({ method: 'POST', url: '/api/oauth/device/code', payload: { ...SPEC, description: 'a\u0000' } }),
      400,
      /description must not contain NUL characters/,
    ],
    [
      'POST /api/pat: name',
      () =>
        h.inject({ method: 'POST', url: '/api/pat', payload: { ...SPEC, name: 'a\u0000b' }, headers: bearer(token) }),
      400,
      /name must not contain NUL characters/,
    ],
    [
      'POST /api/pat: description',
      () =>
        h.inject({
          method: 'POST',
          url: '/api/pat',
          payload: { ...SPEC, description: '\u0000' },
          headers: bearer(token),
        }),
      400,
      /description must not contain NUL characters/,
    ],
    [
      'a session token whose id holds NUL',
      () => h.inject({ method: 'GET', url: '/api/pat', headers: bearer(forgedToken()) }),
      401,
      /./,
    ],
    [
      'DELETE /api/pat/%00',
      () => h.inject({ method: 'DELETE', url: '/api/pat/%00', headers: bearer(token) }),
      404,
      /./,
    ],
    [
      'superuser sign-in with NUL in the identity',
      () =>
        h.inject({
          method: 'POST',
          url: '/api/collections/_superusers/auth-with-password',
          payload: { identity: 'root\u0000@example.org', password: 'correct horse battery' },
        }),
      400,
      /Failed to authenticate\./,
    ],
    [
      'user-code lookup with NUL',
      () => h.inject({ method: 'GET', url: '/api/oauth/device/code?user_code=ABCD%00-EFGH', headers: bearer(token) }),
      404,
      /./,
    ],
  ];
  it.each(cases)('%s', async (_name, send, status, body) => {
    const res = await send();
    expect(res.statusCode, res.body).toBe(status);
    expect(res.body).toMatch(body);
  });

  it('an IdP profile holding NUL is refused with 400, and no user is stored', async () => {
    const before = await h.identity.users.count();
    gh.user = { ...OCTO, name: 'Ali\u0000ce' };
    const methods = await h.inject({ method: 'GET', url: '/api/collections/users/auth-methods' });
    const provider = methods.json().oauth2.providers[0];
    const authorize = await fetch(provider.authURL + encodeURIComponent(REDIRECT), { redirect: 'manual' });
    const back = new URL(authorize.headers.get('location')!);
    const res = await h.inject({
      method: 'POST',
      url: '/api/collections/users/auth-with-oauth2',
      payload: {
        provider: 'github',
        code: back.searchParams.get('code'),
        codeVerifier: provider.codeVerifier,
        redirectURL: REDIRECT,
        createData: {},
      },
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ message: 'Failed to authenticate.' });
    expect(await h.identity.users.count()).toBe(before);
  });
});
