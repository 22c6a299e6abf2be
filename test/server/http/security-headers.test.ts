/**
 * Response headers: `nosniff` and `no-referrer` on everything (raw-socket answers included); HTML with a
 * Content-Security-Policy that forbids framing (the admin UI with a policy of its own inline elements, by hash);
 * every answer that carries a token or a PAT plaintext — indeed every `/api/*` answer — `Cache-Control: no-store`.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGitHubDouble, type GitHubDouble } from '../../support/upstreams/github.js';
import { authHarness, bearer, type AuthHarness } from '../auth/harness.js';

const WEB_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; " +
  "object-src 'none'; base-uri 'none'; frame-ancestors 'none'";
const PUBLIC_URL = 'https://pks.example.org';

function expectBaseHeaders(res: { headers: Record<string, unknown> }, where: string) {
  expect(res.headers['x-content-type-options'], where).toBe('nosniff');
  expect(res.headers['referrer-policy'], where).toBe('no-referrer');
}

describe('security headers', () => {
  let h: AuthHarness;
  let gh: GitHubDouble;
  let webRoot: string;
  beforeAll(async () => {
    gh = await startGitHubDouble({ id: 9, login: 'alice', name: 'A', email: 'a@example.org', avatar_url: '' });
    webRoot = mkdtempSync(path.join(os.tmpdir(), 'pks-web-'));
    mkdirSync(path.join(webRoot, 'assets'));
    writeFileSync(
      path.join(webRoot, 'index.html'),
      '<!doctype html><title>pks</title><script src="/assets/a.js"></script>',
    );
    writeFileSync(path.join(webRoot, 'assets', 'a.js'), 'console.log(1)');
    h = await authHarness({ SVC_PUBLIC_URL: PUBLIC_URL, ...gh.env }, { webRoot });
  });
  afterAll(async () => {
    await h?.close();
    await gh?.close();
    rmSync(webRoot, { recursive: true, force: true });
  });

  it('every kind of answer carries nosniff and no-referrer', async () => {
    const answers: [string, LightMyRequestResponse][] = [
      ['API JSON', await h.inject({ method: 'GET', url: '/api/health' })],
      ['API 401', await h.inject({ method: 'GET', url: '/api/stats' })],
      ['API 404', await h.inject({ method: 'GET', url: '/api/nothing-here' })],
      ['API 405', await h.inject({ method: 'PUT', url: '/api/health' })],
      ['SPA page', await h.inject({ method: 'GET', url: '/wiki/some-page' })],
      ['static file', await h.inject({ method: 'GET', url: '/assets/a.js' })],
      ['admin UI', await h.inject({ method: 'GET', url: '/_/' })],
      ['redirect', await h.inject({ method: 'GET', url: '/_' })],
      ['swagger UI', await h.inject({ method: 'GET', url: '/swagger/index.html' })],
      ['OpenAPI document', await h.inject({ method: 'GET', url: '/swagger/doc.json' })],
      ['installer', await h.inject({ method: 'GET', url: '/install-pksd.sh' })],
      ['API bad percent-encoding', await h.inject({ method: 'GET', url: '/api/pages/%ZZ' })],
      ['page bad percent-encoding', await h.inject({ method: 'GET', url: '/wiki/%E0%A4%A' })],
    ];
    for (const [where, res] of answers) expectBaseHeaders(res, where);
  });

  it('a URL the router refuses (bad percent-encoding) is answered 400, under /api not stored', async () => {
    const res = await h.inject({ method: 'GET', url: '/api/pages/%ZZ' });
    expect(res.statusCode).toBe(400);
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('answers Node refuses before routing (a malformed request) carry them too', async () => {
    const url = await h.listen();
    const { port } = new URL(url);
    const socket = net.connect(Number(port), '127.0.0.1');
    let received = '';
    socket.on('data', (d: Buffer) => (received += d.toString('latin1')));
    socket.write('GET /api/health HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n');
    await new Promise((resolve) => socket.on('close', resolve));
    expect(received).toMatch(/^HTTP\/1\.1 400 /);
    expect(received).toMatch(/\r\nX-Content-Type-Options: nosniff\r\n/);
    expect(received).toMatch(/\r\nReferrer-Policy: no-referrer\r\n/);
  });

  it('HTML pages forbid framing under the web front end policy', async () => {
    for (const url of ['/', '/wiki/some-page', '/swagger/index.html']) {
      const res = await h.inject({ method: 'GET', url });
      expect(res.headers['content-type'], url).toMatch(/^text\/html/);
      expect(res.headers['content-security-policy'], url).toBe(WEB_CSP);
      expect(res.headers['x-frame-options'], url).toBe('DENY');
    }
    const json = await h.inject({ method: 'GET', url: '/api/health' });
    expect(json.headers['content-security-policy']).toBeUndefined();
  });

  it("the admin UI runs under script-src 'self': its script and style are files of their own, nothing inline", async () => {
    const res = await h.inject({ method: 'GET', url: '/_/' });
    expect(res.headers['content-security-policy']).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; " +
        "form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    );
    expect(res.headers['x-frame-options']).toBe('DENY');
    // No inline code the policy would block: no script or style element with content, no handler attributes.
    expect(res.body).toContain('<script src="/_/admin.js"></script>');
    expect(res.body).toContain('<link rel="stylesheet" href="/_/admin.css" />');
    expect(res.body).not.toMatch(/<script>|<style|\son[a-z]+=|\sstyle=/i);
    const files = [
      [
        '/_/admin.js',
        'text/javascript; charset=utf-8',
        readFileSync(new URL('../../../assets/admin.js', import.meta.url), 'utf8'),
      ],
      [
        '/_/admin.css',
        'text/css; charset=utf-8',
        readFileSync(new URL('../../../assets/admin.css', import.meta.url), 'utf8'),
      ],
    ] as const;
    for (const [url, type, body] of files) {
      const file = await h.inject({ method: 'GET', url });
      expect(file.statusCode, url).toBe(200);
      expect(file.headers['content-type'], url).toBe(type);
      expect(file.headers['x-content-type-options'], url).toBe('nosniff');
      expect(file.body, url).toBe(body);
    }
  });

  it('every answer that carries a token or a PAT plaintext is not stored', async () => {
    const { token } = await h.login('alice');
    const noStore = (res: LightMyRequestResponse, where: string) => {
      expect(res.statusCode, `${where}: ${res.body}`).toBeLessThan(300);
      expect(res.headers['cache-control'], where).toBe('no-store');
    };
    const pat = await h.inject({
      method: 'POST',
      url: '/api/pat',
      headers: bearer(token),
      payload: { name: 'n', expires_in_days: 1, scopes: [] },
    });
    noStore(pat, 'POST /api/pat');
    noStore(
      await h.inject({ method: 'POST', url: '/api/collections/users/auth-refresh', headers: bearer(token) }),
      'auth-refresh',
    );
    await h.identity.superusers.upsert('root@example.org', 'correct horse battery');
    noStore(
      await h.inject({
        method: 'POST',
        url: '/api/collections/_superusers/auth-with-password',
        payload: { identity: 'root@example.org', password: 'correct horse battery' },
      }),
      'superuser sign-in',
    );

    // The device flow: start, approve, poll → the PAT plaintext.
    const started = await h.inject({
      method: 'POST',
      url: '/api/oauth/device/code',
      payload: { name: 'cli', expires_in_days: 1, scopes: ['wiki:read'] },
    });
    noStore(started, 'device code');
    const { device_code, user_code } = started.json();
    const approved = await h.inject({
      method: 'POST',
      url: '/api/oauth/device/approve',
      headers: bearer(token),
      payload: { user_code },
    });
    expect(approved.statusCode).toBe(200);
    const polled = await h.inject({ method: 'POST', url: '/api/oauth/device/token', payload: { device_code } });
    noStore(polled, 'device token');
    expect(polled.json().plaintext).toMatch(/^pat_/);

    // The OAuth sign-in: auth-methods → IdP → auth-with-oauth2 → a session token.
    const provider = (await h.inject({ method: 'GET', url: '/api/collections/users/auth-methods' })).json().oauth2
      .providers[0];
    const redirect = `${PUBLIC_URL}/api/oauth2-redirect`;
    const authorize = await fetch(provider.authURL + encodeURIComponent(redirect), { redirect: 'manual' });
    const code = new URL(authorize.headers.get('location')!).searchParams.get('code');
    const signIn = await h.inject({
      method: 'POST',
      url: '/api/collections/users/auth-with-oauth2',
      payload: { provider: 'github', code, codeVerifier: provider.codeVerifier, redirectURL: redirect },
    });
    noStore(signIn, 'auth-with-oauth2');
    expect(signIn.json().token).toEqual(expect.any(String));
  });

  it('API answers default to no-store; a route with its own caching rule keeps it', async () => {
    for (const url of ['/api/health', '/api/server/info', '/api/nothing-here']) {
      expect((await h.inject({ method: 'GET', url })).headers['cache-control'], url).toBe('no-store');
    }
    expect((await h.inject({ method: 'GET', url: '/install-pksd.sh' })).headers['cache-control']).toBe(
      'public, max-age=300',
    );
  });
});
