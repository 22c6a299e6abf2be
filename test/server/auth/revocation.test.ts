/**
 * Revocation takes effect on the next request, wherever it was made: a PAT revoked by the API, the admin UI,
 * `pksd pat revoke` or another instance on the same database; sessions ended by logout, by the admin action or by
 * `pksd users revoke-sessions`; a login removed from the allow-list; a sign-in older than the absolute lifetime.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import type { Identity } from '../../../src/server/auth/identity.js';
import { SESSION_MAX_AGE_S } from '../../../src/server/auth/sessions.js';
import type { User } from '../../../src/server/auth/users.js';
import { pksd } from '../../support/cli.js';
import { openTestIdentity, startTestServer, testUser, type TestServer } from '../../support/server.js';
import { TEST_USER_DB } from '../../support/user-db.js';
import { authHarness, bearer, type AuthHarness } from './harness.js';

const SPEC = { name: 'ci', description: '', expiresInDays: 30, scopes: ['wiki:read' as const] };
const DAY_MS = 86_400_000;

describe('revocation on a running server, made elsewhere', () => {
  let srv: TestServer;
  /** Another process's view of the same database (another instance, or a pksd command). */
  let other: Identity;
  let alice: User;

  beforeAll(async () => {
    srv = await startTestServer();
    other = await openTestIdentity(srv.config);
    alice = await testUser(other, 'alice');
  });
  afterAll(async () => {
    await other?.close();
    await srv?.close();
  });

  const statusWith = async (token: string, url = '/api/stats') =>
    (await srv.fetch(url, { headers: { Authorization: `Bearer ${token}` } })).status;
  /**
   * Refused on the next request on SQLite (its data_version moves with every commit); on PostgreSQL within 1 s,
   * the time the revocation's notification may take to reach the server (CONTRACT §21).
   */
  const refused = async (token: string) => {
    const deadline = performance.now() + (TEST_USER_DB === 'postgres' ? 1_000 : 0);
    let status = await statusWith(token);
    while (status !== 401 && performance.now() < deadline) status = await statusWith(token);
    expect(status).toBe(401);
  };
  const commandEnv = () => ({
    ...(srv.config.dbUrl ? { SVC_DB_URL: srv.config.dbUrl } : {}),
    SVC_DB_DATA_DIR: srv.config.dbDataDir,
    SVC_RAW_DIR: srv.config.rawDir,
    SVC_DATA_DIR: srv.config.dataDir,
  });

  it('a PAT revoked by another instance on the same database is refused on the next request', async () => {
    const pat = await other.pats.mint(alice.id, SPEC);
    expect(await statusWith(pat.plaintext)).toBe(200); // now in the server's verify cache
    await other.pats.revoke(pat.id);
    await refused(pat.plaintext);
  });

  it('a PAT revoked by `pksd pat revoke` is refused on the next request', async () => {
    const pat = await other.pats.mint(alice.id, SPEC);
    expect(await statusWith(pat.plaintext)).toBe(200);
    const run = await pksd(['pat', 'revoke', pat.id], commandEnv());
    expect(run.code).toBe(0);
    await refused(pat.plaintext);
  });

  it('`pksd users revoke-sessions <user>` ends every session of the user at once; PATs stay valid', async () => {
    const sessions = [other.sessions.issue(alice), other.sessions.issue(alice)];
    const pat = await other.pats.mint(alice.id, SPEC);
    for (const s of sessions) expect(await statusWith(s, '/api/pat')).toBe(200);
    const run = await pksd(['users', 'revoke-sessions', 'ALICE@example.org'], commandEnv());
    expect(run).toMatchObject({ code: 0, stdout: '', stderr: 'revoked sessions of alice\n' });
    for (const s of sessions) expect(await statusWith(s, '/api/pat')).toBe(401);
    expect(await statusWith(pat.plaintext)).toBe(200);
    const unknown = await pksd(['users', 'revoke-sessions', 'nobody'], commandEnv());
    expect(unknown).toMatchObject({ code: 1, stderr: "pksd: unknown user 'nobody' (see pksd users list)\n" });
  });
});

describe('logout and the admin action', () => {
  let h: AuthHarness;
  let su: string;
  beforeEach(async () => {
    h = await authHarness();
    await h.identity.superusers.upsert('root@example.org', 'correct horse battery');
    su = (
      await h.inject({
        method: 'POST',
        url: '/api/collections/_superusers/auth-with-password',
        payload: { identity: 'root@example.org', password: 'correct horse battery' },
      })
    ).json().token;
  });
  afterEach(() => h.close());

  const pat = (token: string) => h.inject({ method: 'GET', url: '/api/pat', headers: bearer(token) });

  it('auth-logout ends the session (and the other sessions of the user); auth-refresh then fails', async () => {
    const { user, token } = await h.login('alice');
    const elsewhere = h.identity.sessions.issue(user);
    const bob = await h.login('bob');
    const res = await h.inject({ method: 'POST', url: '/api/collections/users/auth-logout', headers: bearer(token) });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect((await pat(token)).statusCode).toBe(401);
    expect((await pat(elsewhere)).statusCode).toBe(401);
    expect((await pat(bob.token)).statusCode).toBe(200);
    const refresh = await h.inject({
      method: 'POST',
      url: '/api/collections/users/auth-refresh',
      headers: { authorization: token },
    });
    expect(refresh.statusCode).toBe(401);
    const again = await h.inject({ method: 'POST', url: '/api/collections/users/auth-logout', headers: bearer(token) });
    expect(again.statusCode).toBe(401);
    expect(again.json()).toEqual({
      status: 401,
      message: 'The request requires valid record authorization token.',
      data: {},
    });
  });

  it('the admin action revokes every session of a user (superuser only); PATs stay valid', async () => {
    const { user, token } = await h.login('alice');
    const minted = await h.identity.pats.mint(user.id, SPEC);
    const revoke = (id: string, auth: string | null) =>
      h.inject({
        method: 'POST',
        url: `/api/admin/users/${id}/revoke-sessions`,
        ...(auth === null ? {} : { headers: { authorization: auth } }),
      });
    expect((await revoke(user.id, token)).statusCode).toBe(401); // a session is not a superuser
    expect((await revoke(user.id, null)).statusCode).toBe(401);
    expect((await pat(token)).statusCode).toBe(200);
    expect((await revoke(user.id, su)).statusCode).toBe(204);
    expect((await pat(token)).statusCode).toBe(401);
    const stats = await h.inject({ method: 'GET', url: '/api/stats', headers: bearer(minted.plaintext) });
    expect(stats.statusCode).toBe(200);
    const missing = await revoke('unot0a0user0000', su);
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ status: 404, message: "The requested resource wasn't found.", data: {} });
  });
});

describe('absolute session lifetime', () => {
  it(`renewals never carry a session past ${SESSION_MAX_AGE_S / 86_400} days after its sign-in`, async () => {
    const h = await authHarness();
    try {
      let { token } = await h.login('alice');
      const refresh = async () => {
        const res = await h.inject({
          method: 'POST',
          url: '/api/collections/users/auth-refresh',
          headers: bearer(token),
        });
        return { status: res.statusCode, token: res.statusCode === 200 ? (res.json().token as string) : token };
      };
      // Renewed every 10 days, as an active browser would (each token lives 14 days).
      for (let day = 10; day < 90; day += 10) {
        h.clock.advance(10 * DAY_MS);
        const r = await refresh();
        expect(r.status, `day ${day}`).toBe(200);
        token = r.token;
      }
      const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, number>;
      expect(claims['exp']! - claims['auth_time']!).toBe(SESSION_MAX_AGE_S); // capped at the sign-in + 90 days
      h.clock.advance(9 * DAY_MS); // day 89
      expect((await h.inject({ method: 'GET', url: '/api/pat', headers: bearer(token) })).statusCode).toBe(200);
      h.clock.advance(DAY_MS); // day 90
      expect((await h.inject({ method: 'GET', url: '/api/pat', headers: bearer(token) })).statusCode).toBe(401);
      expect((await refresh()).status).toBe(401);
    } finally {
      await h.close();
    }
  });
});

describe('the allow-list is checked on every request', () => {
  it('removing a login stops its sessions and PATs on the next request; adding it back restores them', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pksd-allow-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const first = await authHarness({ SVC_ALLOWED_IDP_LOGINS: 'alice,bob' }, { dir });
    const { user, token } = await first.login('alice');
    const minted = await first.identity.pats.mint(user.id, SPEC);
    const use = async (h: AuthHarness) => [
      (await h.inject({ method: 'GET', url: '/api/pat', headers: bearer(token) })).statusCode,
      (await h.inject({ method: 'GET', url: '/api/stats', headers: bearer(minted.plaintext) })).statusCode,
    ];
    expect(await use(first)).toEqual([200, 200]);
    await first.close();
    // The operator drops alice from the list and restarts (same database and clock).
    const removed = await authHarness({ SVC_ALLOWED_IDP_LOGINS: 'bob' }, { dir, clock: first.clock });
    try {
      expect(await use(removed)).toEqual([401, 401]);
      const health = await removed.inject({ method: 'GET', url: '/api/health', headers: bearer(minted.plaintext) });
      expect(health.json().data.checks.rawstore.dir).toBe('redacted'); // no longer a valid credential
    } finally {
      await removed.close();
    }
    const restored = await authHarness({ SVC_ADMIN_IDP_LOGINS: 'ALICE' }, { dir, clock: first.clock });
    try {
      expect(await use(restored)).toEqual([200, 200]);
    } finally {
      await restored.close();
    }
  });
});
