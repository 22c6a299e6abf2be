import { decodeJwtUnverified, signJwt, verifyJwtSignature } from './jwt.js';
import type { Principal } from './principal.js';
import type { Clock } from './time.js';
import type { User, UserStore } from './users.js';

export const USERS_COLLECTION_ID = '_pb_users_auth_';
export const SESSION_LIFETIME_S = 1_209_600; // 14 days

/** Browser sessions: PocketBase-compatible HS256 JWTs keyed by instance secret ‖ user token key (CONTRACT §7.2). */
export class SessionService {
  constructor(
    private readonly users: UserStore,
    private readonly secret: Buffer,
    private readonly now: Clock,
  ) {}

  private key(user: User): Buffer {
    return Buffer.concat([this.secret, Buffer.from(user.tokenKey, 'utf8')]);
  }

  issue(user: User): string {
    const iat = Math.floor(this.now() / 1000);
    return signJwt(
      {
        id: user.id,
        type: 'auth',
        collectionId: USERS_COLLECTION_ID,
        refreshable: true,
        iat,
        exp: iat + SESSION_LIFETIME_S,
      },
      this.key(user),
    );
  }

  /** The user of a valid, unexpired session token, else `null`. */
  verify(token: string): User | null {
    const claims = decodeJwtUnverified(token);
    if (!claims || claims['type'] !== 'auth' || claims['collectionId'] !== USERS_COLLECTION_ID) return null;
    const id = claims['id'];
    const exp = claims['exp'];
    if (typeof id !== 'string' || typeof exp !== 'number') return null;
    if (Math.floor(this.now() / 1000) >= exp) return null;
    const user = this.users.get(id);
    if (!user || !verifyJwtSignature(token, this.key(user))) return null;
    return user;
  }

  principal(token: string): Principal | null {
    const user = this.verify(token);
    return user ? { source: 'session', userId: user.id, login: user.login, scopes: ['*'] } : null;
  }
}
