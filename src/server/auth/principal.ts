import type { Scope } from '../../shared/scopes.js';

/** Audit label of a request's credential (SPEC "Credentials"). */
export type AuthSource = 'system-pat' | 'pat' | 'session';

/** Who is calling: the result of credential resolution. */
export interface Principal {
  readonly source: AuthSource;
  /** `null` for the system PAT, which is bound to no user. */
  readonly userId: string | null;
  readonly login: string | null;
  readonly scopes: readonly (Scope | '*')[];
}

/**
 * Resolves an `Authorization` header. `null` = no credential presented; `'invalid'` = presented but unknown,
 * expired, revoked or from another instance.
 */
export interface CredentialResolver {
  resolve(authorization: string | undefined, options?: { touch?: boolean }): Promise<Principal | null | 'invalid'>;
  /**
   * `resolve`'s answer when it needs no I/O (no credential, a malformed one, the system PAT), else `undefined`: the
   * guard every request passes decides those without a promise.
   */
  resolveNow?(authorization: string | undefined): Principal | null | 'invalid' | undefined;
}

/** One link of the credential chain: a principal for a token it recognises, else `null`. */
export type CredentialVerifier = (token: string, touch: boolean) => Promise<Principal | null>;

/** A verified superuser (CONTRACT §7.9): what the admin services receive instead of a token. */
export interface SuperuserPrincipal {
  readonly kind: 'superuser';
  readonly id: string;
  readonly email: string;
}

/** The caller of an "owner or superuser" route: a verified superuser, or the user of a verified session. */
export type RecordCaller = SuperuserPrincipal | { readonly kind: 'user'; readonly userId: string };

/**
 * Resolves the PocketBase-shaped credentials of the admin routes (CONTRACT §7.1, §7.9): `Bearer <token>` or the raw
 * token, as the PocketBase SDK sends it. Each answers `null` for anything but a valid token of its kind.
 */
export interface AdminCredentialResolver {
  superuser(authorization: string | undefined): Promise<SuperuserPrincipal | null>;
  session(authorization: string | undefined): Promise<Principal | null>;
}
