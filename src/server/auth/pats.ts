import { createHmac } from 'node:crypto';
import type { Logger } from 'pino';
import type { Scope } from '../../shared/scopes.js';
import type { Db } from '../db/database.js';
import { LruCache } from './lru.js';
import type { PatSpec } from './pat-spec.js';
import { parseStoredScopes } from './pat-spec.js';
import type { Principal } from './principal.js';
import { BASE62, randomString, recordId } from './random.js';
import type { Clock } from './time.js';

export const PAT_PREFIX = 'pat_';
const PAT_SHAPE = /^pat_[A-Za-z0-9]{32}$/;
const PREFIX_LENGTH = 12;
const CACHE_ENTRIES = 4096;
const CACHE_TTL_MS = 60_000;
const DAY_MS = 86_400_000;

/** A stored PAT without its hash (CONTRACT §7.3). */
export interface PatRecord {
  readonly id: string;
  readonly userId: string;
  readonly name: string;
  readonly description: string;
  readonly prefix: string;
  readonly scopes: readonly Scope[];
  readonly expiresAt: number;
  readonly lastUsedAt: number | null;
  readonly created: number;
  readonly updated: number;
}

export interface MintedPat extends PatRecord {
  /** Shown once; never stored. */
  readonly plaintext: string;
}

interface PatRow {
  id: string;
  user: string;
  name: string;
  description: string;
  prefix: string;
  token_hash: string;
  scopes: string | null;
  expires_at: number;
  last_used_at: number | null;
  created: number;
  updated: number;
}

const fromRow = (r: PatRow): PatRecord => ({
  id: r.id,
  userId: r.user,
  name: r.name,
  description: r.description,
  prefix: r.prefix,
  scopes: parseStoredScopes(r.scopes),
  expiresAt: r.expires_at,
  lastUsedAt: r.last_used_at,
  created: r.created,
  updated: r.updated,
});

interface CachedPat {
  readonly id: string;
  readonly userId: string;
  readonly login: string;
  readonly scopes: readonly Scope[];
  readonly expiresAt: number;
}

/** A fresh plaintext: `pat_` + 32 uniformly drawn base62 characters. */
export function generatePatPlaintext(): string {
  return PAT_PREFIX + randomString(BASE62, 32);
}

export const looksLikePat = (token: string): boolean => PAT_SHAPE.test(token);

/**
 * User PATs: minting, listing, revocation and verification with a bounded cache (CONTRACT §7.3). The cache never
 * outlives a change of the database by anyone else (another instance, `pksd pat revoke`): SQLite's `data_version`
 * moves on every commit of another connection, and the cache is emptied when it does. A PAT whose owner's login is
 * no longer on the allow-list does not verify.
 */
export class PatService {
  private readonly cache: LruCache<CachedPat>;
  private readonly dataVersion: { get(): unknown };
  private seenDataVersion: unknown = null;

  constructor(
    private readonly db: Db,
    private readonly secret: Buffer,
    private readonly now: Clock,
    /** The login allow-list (CONTRACT §7.5), checked on every use. */
    private readonly loginAllowed: (login: string) => boolean,
    private readonly logger?: Logger,
  ) {
    this.cache = new LruCache(CACHE_ENTRIES, CACHE_TTL_MS, now);
    this.dataVersion = db.prepare('PRAGMA data_version').pluck();
  }

  /** Empties the cache when another connection committed since the last look (a revocation may be among it). */
  private syncCache(): void {
    const version = this.dataVersion.get();
    if (version !== this.seenDataVersion) {
      this.cache.clear();
      this.seenDataVersion = version;
    }
  }

  /** HMAC-SHA256(instance secret, plaintext), hex. */
  hash(plaintext: string): string {
    return createHmac('sha256', this.secret).update(plaintext).digest('hex');
  }

  mint(userId: string, spec: PatSpec): MintedPat {
    const now = this.now();
    const plaintext = generatePatPlaintext();
    const row: PatRow = {
      id: recordId(),
      user: userId,
      name: spec.name,
      description: spec.description,
      prefix: plaintext.slice(0, PREFIX_LENGTH),
      token_hash: this.hash(plaintext),
      scopes: JSON.stringify(spec.scopes),
      expires_at: now + spec.expiresInDays * DAY_MS,
      last_used_at: null,
      created: now,
      updated: now,
    };
    this.db
      .prepare(
        `INSERT INTO pat_tokens (id, user, name, description, prefix, token_hash, scopes, expires_at, last_used_at, created, updated)
         VALUES (@id, @user, @name, @description, @prefix, @token_hash, @scopes, @expires_at, @last_used_at, @created, @updated)`,
      )
      .run(row);
    return { ...fromRow(row), plaintext };
  }

  get(id: string): PatRecord | null {
    const row = this.db.prepare('SELECT * FROM pat_tokens WHERE id = ?').get(id) as PatRow | undefined;
    return row ? fromRow(row) : null;
  }

  /** Newest first; all users when `userId` is omitted. */
  list(userId?: string): PatRecord[] {
    const rows = (
      userId === undefined
        ? this.db.prepare('SELECT * FROM pat_tokens ORDER BY created DESC, rowid DESC').all()
        : this.db.prepare('SELECT * FROM pat_tokens WHERE user = ? ORDER BY created DESC, rowid DESC').all(userId)
    ) as PatRow[];
    return rows.map(fromRow);
  }

  /** Deletes a PAT (only the owner's when `ownerId` is given) and purges it from the verify cache. */
  revoke(id: string, ownerId?: string): PatRecord | null {
    const row = this.db.prepare('SELECT * FROM pat_tokens WHERE id = ?').get(id) as PatRow | undefined;
    if (!row || (ownerId !== undefined && row.user !== ownerId)) return null;
    this.db.prepare('DELETE FROM pat_tokens WHERE id = ?').run(id);
    this.cache.delete(row.token_hash);
    return fromRow(row);
  }

  /** Purges every cached PAT of a user (before the user is deleted; the rows cascade). */
  purgeUser(userId: string): void {
    const hashes = this.db.prepare('SELECT token_hash FROM pat_tokens WHERE user = ?').pluck().all(userId) as string[];
    for (const h of hashes) this.cache.delete(h);
  }

  /**
   * The principal of a user PAT, or `null` when the token is not a PAT or is unknown, expired, revoked or its
   * owner's login is off the allow-list. A
   * successful check updates `last_used_at` asynchronously unless `touch` is false.
   */
  verify(token: string, touch: boolean): Principal | null {
    if (!token.startsWith(PAT_PREFIX) || !PAT_SHAPE.test(token)) return null;
    const key = this.hash(token);
    const now = this.now();
    this.syncCache();
    let entry = this.cache.get(key);
    if (!entry) {
      const row = this.db
        .prepare(
          `SELECT p.id, p.user, p.scopes, p.expires_at, u.login FROM pat_tokens p
           JOIN users u ON u.id = p.user WHERE p.token_hash = ?`,
        )
        .get(key) as { id: string; user: string; scopes: string | null; expires_at: number; login: string } | undefined;
      if (!row) return null; // negative results are not cached
      entry = {
        id: row.id,
        userId: row.user,
        login: row.login,
        scopes: parseStoredScopes(row.scopes),
        expiresAt: row.expires_at,
      };
      this.cache.set(key, entry);
    }
    if (now >= entry.expiresAt || !this.loginAllowed(entry.login)) return null;
    if (touch) this.touch(entry.id, now);
    return { source: 'pat', userId: entry.userId, login: entry.login, scopes: entry.scopes };
  }

  private touch(id: string, now: number): void {
    setImmediate(() => {
      try {
        // Single column: `updated` is the record's edit time, not its use time.
        this.db.prepare('UPDATE pat_tokens SET last_used_at = ? WHERE id = ?').run(now, id);
      } catch (err) {
        this.logger?.warn({ err }, 'could not record PAT use');
      }
    });
  }
}
