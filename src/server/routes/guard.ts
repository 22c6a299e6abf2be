import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../../shared/errors.js';
import { scopesCover, type ScopeAction, type ScopeObject } from '../../shared/scopes.js';
import type { CredentialResolver, Principal } from '../auth/principal.js';

/** Every route declares exactly one guard decision (CONTRACT §7.4); the route table refuses a route without one. */
export type Guard =
  | { readonly kind: 'public' }
  | { readonly kind: 'auth' }
  | { readonly kind: 'scope'; readonly obj: ScopeObject; readonly act: ScopeAction }
  | { readonly kind: 'session' };

export const PUBLIC: Guard = { kind: 'public' };
export const SESSION: Guard = { kind: 'session' };
export const scope = (obj: ScopeObject, act: ScopeAction): Guard => ({ kind: 'scope', obj, act });

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
  interface FastifyContextConfig {
    guard?: Guard;
  }
}

export const AUTH_REQUIRED =
  'authentication required (sign in at /login and mint a PAT at /pat, or use the system PAT)';
export const INVALID_CREDENTIAL = 'invalid or expired credential';
export const SESSION_REQUIRED = 'this endpoint requires a browser session (PATs and the system PAT are not accepted)';

const unauthorized = (detail: string) => new HttpError(401, detail, { 'WWW-Authenticate': 'Bearer' });

/** Applies a guard to a request; throws the exact 401/403 bodies of CONTRACT §7.1. */
export async function enforceGuard(
  guard: Guard,
  resolver: CredentialResolver | null,
  request: FastifyRequest,
): Promise<void> {
  if (guard.kind === 'public') return;
  if (resolver === null) {
    throw new HttpError(500, 'scope guard: enforcer not configured (server wiring fault)');
  }
  const principal = await resolver.resolve(request.headers.authorization);
  if (principal === null) throw unauthorized(AUTH_REQUIRED);
  if (principal === 'invalid') throw unauthorized(INVALID_CREDENTIAL);
  request.principal = principal;
  if (guard.kind === 'session' && principal.source !== 'session') throw new HttpError(403, SESSION_REQUIRED);
  if (guard.kind === 'scope' && !scopesCover(principal.scopes, guard.obj, guard.act)) {
    throw new HttpError(403, {
      detail: `insufficient scope: this token lacks ${guard.obj}:${guard.act} (mint a new PAT at /pat with the required scope)`,
      obj: guard.obj,
      act: guard.act,
    });
  }
}

export function guardHook(resolver: CredentialResolver | null) {
  return async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    if (request.is404) return; // the not-found handler serves no data
    const guard = request.routeOptions.config.guard;
    if (guard === undefined) throw new HttpError(500, 'route without a guard decision (server wiring fault)');
    await enforceGuard(guard, resolver, request);
  };
}
