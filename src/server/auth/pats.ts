import { createHmac } from 'node:crypto';
import type { Logger } from 'pino';
import type { Scope } from '../../shared/scopes.js';
import type { PatRepository, PatRow } from '../db/user-database.js';
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

const fromRow = (r: PatRow): PatRecord => ({
  id: r.id,
  userId: r.userId,
  name: r.name,
  description: r.description,
  prefix: r.prefix,
  scopes: parseStoredScopes(r.scopes),
  expiresAt: r.expiresAt,
  lastUsedAt: r.lastUsedAt,
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
 * outlives a change of the database by anyone else (another instance, `pksd pat revoke`): the repository's
 * revision (SQLite's `data_version`, PostgreSQL's credential revision, or under `pksd serve` on PostgreSQL the count
 * of its notifications, db/notifications-credentials.ts) moves on such changes, and the cache is emptied when it
 * does. A PAT whose owner's login is no longer on the allow-list does not verify.
 */
export class PatService {
  private readonly cache: LruCache<CachedPat>;
  private seenRevision: unknown = null;
  /**
   * Counts this service's own evictions: SQLite's `data_version` does not move on this connection's own commits,
   * so a verify that read a row before an eviction here must not cache it after.
   */
  private evictions = 0;
  /**
   * Uses not yet written, by PAT id: at most one `last_used_at` write per PAT in flight, the latest use written
   * last (on PostgreSQL every write is a round trip: a busy PAT must not cost one per request).
   */
  private readonly unwrittenUses = new Map<string, number>();

  constructor(
    private readonly repo: PatRepository,
    private readonly secret: Buffer,
    private readonly now: Clock,
    /** The login allow-list (CONTRACT §7.5), checked on every use. */
    private readonly loginAllowed: (login: string) => boolean,
    private readonly logger?: Logger,
  ) {
    this.cache = new LruCache(CACHE_ENTRIES, CACHE_TTL_MS, now);
  }

  /**
   * Empties the cache when someone else changed credentials since the last look (a revocation may be among it);
   * returns the revision read, so a caller only caches what it read while that revision is still the one seen.
   */
  private async syncCache(): Promise<unknown> {
    const revision = await this.repo.revision();
    if (revision !== this.seenRevision) {
      this.cache.clear();
      this.seenRevision = revision;
    }
    return revision;
  }

  /** HMAC-SHA256(instance secret, plaintext), hex. */
  hash(plaintext: string): string {
    return createHmac('sha256', this.secret).update(plaintext).digest('hex');
  }

  async mint(userId: string, spec: PatSpec): Promise<MintedPat> {
    const { row, pat } = this.draft(userId, spec);
    await this.repo.insert(row);
    return pat;
  }

  /** A new PAT for `userId` and the row that stores it, not yet stored (the device flow stores it in its transaction). */
  draft(userId: string, spec: PatSpec): { row: PatRow; pat: MintedPat } {
    const now = this.now();
    const plaintext = generatePatPlaintext();
    const row: PatRow = {
      id: recordId(),
      userId,
      name: spec.name,
      description: spec.description,
      prefix: plaintext.slice(0, PREFIX_LENGTH),
      tokenHash: this.hash(plaintext),
      scopes: JSON.stringify(spec.scopes),
      expiresAt: now + spec.expiresInDays * DAY_MS,
      lastUsedAt: null,
      created: now,
      updated: now,
    };
    return { row, pat: { ...fromRow(row), plaintext } };
  }

  async get(id: string): Promise<PatRecord | null> {
    const row = await this.repo.get(id);
    return row ? fromRow(row) : null;
  }

  /** Newest first; all users when `userId` is omitted. */
  async list(userId?: string): Promise<PatRecord[]> {
    return (await this.repo.list(userId)).map(fromRow);
  }

  /** Deletes a PAT (only the owner's when `ownerId` is given) and purges it from the verify cache. */
  async revoke(id: string, ownerId?: string): Promise<PatRecord | null> {
    const row = await this.repo.get(id);
    if (!row || (ownerId !== undefined && row.userId !== ownerId)) return null;
    const deleted = await this.repo.delete(id);
    this.evict([row.tokenHash]);
    return deleted ? fromRow(deleted) : null;
  }

  /** The token hashes of a user's PATs (read before deleting the user, to `evict` them after). */
  tokenHashesOf(userId: string): Promise<string[]> {
    return this.repo.tokenHashesOf(userId);
  }

  /** Drops these token hashes from the verify cache (after their rows are deleted). */
  evict(tokenHashes: readonly string[]): void {
    this.evictions += 1;
    for (const h of tokenHashes) this.cache.delete(h);
  }

  /**
   * The principal of a user PAT, or `null` when the token is not a PAT or is unknown, expired, revoked or its
   * owner's login is off the allow-list. A successful check updates `last_used_at` in the background unless
   * `touch` is false.
   */
  async verify(token: string, touch: boolean): Promise<Principal | null> {
    if (!token.startsWith(PAT_PREFIX) || !PAT_SHAPE.test(token)) return null;
    const key = this.hash(token);
    const now = this.now();
    const revision = await this.syncCache();
    let entry = this.cache.get(key);
    if (!entry) {
      const evictions = this.evictions;
      const row = await this.repo.credential(key);
      if (!row) return null; // negative results are not cached
      entry = {
        id: row.id,
        userId: row.userId,
        login: row.login,
        scopes: parseStoredScopes(row.scopes),
        expiresAt: row.expiresAt,
      };
      // A revocation seen meanwhile by another request moved the revision: what was read then must not be cached.
      if (this.seenRevision === revision && this.evictions === evictions) this.cache.set(key, entry);
    }
    if (now >= entry.expiresAt || !this.loginAllowed(entry.login)) return null;
    if (touch) this.touch(entry.id, now);
    return { source: 'pat', userId: entry.userId, login: entry.login, scopes: entry.scopes };
  }

  private touch(id: string, now: number): void {
    const pending = this.unwrittenUses.get(id);
    this.unwrittenUses.set(id, Math.max(now, pending ?? now));
    if (pending === undefined) setImmediate(() => void this.writeUses(id));
  }

  /** Writes the PAT's latest use until no newer one arrived during the write. */
  private async writeUses(id: string): Promise<void> {
    for (;;) {
      const at = this.unwrittenUses.get(id);
      if (at === undefined) return;
      try {
        // Single column: `updated` is the record's edit time, not its use time.
        await this.repo.touch(id, at);
      } catch (err) {
        this.logger?.warn({ err }, 'could not record PAT use');
      }
      if (this.unwrittenUses.get(id) === at) this.unwrittenUses.delete(id);
    }
  }
}
