import { createHash, randomBytes } from 'node:crypto';
import type { UserRepository, UserRow } from '../db/user-database.js';
import { pbDate, type Clock } from './time.js';

/** A user row (CONTRACT §7.2); `tokenKey` and `providerUserId` are never sent to clients. */
export type User = UserRow;

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
  readonly provider: string;
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
    provider: user.provider,
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

/** Users of the user database (CONTRACT §7.2). */
export class UserStore {
  constructor(
    private readonly repo: UserRepository,
    private readonly now: Clock,
  ) {}

  get(id: string): Promise<User | null> {
    return this.repo.get(id);
  }

  /** Creates or refreshes the user of an IdP identity; `isNew` tells which. */
  upsertFromIdp(profile: IdpProfile): Promise<{ user: User; isNew: boolean }> {
    const now = this.now();
    return this.repo.upsert({
      id: userIdFor(profile.provider, profile.providerUserId),
      email: profile.email,
      name: profile.name,
      login: profile.login,
      avatar: profile.avatar,
      provider: profile.provider,
      providerUserId: profile.providerUserId,
      tokenKey: newTokenKey(),
      created: now,
      updated: now,
    });
  }

  /** Users matching an id, a login or an email (case-insensitive for the last two). */
  async find(ref: string): Promise<User[]> {
    const byId = await this.get(ref);
    if (byId) return [byId];
    const rows = await this.repo.findByLoginOrEmail(ref);
    const byLogin = rows.filter((r) => r.login.toLowerCase() === ref.toLowerCase());
    return byLogin.length > 0 ? byLogin : rows;
  }

  list(options: { limit?: number; offset?: number } = {}): Promise<User[]> {
    return this.repo.list(options.limit ?? null, options.offset ?? 0);
  }

  count(): Promise<number> {
    return this.repo.count();
  }

  /** Rotates the token key: every session of the user stops verifying. `false` when there is no such user. */
  rotateTokenKey(id: string): Promise<boolean> {
    return this.repo.setTokenKey(id, newTokenKey(), this.now());
  }

  /** Deletes the user (PATs cascade); returns whether it existed. */
  delete(id: string): Promise<boolean> {
    return this.repo.delete(id);
  }
}
