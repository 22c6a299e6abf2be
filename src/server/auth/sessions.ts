import { AuthTokenIssuer, type VerifiedToken } from './auth-tokens.js';
import type { Principal } from './principal.js';
import type { Clock } from './time.js';
import type { User, UserStore } from './users.js';

export const USERS_COLLECTION_ID = '_pb_users_auth_';
export const SESSION_LIFETIME_S = 1_209_600; // 14 days
/** Absolute lifetime of a sign-in: renewals never carry a session past 90 days after its sign-in. */
export const SESSION_MAX_AGE_S = 90 * 86_400;

/**
 * Browser sessions: PocketBase-compatible tokens of the users collection (CONTRACT §7.2). A session is valid while
 * its token verifies, its sign-in is younger than 90 days and its user's login is still on the allow-list; all of
 * a user's sessions end when the user's token key is rotated (logout, admin revocation, `users revoke-sessions`).
 */
export class SessionService {
  private readonly tokens: AuthTokenIssuer<User>;

  constructor(
    private readonly users: UserStore,
    secret: Buffer,
    now: Clock,
    /** The login allow-list (CONTRACT §7.5), checked on every use. */
    private readonly loginAllowed: (login: string) => boolean,
  ) {
    this.tokens = new AuthTokenIssuer(
      USERS_COLLECTION_ID,
      { lifetimeSeconds: SESSION_LIFETIME_S, maxAgeSeconds: SESSION_MAX_AGE_S },
      secret,
      now,
      (id) => users.get(id),
    );
  }

  /** A token for a new sign-in. */
  issue(user: User): string {
    return this.tokens.issue(user);
  }

  /** A fresh token continuing a verified session (same sign-in time, so the absolute lifetime holds). */
  renew(session: VerifiedToken<User>): string {
    return this.tokens.issue(session.holder, session.authTime);
  }

  /** A signed, unexpired session token, whether or not its login is still allowed (auth-refresh tells them apart). */
  verifyToken(token: string): Promise<VerifiedToken<User> | null> {
    return this.tokens.verifyToken(token);
  }

  /** The user of a valid session whose login is on the allow-list, else `null`. */
  async verify(token: string): Promise<User | null> {
    const user = await this.tokens.verify(token);
    return user && this.loginAllowed(user.login) ? user : null;
  }

  async principal(token: string): Promise<Principal | null> {
    const user = await this.verify(token);
    return user ? { source: 'session', userId: user.id, login: user.login, scopes: ['*'] } : null;
  }

  /** Ends every session of a user (rotates the token key); `false` when there is no such user. */
  revokeAll(userId: string): Promise<boolean> {
    return this.users.rotateTokenKey(userId);
  }
}
