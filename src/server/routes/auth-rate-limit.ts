import type { FastifyRequest } from 'fastify';
import { RATE_RULES, type FixedWindowLimiter, type RateRule } from '../auth/rate-limit.js';

export { RATE_RULES, type RateRule };

/** The key of a request under a rule; `null` exempts the request (the system PAT is bound to no user). */
export type RateKey = (request: FastifyRequest) => string | null;

/** Per user: PATs and sessions of one user share the window; the system PAT (no user) is exempt. */
export const userKey: RateKey = (request) => request.principal?.userId ?? null;
export const ipKey: RateKey = (request) => request.ip;

/**
 * A route-level `preValidation` hook applying a fixed-window rule (CONTRACT §7.7). Attach it to guarded routes: it runs
 * after the app's guard hook, so requests rejected by a guard never count, and every request that reaches it
 * counts whatever its later outcome. Over the limit → 429 `{detail}` with `Retry-After`.
 *
 *   app.post('/api/papers/:id/upload-pdf', { config: { guard: scope('papers', 'write') },
 *     preValidation: rateLimit(ctx.identity.limiter, RATE_RULES.write) }, handler)
 */
export function rateLimit(limiter: FixedWindowLimiter, rule: RateRule, keyOf: RateKey = userKey) {
  return async (request: FastifyRequest): Promise<void> => {
    const key = keyOf(request);
    if (key !== null) limiter.hit(rule, key);
  };
}

/** The 60/min/user rule of the write routes (uploads, claims, ingest POSTs, wiki pull, PAT revoke, device approve/deny). */
export const writeRateLimit = (ctx: { identity: { limiter: FixedWindowLimiter } }) =>
  rateLimit(ctx.identity.limiter, RATE_RULES.write);

/**
 * An app-level `preValidation` hook (added right after the guard hook) that applies the write rule to every route whose
 * config carries `rateLimitClass: 'write'` (the papers dispatcher marks its POST/DELETE routes that way).
 */
export function rateLimitClassHook(limiter: FixedWindowLimiter) {
  const write = rateLimit(limiter, RATE_RULES.write);
  return async (request: FastifyRequest): Promise<void> => {
    if (request.is404) return;
    const cls = (request.routeOptions.config as { rateLimitClass?: string } | undefined)?.rateLimitClass;
    if (cls === 'write') await write(request);
  };
}
