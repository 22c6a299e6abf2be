/**
 * The seven admin data operations (CONTRACT §7.9) declare their guard in the route table: a superuser token, or for
 * a user's own PATs also its session. Each is called with no token, a session token, a user PAT, the system PAT and
 * a superuser token (as `Bearer` and raw, as the PocketBase SDK sends it); refusals are the contract's 401.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PB_SUPERUSER_REQUIRED } from '../../../src/server/auth/pocketbase.js';
import type { Identity } from '../../../src/server/auth/identity.js';
import { SCOPE_NAMES } from '../../../src/shared/scopes.js';
import { openTestIdentity, startTestServer, type TestServer } from '../../support/server.js';
import { authHarness, bearer, SYSTEM_PAT, type AuthHarness } from './harness.js';

type Cred = 'none' | 'session' | 'user PAT' | 'system PAT' | 'superuser' | 'superuser (raw token)';
const CREDS: readonly Cred[] = ['none', 'session', 'user PAT', 'system PAT', 'superuser', 'superuser (raw token)'];

/** What the owner of the records under test may do, per operation: `superuser` only, or also the owner's session. */
interface Row {
  readonly name: string;
  readonly method: 'GET' | 'POST' | 'DELETE';
  /** The URL for one call; `fresh` makes the records a successful call consumes. */
  readonly url: (fresh: Fresh) => string;
  readonly guard: 'superuser' | 'superuser-or-session';
  readonly success: number;
}

interface Fresh {
  readonly userId: string;
  readonly patId: string;
}

const ROWS: readonly Row[] = [
  { name: 'list users', method: 'GET', url: () => '/api/collections/users/records', guard: 'superuser', success: 200 },
  {
    name: 'delete a user',
    method: 'DELETE',
    url: (f) => `/api/collections/users/records/${f.userId}`,
    guard: 'superuser',
    success: 204,
  },
  {
    name: 'revoke sessions',
    method: 'POST',
    url: (f) => `/api/admin/users/${f.userId}/revoke-sessions`,
    guard: 'superuser',
    success: 204,
  },
  {
    name: 'list PATs',
    method: 'GET',
    url: () => '/api/collections/pat_tokens/records',
    guard: 'superuser-or-session',
    success: 200,
  },
  {
    name: 'delete a PAT',
    method: 'DELETE',
    url: (f) => `/api/collections/pat_tokens/records/${f.patId}`,
    guard: 'superuser-or-session',
    success: 204,
  },
  { name: 'settings', method: 'GET', url: () => '/api/admin/settings', guard: 'superuser', success: 200 },
  { name: 'health', method: 'GET', url: () => '/api/admin/health', guard: 'superuser', success: 200 },
];

const admitted = (row: Row, cred: Cred): boolean =>
  cred.startsWith('superuser') || (row.guard === 'superuser-or-session' && cred === 'session');

describe('the admin operations × every credential kind', () => {
  let h: AuthHarness;
  let superuser: string;
  let n = 0;

  beforeAll(async () => {
    const logins = Array.from({ length: 60 }, (_, i) => `admin${i + 1}`);
    h = await authHarness({ SVC_ALLOWED_IDP_LOGINS: logins.join(',') });
    await h.identity.superusers.upsert('root@example.org', 'correct horse battery');
    const su = await h.identity.superusers.authenticate('root@example.org', 'correct horse battery');
    superuser = h.identity.superusers.issue(su!);
  });
  afterAll(() => h.close());

  /** A fresh user with a session, a full-scope PAT and a PAT to delete: calls consume nothing shared. */
  async function freshUser(): Promise<Fresh & { session: string; pat: string }> {
    const { user, token } = await h.login(`admin${++n}`);
    const mint = () =>
      h.identity.pats.mint(user.id, { name: 'p', description: '', expiresInDays: 5, scopes: [...SCOPE_NAMES] });
    return { userId: user.id, patId: (await mint()).id, session: token, pat: (await mint()).plaintext };
  }

  function headers(cred: Cred, f: { session: string; pat: string }): Record<string, string> {
    switch (cred) {
      case 'none':
        return {};
      case 'session':
        return bearer(f.session);
      case 'user PAT':
        return bearer(f.pat);
      case 'system PAT':
        return bearer(SYSTEM_PAT);
      case 'superuser':
        return bearer(superuser);
      case 'superuser (raw token)':
        return { authorization: superuser };
    }
  }

  it('the route table lists each with its guard', () => {
    const table = h.app.routeTable;
    for (const row of ROWS) {
      const url = row.url({ userId: ':id', patId: ':id' });
      const entry = table.find((r) => r.method === row.method && r.url === url);
      expect(entry?.guard, `${row.method} ${url}`).toEqual({ kind: row.guard });
    }
  });

  const cases = ROWS.flatMap((row) => CREDS.map((cred) => [row.name, cred, row] as const));
  it.each(cases)('%s with %s', async (_name, cred, row) => {
    const f = await freshUser();
    const res = await h.inject({ method: row.method, url: row.url(f), headers: headers(cred, f) });
    if (admitted(row, cred)) {
      expect(res.statusCode, res.body).toBe(row.success);
      if (row.name === 'delete a user') expect(await h.identity.users.get(f.userId)).toBeNull();
      if (row.name === 'delete a PAT') expect(await h.identity.pats.get(f.patId)).toBeNull();
      if (row.name === 'revoke sessions') expect(await h.identity.sessions.verify(f.session)).toBeNull();
      if (row.name === 'list PATs' && cred === 'session') {
        // A session sees its own PATs only.
        const users = new Set(res.json().items.map((p: { user: string }) => p.user));
        expect([...users]).toEqual([f.userId]);
      }
      return;
    }
    expect(res.statusCode, res.body).toBe(401);
    expect(res.json()).toEqual({ status: 401, message: PB_SUPERUSER_REQUIRED, data: {} });
    expect(res.headers['www-authenticate']).toBe('Bearer');
    // Nothing happened.
    expect(await h.identity.users.get(f.userId)).not.toBeNull();
    expect(await h.identity.pats.get(f.patId)).not.toBeNull();
    expect(await h.identity.sessions.verify(f.session)).not.toBeNull();
  });

  it("a session deletes only its own PAT: another user's is 404 and stays", async () => {
    const owner = await freshUser();
    const other = await freshUser();
    const res = await h.inject({
      method: 'DELETE',
      url: `/api/collections/pat_tokens/records/${owner.patId}`,
      headers: bearer(other.session),
    });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ status: 404, message: "The requested resource wasn't found.", data: {} });
    expect(await h.identity.pats.get(owner.patId)).not.toBeNull();
  });
});

describe('audit label of the admin routes', () => {
  let srv: TestServer;
  let identity: Identity;
  beforeAll(async () => {
    srv = await startTestServer();
    identity = await openTestIdentity(srv.config);
  });
  afterAll(async () => {
    identity?.close();
    await srv?.close();
  });

  it("a superuser's request is logged with auth=superuser and its id; a refused one without a label", async () => {
    await identity.superusers.upsert('audit-root@example.org', 'audit superuser password');
    const su = await identity.superusers.authenticate('audit-root@example.org', 'audit superuser password');
    const token = identity.superusers.issue(su!);
    expect((await srv.fetch('/api/admin/settings', { headers: bearer(token) })).status).toBe(200);
    expect((await srv.fetch('/api/admin/health')).status).toBe(401);
    const completed = srv.logs.lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l['msg'] === 'request completed');
    const status = (l: Record<string, unknown>) => (l['res'] as { statusCode?: number } | undefined)?.statusCode;
    expect(completed.filter((l) => l['auth'] === 'superuser')).toEqual([
      expect.objectContaining({ superuser_id: su!.id, res: expect.objectContaining({ statusCode: 200 }) }),
    ]);
    const refused = completed.find((l) => status(l) === 401);
    expect(refused).toBeDefined();
    expect(refused?.['auth']).toBeUndefined();
  });
});
