import { decodeJwtUnverified, signJwt, verifyJwtSignature } from './jwt.js';
import type { Clock } from './time.js';

/**
 * What a holder id can look like (15 `[a-z0-9]` for records pksd creates; imported PocketBase ids may differ): an
 * `id` claim outside it names nobody and is refused before any lookup.
 */
const HOLDER_ID_SHAPE = /^[A-Za-z0-9_-]{1,64}$/;

/** A record that can hold auth tokens: its id and the key that is rotated to revoke all its tokens. */
export interface TokenHolder {
  readonly id: string;
  readonly tokenKey: string;
}

/** A verified token: its holder and when the sign-in that started its chain of renewals happened (seconds). */
export interface VerifiedToken<H extends TokenHolder> {
  readonly holder: H;
  readonly authTime: number;
}

export interface TokenLifetimes {
  /** Lifetime of one token (seconds). */
  readonly lifetimeSeconds: number;
  /**
   * Absolute lifetime of a sign-in (seconds): renewed tokens carry the sign-in time (`auth_time`) and never outlive
   * it by more than this. `null`: tokens are not renewed (no `auth_time` claim).
   */
  readonly maxAgeSeconds: number | null;
}

/**
 * The one issuer of PocketBase-style auth tokens (CONTRACT §7.2 sessions, §7.9 superusers): HS256 JWTs with
 * claims `{id, type: "auth", collectionId, refreshable, iat, exp}` (plus `auth_time` for renewable sessions),
 * signed with instance secret ‖ holder token key.
 */
export class AuthTokenIssuer<H extends TokenHolder> {
  constructor(
    private readonly collectionId: string,
    private readonly lifetimes: TokenLifetimes,
    private readonly secret: Buffer,
    private readonly now: Clock,
    /** The current holder of an id (`null` when gone): its token key decides the signature. */
    private readonly holder: (id: string) => Promise<H | null>,
  ) {}

  private key(holder: H): Buffer {
    return Buffer.concat([this.secret, Buffer.from(holder.tokenKey, 'utf8')]);
  }

  /** A token for `holder`; `authTime` (seconds) continues an earlier sign-in, else this is a new one. */
  issue(holder: H, authTime?: number): string {
    const iat = Math.floor(this.now() / 1000);
    const claims = { id: holder.id, type: 'auth', collectionId: this.collectionId, refreshable: true, iat };
    const { lifetimeSeconds, maxAgeSeconds } = this.lifetimes;
    if (maxAgeSeconds === null) return signJwt({ ...claims, exp: iat + lifetimeSeconds }, this.key(holder));
    const signedInAt = authTime ?? iat;
    const exp = Math.min(iat + lifetimeSeconds, signedInAt + maxAgeSeconds);
    return signJwt({ ...claims, exp, auth_time: signedInAt }, this.key(holder));
  }

  /** The holder and sign-in time of a valid, unexpired token of this collection, else `null`. */
  async verifyToken(token: string): Promise<VerifiedToken<H> | null> {
    const claims = decodeJwtUnverified(token);
    if (!claims || claims['type'] !== 'auth' || claims['collectionId'] !== this.collectionId) return null;
    const { id, exp, iat, auth_time: authTime } = claims;
    if (typeof id !== 'string' || !HOLDER_ID_SHAPE.test(id) || typeof exp !== 'number') return null;
    const now = Math.floor(this.now() / 1000);
    if (now >= exp) return null;
    // A token from before sign-in times were recorded counts from its own issue time.
    const signedInAt = typeof authTime === 'number' ? authTime : typeof iat === 'number' ? iat : exp;
    const { maxAgeSeconds } = this.lifetimes;
    if (maxAgeSeconds !== null && now >= signedInAt + maxAgeSeconds) return null;
    const holder = await this.holder(id);
    return holder && verifyJwtSignature(token, this.key(holder)) ? { holder, authTime: signedInAt } : null;
  }

  /** The holder of a valid, unexpired token of this collection, else `null`. */
  async verify(token: string): Promise<H | null> {
    return (await this.verifyToken(token))?.holder ?? null;
  }
}
