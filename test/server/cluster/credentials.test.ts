/**
 * Credentials across two `pksd serve` instances on one PostgreSQL (CONTRACT §21, issue 24): a PAT minted on A
 * works on B; a PAT revoked, a session ended or a user deleted on one instance is refused by the other within 1 s,
 * although the other had just verified (and cached) the credential. Each fails on a single-process design: with a
 * user database per instance, B does not know A's PAT, and A keeps honouring what B revoked.
 */
import { describe, expect, it } from 'vitest';
import { useCluster } from '../../support/cluster.js';

const cluster = useCluster();

const A = 0;
const B = 1;
const REFUSAL_BOUND_MS = 1_000;

const call = (index: number, pathname: string, token: string, init: RequestInit = {}): Promise<Response> =>
  fetch(cluster().instances[index]!.url + pathname, {
    ...init,
    headers: { Authorization: `Bearer ${token}`, ...init.headers },
  });

const statusOf = async (index: number, pathname: string, token: string): Promise<number> => {
  const res = await call(index, pathname, token);
  await res.arrayBuffer();
  return res.status;
};

/**
 * Polls instance `index` until `pathname` answers 401 with `token`; returns the milliseconds from `since` to the
 * first refusal. Fails once the poll has run past the bound (plus room for one slow request on a busy machine):
 * the assertion is on the measured time, not on this deadline.
 */
async function refusedAfter(index: number, pathname: string, token: string, since: number): Promise<number> {
  const deadline = since + REFUSAL_BOUND_MS + 10_000;
  for (;;) {
    const status = await statusOf(index, pathname, token);
    if (status === 401) return Date.now() - since;
    expect(status).toBe(200);
    if (Date.now() > deadline) throw new Error(`still ${status} ${Date.now() - since} ms after the change`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function mintPat(index: number, session: string, name: string): Promise<{ id: string; plaintext: string }> {
  const res = await call(index, '/api/pat', session, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ name, expires_in_days: 7, scopes: ['papers:read'] }),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string; plaintext: string };
}

describe('cluster: credentials', () => {
  it('the instances are separate processes with their own ids behind one proxy', async () => {
    expect(cluster().instances.map((i) => i.id)).toEqual(['a', 'b']);
    expect(new Set(cluster().instances.map((i) => i.pid)).size).toBe(2);
    expect(cluster().instances[A]!.url).not.toBe(cluster().instances[B]!.url);
    const pat = await cluster().superuserPat();
    for (let n = 0; n < 4; n++) {
      const res = await fetch(`${cluster().proxyUrl}/api/papers/stats`, {
        headers: { Authorization: `Bearer ${pat}` },
      });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    }
  });

  it('a PAT minted on A works on B; revoked on B, A refuses it within 1 s', async () => {
    const { session } = await cluster().signIn('alice');
    const pat = await mintPat(A, session, 'across');
    expect(await statusOf(B, '/api/papers/stats', pat.plaintext)).toBe(200);
    expect(await statusOf(A, '/api/papers/stats', pat.plaintext)).toBe(200); // now in A's verify cache

    const revoke = await call(B, `/api/pat/${pat.id}`, session, { method: 'DELETE' });
    expect(revoke.status).toBe(200);
    expect(await revoke.json()).toEqual({ ok: true });
    const since = Date.now();
    expect(await refusedAfter(A, '/api/papers/stats', pat.plaintext, since)).toBeLessThan(REFUSAL_BOUND_MS);
    expect(await statusOf(B, '/api/papers/stats', pat.plaintext)).toBe(401);
  });

  it('a session ended on B (auth-logout) is refused by A within 1 s', async () => {
    const { session } = await cluster().signIn('bob');
    expect(await statusOf(A, '/api/pat', session)).toBe(200);
    expect(await statusOf(B, '/api/pat', session)).toBe(200);

    const logout = await call(B, '/api/collections/users/auth-logout', session, { method: 'POST' });
    expect(logout.status).toBe(204);
    const since = Date.now();
    expect(await refusedAfter(A, '/api/pat', session, since)).toBeLessThan(REFUSAL_BOUND_MS);
  });

  it('a user deleted on A (admin route) is refused by B within 1 s, session and PAT alike', async () => {
    const { user, session } = await cluster().signIn('carol');
    const pat = await mintPat(B, session, 'doomed');
    expect(await statusOf(B, '/api/pat', session)).toBe(200);
    expect(await statusOf(B, '/api/papers/stats', pat.plaintext)).toBe(200);

    const identity = await cluster().identity();
    await identity.superusers.upsert('admin@example.org', 'cluster-admin-password');
    const signin = await fetch(`${cluster().instances[A]!.url}/api/collections/_superusers/auth-with-password`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ identity: 'admin@example.org', password: 'cluster-admin-password' }),
    });
    expect(signin.status).toBe(200);
    const { token: admin } = (await signin.json()) as { token: string };
    const del = await call(A, `/api/collections/users/records/${user.id}`, admin, { method: 'DELETE' });
    expect(del.status).toBe(204);
    const since = Date.now();
    const [sessionMs, patMs] = await Promise.all([
      refusedAfter(B, '/api/pat', session, since),
      refusedAfter(B, '/api/papers/stats', pat.plaintext, since),
    ]);
    expect(sessionMs).toBeLessThan(REFUSAL_BOUND_MS);
    expect(patMs).toBeLessThan(REFUSAL_BOUND_MS);
  });
});
