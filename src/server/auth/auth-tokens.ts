import { decodeJwtUnverified, signJwt, verifyJwtSignature } from './jwt.js';
import type { Clock } from './time.js';

/** A record that can hold auth tokens: its id and the key that is rotated to revoke all its tokens. */
export interface TokenHolder {
  readonly id: string;
  readonly tokenKey: string;
}

/**
 * The one issuer of PocketBase-style auth tokens (CONTRACT §7.2 sessions, §7.9 superusers): HS256 JWTs with
 * claims `{id, type: "auth", collectionId, refreshable, iat, exp}`, signed with instance secret ‖ holder token key.
 */
export class AuthTokenIssuer<H extends TokenHolder> {
  constructor(
    private readonly collectionId: string,
    private readonly lifetimeSeconds: number,
    private readonly secret: Buffer,
    private readonly now: Clock,
    /** The current holder of an id (`null` when gone): its token key decides the signature. */
    private readonly holder: (id: string) => H | null,
  ) {}

  private key(holder: H): Buffer {
    return Buffer.concat([this.secret, Buffer.from(holder.tokenKey, 'utf8')]);
  }

  issue(holder: H): string {
    const iat = Math.floor(this.now() / 1000);
    const claims = { id: holder.id, type: 'auth', collectionId: this.collectionId, refreshable: true, iat };
    return signJwt({ ...claims, exp: iat + this.lifetimeSeconds }, this.key(holder));
  }

  /** The holder of a valid, unexpired token of this collection, else `null`. */
  verify(token: string): H | null {
    const claims = decodeJwtUnverified(token);
    if (!claims || claims['type'] !== 'auth' || claims['collectionId'] !== this.collectionId) return null;
    const id = claims['id'];
    const exp = claims['exp'];
    if (typeof id !== 'string' || typeof exp !== 'number') return null;
    if (Math.floor(this.now() / 1000) >= exp) return null;
    const holder = this.holder(id);
    return holder && verifyJwtSignature(token, this.key(holder)) ? holder : null;
  }
}
