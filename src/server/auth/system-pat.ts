import { createHash, timingSafeEqual } from 'node:crypto';
import type { SystemPatConfig } from '../config/types.js';
import type { CredentialResolver, CredentialVerifier, Principal } from './principal.js';

/** Extracts the token of `Authorization: Bearer <token>` (scheme case-insensitive). */
export function bearerToken(authorization: string | undefined): string | null {
  if (!authorization) return null;
  const match = /^Bearer\s+(.+)$/i.exec(authorization.trim());
  return match ? match[1]!.trim() : null;
}

/** Constant-time comparison with the system PAT's bytes `b`; a different length is no match (CONTRACT §7.1). */
function matchesSystemPat(b: Buffer, token: string): boolean {
  const a = Buffer.from(token, 'utf8');
  if (a.length !== b.length) {
    // Spend comparable time anyway, so the length is not learned from timing alone.
    timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
    return false;
  }
  return timingSafeEqual(a, b);
}

export function systemPatPrincipal(config: SystemPatConfig): Principal {
  return { source: 'system-pat', userId: null, login: null, scopes: config.scopes };
}

/**
 * The credential chain of SPEC's order: system PAT, then the user-PAT and session verifiers (added by the
 * identity module), else invalid.
 */
export class CredentialChain implements CredentialResolver {
  /** The system PAT's bytes and its principal, made once: every request with the system PAT compares and gets them. */
  private readonly systemPat: { readonly bytes: Buffer; readonly principal: Principal } | null;

  constructor(
    systemPat: SystemPatConfig | null,
    private readonly verifiers: readonly CredentialVerifier[] = [],
  ) {
    this.systemPat = systemPat && {
      bytes: Buffer.from(systemPat.token, 'utf8'),
      principal: Object.freeze(systemPatPrincipal(systemPat)),
    };
  }

  resolveNow(authorization: string | undefined): Principal | null | 'invalid' | undefined {
    if (authorization === undefined || authorization.trim() === '') return null;
    const token = bearerToken(authorization);
    if (token === null) return 'invalid';
    if (this.systemPat && matchesSystemPat(this.systemPat.bytes, token)) return this.systemPat.principal;
    return this.verifiers.length === 0 ? 'invalid' : undefined;
  }

  async resolve(
    authorization: string | undefined,
    options: { touch?: boolean } = {},
  ): Promise<Principal | null | 'invalid'> {
    const now = this.resolveNow(authorization);
    if (now !== undefined) return now;
    const token = bearerToken(authorization)!; // not null: `resolveNow` answers a malformed header
    for (const verify of this.verifiers) {
      const principal = await verify(token, options.touch ?? true);
      if (principal) return principal;
    }
    return 'invalid';
  }
}
