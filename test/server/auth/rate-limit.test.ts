import type { FastifyReply, FastifyRequest } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FixedWindowLimiter, RATE_RULES, SharedLimiter } from '../../../src/server/auth/rate-limit.js';
import { openUserDatabase } from '../../../src/server/db/open.js';
import { routePolicyHook } from '../../../src/server/http/route-policy.js';
import { PUBLIC, scope, SESSION } from '../../../src/server/routes/guard.js';
import { RateLimitedError } from '../../../src/shared/domain-errors.js';
import { authHarness, bearer, TestClock, type AuthHarness } from './harness.js';

/** The policy hook (a callback hook) as a function of the request that settles when the hook calls `done`. */
const promised =
  (hook: ReturnType<typeof routePolicyHook>) =>
  (request: FastifyRequest): Promise<void> =>
    new Promise((resolve, reject) => hook(request, {} as FastifyReply, (e) => (e ? reject(e) : resolve())));

/** The route policy hooks below guard no admin route. */
const NO_ADMIN = { superuser: async () => null, session: async () => null };

describe('FixedWindowLimiter', () => {
  it('allows `limit` hits per 60 s window starting at the first hit, then 429 with Retry-After', () => {
    const clock = new TestClock();
    const limiter = new FixedWindowLimiter(clock.now);
    const rule = { name: 'test rule', limit: 3 };
    for (let i = 0; i < 3; i++) limiter.hit(rule, 'k');
    clock.advance(20_500);
    let error: unknown;
    try {
      limiter.hit(rule, 'k');
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(RateLimitedError);
    const e = error as RateLimitedError;
    expect(e.message).toBe('rate limit exceeded: at most 3 requests per minute for test rule; retry in 40 s');
    expect(e.retryAfterSeconds).toBe(40);
    limiter.hit(rule, 'other-key'); // keys are independent
    clock.advance(39_500); // the window ends exactly 60 s after its first hit
    limiter.hit(rule, 'k');
  });

  it('Retry-After is at least 1', () => {
    const clock = new TestClock();
    const limiter = new FixedWindowLimiter(clock.now);
    const rule = { name: 'r', limit: 1 };
    limiter.hit(rule, 'k');
    clock.advance(59_999);
    expect(() => limiter.hit(rule, 'k')).toThrow(expect.objectContaining({ retryAfterSeconds: 1 }));
  });

  it('the per-user write rule exempts requests without a user (the system PAT)', async () => {
    const limiter = new FixedWindowLimiter(new TestClock().now);
    const system = { source: 'system-pat', userId: null, login: null, scopes: ['*'] } as const;
    const user = { source: 'pat', userId: 'u1', login: 'a', scopes: ['papers:write'] } as const;
    const credentials = { resolve: async (auth?: string) => (auth === 'system' ? system : user) };
    const hook = promised(routePolicyHook({ credentials, admin: NO_ADMIN }, limiter));
    const req = (authorization: string) =>
      ({
        is404: false,
        headers: { authorization },
        routeOptions: { config: { guard: scope('papers', 'write'), rateLimitClass: 'write' } },
        principal: null,
        log: { setBindings: () => undefined },
      }) as unknown as FastifyRequest;
    for (let i = 0; i < 100; i++) await hook(req('system'));
    for (let i = 0; i < 60; i++) await hook(req('user'));
    await expect(hook(req('user'))).rejects.toBeInstanceOf(RateLimitedError);
  });
});

describe('rate limits on the PAT routes', () => {
  let h: AuthHarness;
  beforeEach(async () => {
    h = await authHarness();
  });
  afterEach(() => h.close());

  const create = (token: string, payload: object = { name: 'n', expires_in_days: 1, scopes: [] }) =>
    h.inject({ method: 'POST', url: '/api/pat', headers: bearer(token), payload });

  it('the 11th POST /api/pat of a user within a minute → 429 with Retry-After; 400s count; other users unaffected', async () => {
    const alice = await h.login('alice');
    for (let i = 0; i < 9; i++) expect((await create(alice.token)).statusCode).toBe(201);
    expect((await create(alice.token, { name: '' })).statusCode).toBe(400); // the 10th, a 400, still counts
    h.clock.advance(15_000);
    const res = await create(alice.token);
    expect(res.statusCode).toBe(429);
    expect(res.json()).toEqual({
      detail: 'rate limit exceeded: at most 10 requests per minute for POST /api/pat; retry in 45 s',
    });
    expect(res.headers['retry-after']).toBe('45');

    // another session of the same user shares the window; another user has its own
    const again = h.identity.sessions.issue(alice.user);
    expect((await create(again)).statusCode).toBe(429);
    expect((await create((await h.login('bob')).token)).statusCode).toBe(201);

    // GET is unlimited; the window ends 60 s after the first request
    expect((await h.inject({ method: 'GET', url: '/api/pat', headers: bearer(alice.token) })).statusCode).toBe(200);
    h.clock.advance(45_000);
    expect((await create(alice.token)).statusCode).toBe(201);
  });

  it('the window is counted in the user database: another instance on it shares the count (CONTRACT §21)', async () => {
    const alice = await h.login('alice');
    for (let i = 0; i < 5; i++) expect((await create(alice.token)).statusCode).toBe(201);
    // A second instance: its own connection to the same database and its own limiter.
    const other = await openUserDatabase(h.config);
    try {
      const limiter = new SharedLimiter(other.rateCounters, h.clock.now);
      for (let i = 0; i < 5; i++) await limiter.hit(RATE_RULES.patCreate, alice.user.id);
      await expect(limiter.hit(RATE_RULES.patCreate, alice.user.id)).rejects.toBeInstanceOf(RateLimitedError);
    } finally {
      await other.close();
    }
    const res = await create(alice.token);
    expect(res.statusCode).toBe(429);
    expect(res.json()).toEqual({
      detail: 'rate limit exceeded: at most 10 requests per minute for POST /api/pat; retry in 60 s',
    });
  });

  it('requests rejected by the guard do not count', async () => {
    const alice = await h.login('alice');
    const pat = await h.identity.pats.mint(alice.user.id, { name: 'p', description: '', expiresInDays: 1, scopes: [] });
    for (let i = 0; i < 20; i++) expect((await create(pat.plaintext)).statusCode).toBe(403);
    expect((await create(alice.token)).statusCode).toBe(201);
  });

  it('DELETE /api/pat/{id} is a write route: 60 per minute per user', async () => {
    const alice = await h.login('alice');
    for (let i = 0; i < 60; i++) {
      expect(
        (await h.inject({ method: 'DELETE', url: `/api/pat/nope${i}`, headers: bearer(alice.token) })).statusCode,
      ).toBe(404);
    }
    const res = await h.inject({ method: 'DELETE', url: '/api/pat/nope', headers: bearer(alice.token) });
    expect(res.statusCode).toBe(429);
    expect(res.json().detail).toBe(
      `rate limit exceeded: at most 60 requests per minute for ${RATE_RULES.write.name}; retry in 60 s`,
    );
    expect(res.headers['retry-after']).toBe('60');
  });
});

describe('the route policy hook', () => {
  it("limits routes declaring rateLimitClass: 'write' to 60 per minute per user and ignores the others", async () => {
    const principal = { source: 'session', userId: 'u1', login: 'a', scopes: ['*'] } as const;
    const hook = promised(
      routePolicyHook(
        { credentials: { resolve: async () => principal }, admin: NO_ADMIN },
        new FixedWindowLimiter(new TestClock().now),
      ),
    );
    const req = (config: object) =>
      ({
        is404: false,
        headers: { authorization: 'Bearer x' },
        routeOptions: { config },
        principal: null,
        log: { setBindings: () => undefined },
      }) as unknown as FastifyRequest;
    for (let i = 0; i < 100; i++) await hook(req({ guard: PUBLIC }));
    for (let i = 0; i < 60; i++) await hook(req({ guard: SESSION, rateLimitClass: 'write' }));
    await expect(hook(req({ guard: SESSION, rateLimitClass: 'write' }))).rejects.toBeInstanceOf(RateLimitedError);
  });
});
