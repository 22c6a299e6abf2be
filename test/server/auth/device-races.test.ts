/**
 * The device flow under concurrency (CONTRACT §7.8): the approved request is consumed and its PAT stored in one
 * transaction, a late poll never undoes a consumption, and the failed user-code throttle holds against concurrent
 * attempts. Runs on SQLite and, with `PKS_TEST_USER_DB=postgres`, on PostgreSQL; the races are staged by holding
 * the repository's answers, not by timing.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeviceRow } from '../../../src/server/db/user-database.js';
import { sql } from '../../support/user-db.js';
import { authHarness, bearer, type AuthHarness } from './harness.js';

const SPEC = { name: 'laptop', expires_in_days: 30, scopes: ['wiki:read'] };

let h: AuthHarness;
let alice: Awaited<ReturnType<AuthHarness['login']>>;
beforeEach(async () => {
  h = await authHarness();
  alice = await h.login('alice');
});
afterEach(() => h.close());

async function approvedRequest(): Promise<string> {
  const start = await h.inject({ method: 'POST', url: '/api/oauth/device/code', payload: SPEC });
  expect(start.statusCode, start.body).toBe(200);
  const { device_code, user_code } = start.json() as { device_code: string; user_code: string };
  const approved = await h.inject({
    method: 'POST',
    url: '/api/oauth/device/approve',
    headers: bearer(alice.token),
    payload: { user_code },
  });
  expect(approved.statusCode, approved.body).toBe(200);
  return device_code;
}

const poll = (device_code: string) =>
  h.inject({ method: 'POST', url: '/api/oauth/device/token', payload: { device_code } });

/** Runs `after` once the next `registerPoll` has read (and counted) its row, before the poll goes on. */
function afterNextPollRead(after: (row: DeviceRow | null) => Promise<void>) {
  const repo = h.identity.db.devices;
  const original = repo.registerPoll.bind(repo);
  repo.registerPoll = async (hash, now) => {
    repo.registerPoll = original;
    const row = await original(hash, now);
    await after(row);
    return row;
  };
}

describe('device token poll races', () => {
  it('the approver is deleted while a poll hands out the token: 400 access_denied, no PAT, no 5xx', async () => {
    const deviceCode = await approvedRequest();
    afterNextPollRead(async () => {
      expect(await h.identity.deleteUser(alice.user.id)).toBe(true);
    });
    const res = await poll(deviceCode);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toEqual({ error: 'access_denied' });
    expect(await sql(h.identity.db, 'SELECT id FROM pat_tokens')).toEqual([]);
    const [row] = await sql(h.identity.db, 'SELECT status, pat_id FROM device_requests');
    expect(row).toEqual({ status: 'denied', pat_id: null });
    h.clock.advance(5_000);
    expect((await poll(deviceCode)).json()).toEqual({ error: 'access_denied' });
  });

  it('a poll that read the request before expiry and a late one after: the token is handed out once and stays consumed', async () => {
    const deviceCode = await approvedRequest();
    // Poll A reads the approved request before its expiry, and is held there.
    let releaseA!: () => void;
    const heldA = new Promise<void>((resolve) => (releaseA = resolve));
    let readA!: () => void;
    const aRead = new Promise<void>((resolve) => (readA = resolve));
    afterNextPollRead(async () => {
      readA();
      await heldA;
    });
    const a = poll(deviceCode);
    await aRead;
    // Poll B comes after the expiry, reads the request (still approved), and is held until A consumed it.
    h.clock.advance(600_000);
    let releaseB!: () => void;
    const heldB = new Promise<void>((resolve) => (releaseB = resolve));
    let readB!: () => void;
    const bRead = new Promise<void>((resolve) => (readB = resolve));
    afterNextPollRead(async (row) => {
      expect(row?.status).toBe('approved');
      readB();
      await heldB;
    });
    const b = poll(deviceCode);
    await bRead;
    releaseA();
    const tokenRes = await a;
    expect(tokenRes.statusCode, tokenRes.body).toBe(200);
    const patId = tokenRes.json().pat_id as string;
    releaseB();
    expect((await b).json()).toEqual({ error: 'expired_token' });
    const [row] = await sql(h.identity.db, 'SELECT status, pat_id FROM device_requests');
    expect(row).toEqual({ status: 'consumed', pat_id: patId });
    expect((await poll(deviceCode)).json()).toEqual({ error: 'invalid_grant' }); // consumed, not expired
  });
});

describe('failed user-code throttle under concurrency', () => {
  it('40 concurrent unknown codes of one user: at most 5 are looked up, the rest are 429', async () => {
    const codes = Array.from({ length: 40 }, (_, i) => `ZZZZ-${'ABCDEFGHJKMNPQRSTUVWXYZ23456789'[i % 31]}ZZZ`);
    const results = await Promise.all(
      codes.map((code) =>
        h.inject({
          method: 'GET',
          url: `/api/oauth/device/code?user_code=${code}`,
          headers: bearer(alice.token),
        }),
      ),
    );
    const statuses = results.map((r) => r.statusCode);
    expect(statuses.filter((s) => s !== 429).length).toBeLessThanOrEqual(5);
    expect(statuses.filter((s) => s !== 429 && s !== 404)).toEqual([]);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(35);
    // The window is used up: a further attempt is 429 too, until it ends.
    const more = await h.inject({
      method: 'GET',
      url: '/api/oauth/device/code?user_code=YYYY-YYYY',
      headers: bearer(alice.token),
    });
    expect(more.statusCode).toBe(429);
    h.clock.advance(60_000);
    const later = await h.inject({
      method: 'GET',
      url: '/api/oauth/device/code?user_code=YYYY-YYYY',
      headers: bearer(alice.token),
    });
    expect(later.statusCode).toBe(404);
  });

  it('found codes do not count as failures', async () => {
    const start = await h.inject({ method: 'POST', url: '/api/oauth/device/code', payload: SPEC });
    const { user_code } = start.json() as { user_code: string };
    for (let i = 0; i < 10; i++) {
      const res = await h.inject({
        method: 'GET',
        url: `/api/oauth/device/code?user_code=${user_code}`,
        headers: bearer(alice.token),
      });
      expect(res.statusCode, res.body).toBe(200);
    }
  });
});
