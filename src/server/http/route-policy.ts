/**
 * The one hook that applies a route's declared policy (`config.guard`, `config.rateLimitClass`): the guard
 * (CONTRACT §7.1, §7.4), the audit labels, then the rate limit (§7.7). It runs before body validation, so an
 * anonymous request with a bad body is 401, not 400; requests a guard rejects never count against a limit.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RATE_RULES, type Limiter, type RateRule } from '../auth/rate-limit.js';
import { enforceGuard, enforceGuardNow, type Guard, type GuardResolvers } from '../routes/guard.js';
import { bindPrincipal } from './audit.js';
import { requestClientKey } from './client.js';
import type { RateLimitClass } from './context.js';
import { HttpError } from './http-error.js';

/**
 * Per user (PATs and sessions of one user share a window; the system PAT, bound to no user, is exempt) or per client
 * address (an IPv6 client by its /64).
 */
const byUser = (request: FastifyRequest): string | null => request.principal?.userId ?? null;
const byIp = requestClientKey;

const RATE_CLASSES: Readonly<Record<RateLimitClass, { rule: RateRule; key: (r: FastifyRequest) => string | null }>> = {
  write: { rule: RATE_RULES.write, key: byUser },
  patCreate: { rule: RATE_RULES.patCreate, key: byUser },
  deviceCode: { rule: RATE_RULES.deviceCode, key: byIp },
};

export function routePolicyHook(resolvers: GuardResolvers, limiter: Limiter) {
  /** The policy when it needs I/O: a credential only a verifier knows (`decided` false), or a rate limit. */
  const enforceLater = async (
    request: FastifyRequest,
    decided: boolean,
    guard: Guard,
    rateLimitClass?: RateLimitClass,
  ) => {
    if (!decided) await enforceGuard(guard, resolvers, request);
    bindPrincipal(request);
    if (rateLimitClass !== undefined) {
      const { rule, key } = RATE_CLASSES[rateLimitClass];
      const k = key(request);
      if (k !== null) await limiter.hit(rule, k);
    }
  };
  // A plain (callback) hook, as every request passes it: a public route or the system PAT is decided at once,
  // without a promise; anything else goes through `enforceLater`.
  return (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void => {
    if (request.is404) return done(); // the not-found handler serves no data
    const { guard, rateLimitClass } = request.routeOptions.config;
    if (guard === undefined) return done(new HttpError(500, 'route without a guard decision (server wiring fault)'));
    let decided: boolean;
    try {
      decided = enforceGuardNow(guard, resolvers, request);
    } catch (error) {
      return done(error as Error);
    }
    if (decided && rateLimitClass === undefined) {
      bindPrincipal(request);
      return done();
    }
    enforceLater(request, decided, guard, rateLimitClass).then(() => done(), done);
  };
}
