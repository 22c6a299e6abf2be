import { AuthTokenIssuer } from './auth-tokens.js';
import type { Principal } from './principal.js';
import type { Clock } from './time.js';
import type { User, UserStore } from './users.js';

export const USERS_COLLECTION_ID = '_pb_users_auth_';
export const SESSION_LIFETIME_S = 1_209_600; // 14 days

/** Browser sessions: PocketBase-compatible tokens of the users collection (CONTRACT §7.2). */
export class SessionService {
  private readonly tokens: AuthTokenIssuer<User>;

  constructor(users: UserStore, secret: Buffer, now: Clock) {
    this.tokens = new AuthTokenIssuer(USERS_COLLECTION_ID, SESSION_LIFETIME_S, secret, now, (id) => users.get(id));
  }

  issue(user: User): string {
    return this.tokens.issue(user);
  }

  /** The user of a valid, unexpired session token, else `null`. */
  verify(token: string): User | null {
    return this.tokens.verify(token);
  }

  principal(token: string): Principal | null {
    const user = this.verify(token);
    return user ? { source: 'session', userId: user.id, login: user.login, scopes: ['*'] } : null;
  }
}
