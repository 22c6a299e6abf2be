import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authHarness, bearer, SYSTEM_PAT, type AuthHarness } from '../auth/harness.js';

let h: AuthHarness;

beforeAll(async () => {
  h = await authHarness(); // the wiki directory does not exist: every pull answers 409, which still counts
});
afterAll(async () => {
  await h?.close();
});

describe('POST /api/wiki/sync/pull rate limit (§7.7)', () => {
  it('allows 60 pulls per minute per user, whatever their outcome, then 429 with Retry-After', async () => {
    const { token } = await h.login('puller');
    for (let i = 0; i < 60; i++) {
      const res = await h.inject({ method: 'POST', url: '/api/wiki/sync/pull', headers: bearer(token) });
      expect(res.statusCode).toBe(409);
      expect(res.json()).toEqual({ detail: 'wiki directory does not exist' });
    }
    const res = await h.inject({ method: 'POST', url: '/api/wiki/sync/pull', headers: bearer(token) });
    expect(res.statusCode).toBe(429);
    expect(res.json()).toEqual({
      detail: 'rate limit exceeded: at most 60 requests per minute for write requests; retry in 60 s',
    });
    expect(res.headers['retry-after']).toBe('60');
    // Reads are unlimited, and another user has a window of their own.
    expect((await h.inject({ method: 'GET', url: '/api/wiki/sync/status', headers: bearer(token) })).statusCode).toBe(
      200,
    );
    const other = await h.login('other');
    expect(
      (await h.inject({ method: 'POST', url: '/api/wiki/sync/pull', headers: bearer(other.token) })).statusCode,
    ).toBe(409);
  });

  it('exempts the system PAT and does not count requests rejected by the guard', async () => {
    for (let i = 0; i < 65; i++) {
      const res = await h.inject({ method: 'POST', url: '/api/wiki/sync/pull', headers: bearer(SYSTEM_PAT) });
      expect(res.statusCode).toBe(409);
    }
    for (let i = 0; i < 65; i++) {
      expect((await h.inject({ method: 'POST', url: '/api/wiki/sync/pull' })).statusCode).toBe(401);
    }
  });
});
