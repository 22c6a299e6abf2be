import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../db/database.js';
import { pbDate, type Clock } from './time.js';

/** A user row (CONTRACT §7.2); `tokenKey` and `providerUserId` are never sent to clients. */
export interface User {
  readonly id: string;
  readonly email: string;
  readonly name: string;
  readonly login: string;
  readonly avatar: string;
  readonly provider: string;
  readonly providerUserId: string;
  readonly tokenKey: string;
  readonly created: number;
  readonly updated: number;
}

interface UserRow {
  id: string;
  email: string;
  name: string;
  login: string;
  avatar: string;
  provider: string;
  provider_user_id: string;
  token_key: string;
  created: number;
  updated: number;
}

const fromRow = (r: UserRow): User => ({
  id: r.id,
  email: r.email,
  name: r.name,
  login: r.login,
  avatar: r.avatar,
  provider: r.provider,
  providerUserId: r.provider_user_id,
  tokenKey: r.token_key,
  created: r.created,
  updated: r.updated,
});

/** `u` + the first 14 hex characters of sha256(`<provider>:<provider user id>`): stable across instances. */
export function userIdFor(provider: string, providerUserId: string): string {
  return 'u' + createHash('sha256').update(`${provider}:${providerUserId}`).digest('hex').slice(0, 14);
}

export const newTokenKey = (): string => randomBytes(24).toString('base64url');

/** The PocketBase-shaped user record JSON (CONTRACT §7.2). */
export interface UserRecordJson {
  readonly collectionId: '_pb_users_auth_';
  readonly collectionName: 'users';
  readonly id: string;
  readonly email: string;
  readonly emailVisibility: boolean;
  readonly verified: boolean;
  readonly name: string;
  readonly login: string;
  readonly avatar: string;
  readonly created: string;
  readonly updated: string;
}

export function userRecord(user: User): UserRecordJson {
  return {
    collectionId: '_pb_users_auth_',
    collectionName: 'users',
    id: user.id,
    email: user.email,
    emailVisibility: false,
    verified: true,
    name: user.name,
    login: user.login,
    avatar: user.avatar,
    created: pbDate(user.created),
    updated: pbDate(user.updated),
  };
}

export interface IdpProfile {
  readonly provider: string;
  readonly providerUserId: string;
  readonly login: string;
  readonly email: string;
  readonly name: string;
  readonly avatar: string;
}

export class UserStore {
  constructor(
    private readonly db: Db,
    private readonly now: Clock,
  ) {}

  get(id: string): User | null {
    const row = this.db.prepare('SELECT * FROM users WHERE id = ?').get(id) as UserRow | undefined;
    return row ? fromRow(row) : null;
  }

  /** Creates or refreshes the user of an IdP identity; `isNew` tells which. */
  upsertFromIdp(profile: IdpProfile): { user: User; isNew: boolean } {
    const id = userIdFor(profile.provider, profile.providerUserId);
    const now = this.now();
    return this.db.transaction(() => {
      const existing = this.get(id);
      if (existing) {
        this.db
          .prepare('UPDATE users SET email = ?, name = ?, login = ?, avatar = ?, updated = ? WHERE id = ?')
          .run(profile.email, profile.name, profile.login, profile.avatar, now, id);
        return { user: this.get(id)!, isNew: false };
      }
      this.db
        .prepare(
          `INSERT INTO users (id, email, name, login, avatar, provider, provider_user_id, token_key, created, updated)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          id,
          profile.email,
          profile.name,
          profile.login,
          profile.avatar,
          profile.provider,
          profile.providerUserId,
          newTokenKey(),
          now,
          now,
        );
      return { user: this.get(id)!, isNew: true };
    })();
  }

  /** Users matching an id, a login or an email (case-insensitive for the last two). */
  find(ref: string): User[] {
    const byId = this.get(ref);
    if (byId) return [byId];
    const rows = this.db
      .prepare('SELECT * FROM users WHERE login = ? COLLATE NOCASE OR email = ? COLLATE NOCASE ORDER BY created')
      .all(ref, ref) as UserRow[];
    const byLogin = rows.filter((r) => r.login.toLowerCase() === ref.toLowerCase());
    return (byLogin.length > 0 ? byLogin : rows).map(fromRow);
  }

  list(options: { limit?: number; offset?: number } = {}): User[] {
    const rows = this.db
      .prepare('SELECT * FROM users ORDER BY created, id LIMIT ? OFFSET ?')
      .all(options.limit ?? -1, options.offset ?? 0) as UserRow[];
    return rows.map(fromRow);
  }

  count(): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM users').get() as { n: number }).n;
  }

  /** Rotates the token key: every session of the user stops verifying. `false` when there is no such user. */
  rotateTokenKey(id: string): boolean {
    return (
      this.db.prepare('UPDATE users SET token_key = ?, updated = ? WHERE id = ?').run(newTokenKey(), this.now(), id)
        .changes > 0
    );
  }

  /** Deletes the user (PATs cascade); returns whether it existed. */
  delete(id: string): boolean {
    return this.db.prepare('DELETE FROM users WHERE id = ?').run(id).changes > 0;
  }
}
