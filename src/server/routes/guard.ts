import type { FastifyRequest } from 'fastify';
import { ForbiddenError, UnauthenticatedError } from '../../shared/domain-errors.js';
import { scopesCover, type ScopeAction, type ScopeObject } from '../../shared/scopes.js';
import type { CredentialResolver } from '../auth/principal.js';
import { HttpError } from '../http/http-error.js';

/** Every route declares exactly one guard decision (CONTRACT §7.4); the route table refuses a route without one. */
export type Guard =
  | { readonly kind: 'public' }
  | { readonly kind: 'auth' }
  | { readonly kind: 'scope'; readonly obj: ScopeObject; readonly act: ScopeAction }
  | { readonly kind: 'session' };

export const PUBLIC: Guard = { kind: 'public' };
export const SESSION: Guard = { kind: 'session' };
export const scope = (obj: ScopeObject, act: ScopeAction): Guard => ({ kind: 'scope', obj, act });

export const AUTH_REQUIRED =
  'authentication required (sign in at /login and mint a PAT at /pat, or use the system PAT)';
export const INVALID_CREDENTIAL = 'invalid or expired credential';
export const SESSION_REQUIRED = 'this endpoint requires a browser session (PATs and the system PAT are not accepted)';

/** Applies a guard to a request and records its principal; throws the exact 401/403 of CONTRACT §7.1. */
export async function enforceGuard(
  guard: Guard,
  resolver: CredentialResolver | null,
  request: FastifyRequest,
): Promise<void> {
  if (guard.kind === 'public') return;
  if (resolver === null) throw new HttpError(500, 'scope guard: enforcer not configured (server wiring fault)');
  const principal = await resolver.resolve(request.headers.authorization);
  if (principal === null) throw new UnauthenticatedError(AUTH_REQUIRED);
  if (principal === 'invalid') throw new UnauthenticatedError(INVALID_CREDENTIAL);
  request.principal = principal;
  if (guard.kind === 'session' && principal.source !== 'session') throw new ForbiddenError(SESSION_REQUIRED);
  if (guard.kind === 'scope' && !scopesCover(principal.scopes, guard.obj, guard.act)) {
    throw new ForbiddenError(
      `insufficient scope: this token lacks ${guard.obj}:${guard.act} (mint a new PAT at /pat with the required scope)`,
      { fields: { obj: guard.obj, act: guard.act } },
    );
  }
}
