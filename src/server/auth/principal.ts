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
}

/** One link of the credential chain: a principal for a token it recognises, else `null`. */
export type CredentialVerifier = (token: string, touch: boolean) => Promise<Principal | null>;
