import type { FastifyRequest } from 'fastify';
import { ForbiddenError, UnauthenticatedError } from '../../shared/domain-errors.js';
import { scopesCover, type ScopeAction, type ScopeObject } from '../../shared/scopes.js';
import { PB_SUPERUSER_REQUIRED } from '../auth/pocketbase.js';
import type {
  AdminCredentialResolver,
  CredentialResolver,
  Principal,
  RecordCaller,
  SuperuserPrincipal,
} from '../auth/principal.js';
import { HttpError } from '../http/http-error.js';

/**
 * Every route declares exactly one guard decision (CONTRACT §7.4); the route table refuses a route without one.
 * `superuser`: the admin data routes (§7.9), a superuser token only. `superuser-or-session`: the admin routes a
 * user's session may also use on its own records (PATs); the handler learns which of the two called.
 */
export type Guard =
  | { readonly kind: 'public' }
  | { readonly kind: 'auth' }
  | { readonly kind: 'scope'; readonly obj: ScopeObject; readonly act: ScopeAction }
  | { readonly kind: 'session' }
  | { readonly kind: 'superuser' }
  | { readonly kind: 'superuser-or-session' };

export const PUBLIC: Guard = { kind: 'public' };
export const SESSION: Guard = { kind: 'session' };
export const SUPERUSER: Guard = { kind: 'superuser' };
export const SUPERUSER_OR_SESSION: Guard = { kind: 'superuser-or-session' };
export const scope = (obj: ScopeObject, act: ScopeAction): Guard => ({ kind: 'scope', obj, act });

/** Guards of the admin routes: PocketBase tokens (raw or `Bearer`), PocketBase-shaped 401s. */
export const isAdminGuard = (guard: Guard): boolean =>
  guard.kind === 'superuser' || guard.kind === 'superuser-or-session';

export const AUTH_REQUIRED =
  'authentication required (sign in at /login and mint a PAT at /pat, or use the system PAT)';
export const INVALID_CREDENTIAL = 'invalid or expired credential';
export const SESSION_REQUIRED = 'this endpoint requires a browser session (PATs and the system PAT are not accepted)';

/** What guards resolve credentials with: the `/api/*` credential chain and the admin routes' tokens. */
export interface GuardResolvers {
  readonly credentials: CredentialResolver | null;
  readonly admin: AdminCredentialResolver;
}

/**
 * An admin guard (CONTRACT §7.9): the superuser of the token, or — where the guard admits one — a user session;
 * anything else (no token, a PAT, the system PAT, a session on a superuser route) is the contract's 401
 * `The request requires valid superuser authorization token.`
 */
async function enforceAdminGuard(guard: Guard, admin: AdminCredentialResolver, request: FastifyRequest): Promise<void> {
  const { authorization } = request.headers;
  const superuser = await admin.superuser(authorization);
  if (superuser !== null) {
    request.superuser = superuser;
    return;
  }
  const session = guard.kind === 'superuser-or-session' ? await admin.session(authorization) : null;
  if (session === null) throw new UnauthenticatedError(PB_SUPERUSER_REQUIRED);
  request.principal = session;
}

/** Applies a guard to a request and records its principal; throws the exact 401/403 of CONTRACT §7.1, §7.9. */
export async function enforceGuard(guard: Guard, resolvers: GuardResolvers, request: FastifyRequest): Promise<void> {
  if (guard.kind === 'public') return;
  if (isAdminGuard(guard)) return enforceAdminGuard(guard, resolvers.admin, request);
  const resolver = resolvers.credentials;
  if (resolver === null) throw new HttpError(500, 'scope guard: enforcer not configured (server wiring fault)');
  applyPrincipal(guard, request, await resolver.resolve(request.headers.authorization));
}

/**
 * `enforceGuard` where it needs no I/O: a public route, or a credential the resolver decides at once (none, a
 * malformed one, the system PAT). `true` once applied (a refusal throws, as `enforceGuard` does); `false` when only
 * `enforceGuard` can decide.
 */
export function enforceGuardNow(guard: Guard, resolvers: GuardResolvers, request: FastifyRequest): boolean {
  if (guard.kind === 'public') return true;
  if (isAdminGuard(guard) || resolvers.credentials === null) return false;
  const principal = resolvers.credentials.resolveNow?.(request.headers.authorization);
  if (principal === undefined) return false;
  applyPrincipal(guard, request, principal);
  return true;
}

/** Records a resolved credential's principal on the request, or throws the guard's 401/403. */
function applyPrincipal(guard: Guard, request: FastifyRequest, principal: Principal | null | 'invalid'): void {
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

const WIRING_FAULT = 'admin route without its guard (server wiring fault)';

/** The superuser a `superuser` guard verified for this request. */
export function verifiedSuperuser(request: FastifyRequest): SuperuserPrincipal {
  if (request.superuser === null) throw new HttpError(500, WIRING_FAULT);
  return request.superuser;
}

/** Who passed a `superuser-or-session` guard: the superuser, or the user of the session. */
export function recordCaller(request: FastifyRequest): RecordCaller {
  if (request.superuser !== null) return request.superuser;
  const userId = request.principal?.source === 'session' ? request.principal.userId : null;
  if (userId === null) throw new HttpError(500, WIRING_FAULT);
  return { kind: 'user', userId };
}
