import PocketBase from 'pocketbase';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../support/server.js';
import { startGitHubDouble, type GitHubDouble } from '../../support/upstreams/github.js';

describe('the PocketBase JS SDK against pksd', () => {
  let gh: GitHubDouble;
  let srv: TestServer;
  beforeAll(async () => {
    gh = await startGitHubDouble({
      id: 9,
      login: 'ada',
      name: 'Ada Lovelace',
      email: 'ada@example.org',
      avatar_url: '',
    });
    srv = await startTestServer({ ...gh.env, SVC_ALLOWED_IDP_LOGINS: 'ada' });
  });
  afterAll(async () => {
    await srv?.close();
    await gh?.close();
  });

  it('lists auth methods, signs in with an OAuth2 code, refreshes and reads its own record', async () => {
    const pb = new PocketBase(srv.url);
    const methods = await pb.collection('users').listAuthMethods();
    expect(methods.oauth2.enabled).toBe(true);
    const provider = methods.oauth2.providers[0]!;
    expect(provider.name).toBe('github');

    // The browser's part: the IdP authorizes and sends it back through pksd's callback to the front end.
    const redirectURL = `${srv.url}/api/oauth2-redirect`;
    const authorize = await fetch(provider.authURL + encodeURIComponent(redirectURL), { redirect: 'manual' });
    const callback = await fetch(authorize.headers.get('location')!, { redirect: 'manual' });
    expect(callback.status).toBe(302);
    const params = new URL(callback.headers.get('location')!, srv.url).searchParams;
    expect(params.get('state')).toBe(provider.state);

    const auth = await pb
      .collection('users')
      .authWithOAuth2Code(provider.name, params.get('code')!, provider.codeVerifier, redirectURL, {});
    expect(pb.authStore.isValid).toBe(true);
    expect(auth.record['login']).toBe('ada');
    expect(auth.meta?.['isNew']).toBe(true);

    const before = pb.authStore.token;
    const refreshed = await pb.collection('users').authRefresh();
    expect(refreshed.token).toBeTruthy();
    expect(pb.authStore.record?.id).toBe(auth.record.id);
    expect((await pb.collection('users').getOne(auth.record.id)).email).toBe('ada@example.org');

    // The session token is a credential for the session-only API.
    const pats = await fetch(`${srv.url}/api/pat`, { headers: { Authorization: `Bearer ${before}` } });
    expect(pats.status).toBe(200);
  });
});
