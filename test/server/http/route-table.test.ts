/**
 * The route table refuses a route without a guard decision (CONTRACT §7.4): at registration, and — should one slip
 * through — at request time, where the policy hook answers 500 instead of serving it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { FixedWindowLimiter } from '../../../src/server/auth/rate-limit.js';
import type { App } from '../../../src/server/http/context.js';
import { HttpError } from '../../../src/server/http/http-error.js';
import { routePolicyHook } from '../../../src/server/http/route-policy.js';
import { authHarness, TestClock } from '../auth/harness.js';

/** The policy hook (a callback hook) as a function of the request that settles when the hook calls `done`. */
const promised =
  (hook: ReturnType<typeof routePolicyHook>) =>
  (request: FastifyRequest): Promise<void> =>
    new Promise((resolve, reject) => hook(request, {} as FastifyReply, (e) => (e ? reject(e) : resolve())));

describe('the route table', () => {
  it('refuses to register a route without a guard decision', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pksd-route-table-'));
    try {
      const register = (app: App) => app.get('/api/unguarded', async () => ({ ok: true }));
      await expect(authHarness({}, { dir, register })).rejects.toThrow(
        'route GET /api/unguarded has no guard decision',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the policy hook refuses a request to a route without a guard decision (500, nothing served)', async () => {
    const resolve = async () => {
      throw new Error('credentials must not be read');
    };
    const admin = { superuser: async () => null, session: async () => null };
    const hook = promised(
      routePolicyHook({ credentials: { resolve }, admin }, new FixedWindowLimiter(new TestClock().now)),
    );
    const request = { is404: false, headers: {}, routeOptions: { config: {} } } as unknown as FastifyRequest;
    const err = await hook(request).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpError);
    expect(err).toMatchObject({ status: 500, message: 'route without a guard decision (server wiring fault)' });
  });
});
