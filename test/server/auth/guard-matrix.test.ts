import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RegisteredRoute } from '../../../src/server/http/context.js';
import type { Identity } from '../../../src/server/auth/identity.js';
import { PB_SUPERUSER_REQUIRED } from '../../../src/server/auth/pocketbase.js';
import { AUTH_REQUIRED, INVALID_CREDENTIAL, SESSION_REQUIRED, type Guard } from '../../../src/server/routes/guard.js';
import { SCOPE_NAMES, scopesCover } from '../../../src/shared/scopes.js';
import { openTestIdentity, startTestServer, testUser, type TestServer } from '../../support/server.js';
import { sql } from '../../support/user-db.js';

const SYSTEM_PAT = 'system-pat-for-guard-matrix-01';
const NARROW_SYSTEM_PAT = 'narrow-system-pat-for-matrix-02';
const NARROW_SCOPES = ['wiki:read', 'graph:read'];

/**
 * The guard CONTRACT §7.4 and §7.9 assign to a route: the admin data routes take a superuser token (a user's own PATs
 * also a session); the other PocketBase-style routes check their own tokens (public here).
 */
export function expectedGuard(method: string, url: string): Guard {
  const is = (re: RegExp) => re.test(url);
  if (is(/^\/api\/pat(\/:[^/]+)?$/)) return { kind: 'session' };
  if (url === '/api/oauth/device/code' && method === 'GET') return { kind: 'session' };
  if (is(/^\/api\/oauth\/device\/(approve|deny)$/)) return { kind: 'session' };
  if (is(/^\/api\/(health|server\/info|pat\/scopes|rag\/healthz|oauth2-redirect)$/)) return { kind: 'public' };
  if (is(/^\/api\/oauth\/device\/(code|token)$/) && method === 'POST') return { kind: 'public' };
  if (is(/^\/api\/collections\/pat_tokens\/records(\/:id)?$/)) return { kind: 'superuser-or-session' };
  if (url === '/api/collections/users/records' || (url === '/api/collections/users/records/:id' && method === 'DELETE'))
    return { kind: 'superuser' };
  if (is(/^\/api\/admin\//)) return { kind: 'superuser' };
  if (is(/^\/api\/collections\//)) return { kind: 'public' };
  if (is(/^\/api\/(pages|stats$|search$|wiki\/sync\/status$)/)) return { kind: 'scope', obj: 'wiki', act: 'read' };
  if (url === '/api/wiki/sync/pull') return { kind: 'scope', obj: 'wiki', act: 'write' };
  if (is(/^\/api\/graph\//)) return { kind: 'scope', obj: 'graph', act: 'read' };
  if (is(/^\/api\/ingests?(\/|$)/)) return { kind: 'scope', obj: 'papers', act: 'write' };
  if (url === '/api/rag/search') return { kind: 'scope', obj: 'papers', act: 'read' };
  // `/api/v1/papers/*`: the original clients' lease aliases (§19), guarded as the claims they alias; the original's
  // downloader routes (§19) as the registry's fetch and jobs.
  if (is(/^\/api\/((v1\/)?papers|downloader)(\/|$)/)) {
    return method === 'GET'
      ? { kind: 'scope', obj: 'papers', act: 'read' }
      : { kind: 'scope', obj: 'papers', act: 'write' };
  }
  throw new Error(`no guard expectation for ${method} ${url}: add it to the matrix`);
}

/** A signed-in superuser's token (CONTRACT §7.9). */
async function superuserToken(identity: Identity): Promise<string> {
  await identity.superusers.upsert('matrix-root@example.org', 'matrix superuser password');
  const su = await identity.superusers.authenticate('matrix-root@example.org', 'matrix superuser password');
  return identity.superusers.issue(su!);
}

/** Whether a dispatched action of the route table serves the concrete sample path of a wildcard route. */
let registered: (route: RegisteredRoute, path: string) => boolean = () => false;

interface Credential {
  readonly label: string;
  readonly token: string | null;
  /** Scopes the credential holds, or the outcome it must get regardless of the route. */
  readonly kind: 'none' | 'invalid' | 'pat' | 'system' | 'session' | 'superuser';
  readonly scopes: readonly string[];
}

type Outcome = { status: 401; body: Record<string, unknown> } | { status: 403; body: Record<string, unknown> } | 'pass';

const SUPERUSER_REQUIRED_BODY = { status: 401, message: PB_SUPERUSER_REQUIRED, data: {} };

function expectedOutcome(guard: Guard, cred: Credential): Outcome {
  if (guard.kind === 'public') return 'pass';
  if (guard.kind === 'superuser' || guard.kind === 'superuser-or-session') {
    const admitted = cred.kind === 'superuser' || (guard.kind === 'superuser-or-session' && cred.kind === 'session');
    return admitted ? 'pass' : { status: 401, body: SUPERUSER_REQUIRED_BODY };
  }
  // A superuser token is not a credential for the other /api/* routes (CONTRACT §7.1).
  if (cred.kind === 'superuser') return { status: 401, body: { detail: INVALID_CREDENTIAL } };
  if (cred.kind === 'none') return { status: 401, body: { detail: AUTH_REQUIRED } };
  if (cred.kind === 'invalid') return { status: 401, body: { detail: INVALID_CREDENTIAL } };
  if (guard.kind === 'session')
    return cred.kind === 'session' ? 'pass' : { status: 403, body: { detail: SESSION_REQUIRED } };
  if (guard.kind === 'auth' || scopesCover(cred.scopes, guard.obj, guard.act)) return 'pass';
  return {
    status: 403,
    body: {
      detail: `insufficient scope: this token lacks ${guard.obj}:${guard.act} (mint a new PAT at /pat with the required scope)`,
      obj: guard.obj,
      act: guard.act,
    },
  };
}

const GUARD_DETAILS = [AUTH_REQUIRED, INVALID_CREDENTIAL, SESSION_REQUIRED];
/** Wildcard routes dispatch on the path (unknown actions are 404 before authentication): sample real actions. */
const SAMPLES: Record<string, string> = {
  'GET /api/papers/*': '/api/papers/2401.00001v1/figures',
  'POST /api/papers/*': '/api/papers/2401.00001v1/parser-claim',
  'DELETE /api/papers/*': '/api/papers/2401.00001v1/parser-claim/c0ffee',
  'POST /api/v1/papers/*': '/api/v1/papers/2401.00001v1/mineru-lease',
  'DELETE /api/v1/papers/*': '/api/v1/papers/2401.00001v1/mineru-lease/c0ffee',
};
const concrete = (route: RegisteredRoute) =>
  SAMPLES[`${route.method} ${route.url}`] ??
  route.url
    .replace('{preprint_id}', '2401.00001v1')
    .replace(/\{[^}]+\}|:[^/]+/g, 'x')
    .replace(/\*/g, 'x');

describe('guard matrix: every /api/* route × every credential kind', () => {
  let srv: TestServer;
  let narrow: TestServer;
  let identity: Identity;
  const creds: Credential[] = [];

  beforeAll(async () => {
    srv = await startTestServer({ SVC_SYSTEM_PAT: SYSTEM_PAT, SVC_ALLOWED_IDP_LOGINS: 'matrix' });
    narrow = await startTestServer({
      SVC_SYSTEM_PAT: NARROW_SYSTEM_PAT,
      SVC_SYSTEM_PAT_SCOPES: NARROW_SCOPES.join(','),
    });
    identity = await openTestIdentity(srv.config);
    const user = await testUser(identity, 'matrix');
    const mint = async (scopes: readonly string[]) =>
      (await identity.pats.mint(user.id, { name: 'm', description: '', expiresInDays: 30, scopes: scopes as never }))
        .plaintext;
    const expired = await identity.pats.mint(user.id, {
      name: 'e',
      description: '',
      expiresInDays: 1,
      scopes: SCOPE_NAMES,
    });
    await sql(identity.db, 'UPDATE pat_tokens SET expires_at = 0 WHERE id = ?', expired.id);
    const revoked = await identity.pats.mint(user.id, {
      name: 'r',
      description: '',
      expiresInDays: 1,
      scopes: SCOPE_NAMES,
    });
    await identity.pats.revoke(revoked.id);
    creds.push(
      { label: 'no header', token: null, kind: 'none', scopes: [] },
      { label: 'bad token', token: 'garbage', kind: 'invalid', scopes: [] },
      { label: 'foreign-shaped PAT', token: 'pat_' + 'A'.repeat(32), kind: 'invalid', scopes: [] },
      { label: 'expired PAT', token: expired.plaintext, kind: 'invalid', scopes: [] },
      { label: 'revoked PAT', token: revoked.plaintext, kind: 'invalid', scopes: [] },
      { label: 'PAT with no scopes', token: await mint([]), kind: 'pat', scopes: [] },
      ...(await Promise.all(
        SCOPE_NAMES.map(async (s): Promise<Credential> => ({
          label: `PAT ${s}`,
          token: await mint([s]),
          kind: 'pat',
          scopes: [s],
        })),
      )),
      { label: 'system PAT *', token: SYSTEM_PAT, kind: 'system', scopes: ['*'] },
      { label: 'session', token: identity.sessions.issue(user), kind: 'session', scopes: ['*'] },
      { label: 'superuser', token: await superuserToken(identity), kind: 'superuser', scopes: [] },
    );
  });
  afterAll(async () => {
    identity?.close();
    await srv?.close();
    await narrow?.close();
  });

  const dispatchedMatch = (s: TestServer) => (route: RegisteredRoute, path: string) =>
    s.server.app.routeTable.some(
      (r) =>
        r.dispatched === true &&
        r.method === route.method &&
        new RegExp(`^${r.url.replace(/\{[^}]+\}/g, '[^?]+')}$`).test(path),
    );

  const apiRoutes = (s: TestServer): RegisteredRoute[] => {
    const seen = new Set<string>();
    return s.server.app.routeTable.filter((r) => {
      const key = `${r.method} ${r.url}`;
      if (!r.url.startsWith('/api/') || seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  };

  async function check(s: TestServer, route: RegisteredRoute, cred: Credential): Promise<void> {
    // Write methods carry an empty JSON object: body validation runs before the guard hook (see the report on
    // app.ts), so a body that fails a route's schema would answer 400 before the guard could answer 401/403.
    const write = route.method !== 'GET';
    const headers: Record<string, string> = write ? { 'Content-Type': 'application/json' } : {};
    if (cred.token !== null) headers['Authorization'] = `Bearer ${cred.token}`;
    const res = await fetch(s.url + concrete(route), {
      method: route.method,
      headers,
      ...(write ? { body: '{}' } : {}),
      redirect: 'manual',
    });
    const text = await res.text();
    // A dispatcher sample whose action is not registered in this configuration (paper access off): the
    // dispatcher answers 404 before any authentication, whatever the credential. Registered actions are rows of
    // their own (`dispatched`) and are checked like any route.
    if (route.url.endsWith('/papers/*') && !registered(route, concrete(route))) {
      expect(res.status, `${route.method} ${route.url}`).toBe(404);
      expect(JSON.parse(text)).toEqual({ detail: `no ${route.method} handler for ${concrete(route)}` });
      expect(res.headers.get('www-authenticate')).toBeNull();
      return;
    }
    const where = `${route.method} ${route.url} with ${cred.label}: ${res.status} ${text.slice(0, 200)}`;
    const expected = expectedOutcome(route.guard, cred);
    if (expected === 'pass') {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        // non-JSON bodies (redirects, scripts) cannot be guard rejections
      }
      const guardRejection =
        (res.status === 401 || res.status === 403) &&
        (GUARD_DETAILS.includes(String(body['detail'])) ||
          String(body['detail']).startsWith('insufficient scope') ||
          body['message'] === PB_SUPERUSER_REQUIRED);
      expect(guardRejection, where).toBe(false);
      return;
    }
    expect(res.status, where).toBe(expected.status);
    expect(JSON.parse(text), where).toEqual(expected.body);
    if (expected.status === 401) expect(res.headers.get('www-authenticate'), where).toBe('Bearer');
  }

  it('every /api/* route carries the guard CONTRACT §7.4 assigns', () => {
    const routes = apiRoutes(srv);
    expect(routes.length).toBeGreaterThan(10);
    for (const r of routes) expect(r.guard, `${r.method} ${r.url}`).toEqual(expectedGuard(r.method, r.url));
  });

  it('answers each credential kind with the guard outcome (401/403 bodies, or passes)', async () => {
    registered = dispatchedMatch(srv);
    const routes = apiRoutes(srv);
    // The papers dispatcher is covered for every method, its actions as their own rows.
    for (const method of ['GET', 'POST', 'DELETE']) {
      expect(routes.some((r) => r.method === method && r.url === '/api/papers/*')).toBe(true);
    }
    expect(routes.filter((r) => r.dispatched).length).toBeGreaterThanOrEqual(4);
    // Signing out ends the session, so that route goes last.
    const logout = (r: RegisteredRoute) => (r.url === '/api/collections/users/auth-logout' ? 1 : 0);
    routes.sort((a, b) => logout(a) - logout(b));
    for (const route of routes) {
      for (const cred of creds) await check(srv, route, cred);
    }
  });

  it('a system PAT with a narrow CSV passes only the routes its scopes cover', async () => {
    const cred: Credential = {
      label: 'system PAT narrow',
      token: NARROW_SYSTEM_PAT,
      kind: 'system',
      scopes: NARROW_SCOPES,
    };
    registered = dispatchedMatch(narrow);
    for (const route of apiRoutes(narrow)) await check(narrow, route, cred);
  });
});
