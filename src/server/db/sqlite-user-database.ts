/**
 * The SQLite adapter of the user-database port (the embedded default): `<SVC_DB_DATA_DIR>/pksd.db` through
 * better-sqlite3 (synchronous; each method is one statement or one immediate transaction) and the instance key in
 * `<SVC_DB_DATA_DIR>/instance.key`.
 */
import path from 'node:path';
import type { DeviceStatus } from '../../shared/api/device.js';
import { SqliteMetadataCache } from '../papers/metadata/metadata-cache.js';
import { DB_FILE, openDatabase, schemaVersion, type Db } from './database.js';
import { loadOrCreateInstanceKey } from './instance-key.js';
import type {
  ConsumeOutcome,
  DeviceRepository,
  DeviceRow,
  PatCredential,
  PatRepository,
  PatRow,
  RateCounterRepository,
  RateWindow,
  SuperuserRepository,
  SuperuserRow,
  TokenBucketRepository,
  UserDatabase,
  UserRepository,
  UserRow,
} from './user-database.js';

const USER_COLUMNS = `id, email, name, login, avatar, provider, provider_user_id AS providerUserId,
  token_key AS tokenKey, created, updated`;
const PAT_COLUMNS = `id, user AS userId, name, description, prefix, token_hash AS tokenHash, scopes,
  expires_at AS expiresAt, last_used_at AS lastUsedAt, created, updated`;
const DEVICE_COLUMNS = `id, device_code_hash AS deviceCodeHash, user_code AS userCode, name, description, scopes,
  expires_in_days AS expiresInDays, status, approved_by AS approvedBy, pat_id AS patId, poll_count AS pollCount,
  last_poll_at AS lastPollAt, created, expires_at AS expiresAt`;
const SUPERUSER_COLUMNS = `id, email, password_hash AS passwordHash, token_key AS tokenKey, created, updated`;

class SqliteUsers implements UserRepository {
  constructor(private readonly db: Db) {}

  async get(id: string): Promise<UserRow | null> {
    return (this.db.prepare(`SELECT ${USER_COLUMNS} FROM users WHERE id = ?`).get(id) as UserRow | undefined) ?? null;
  }

  async upsert(fresh: UserRow): Promise<{ user: UserRow; isNew: boolean }> {
    return this.db.transaction(() => {
      const updated = this.db
        .prepare('UPDATE users SET email = ?, name = ?, login = ?, avatar = ?, updated = ? WHERE id = ?')
        .run(fresh.email, fresh.name, fresh.login, fresh.avatar, fresh.updated, fresh.id).changes;
      if (updated === 0) {
        this.db
          .prepare(
            `INSERT INTO users (id, email, name, login, avatar, provider, provider_user_id, token_key, created, updated)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          )
          .run(
            fresh.id,
            fresh.email,
            fresh.name,
            fresh.login,
            fresh.avatar,
            fresh.provider,
            fresh.providerUserId,
            fresh.tokenKey,
            fresh.created,
            fresh.updated,
          );
      }
      const user = this.db.prepare(`SELECT ${USER_COLUMNS} FROM users WHERE id = ?`).get(fresh.id) as UserRow;
      return { user, isNew: updated === 0 };
    })();
  }

  async findByLoginOrEmail(ref: string): Promise<UserRow[]> {
    return this.db
      .prepare(
        `SELECT ${USER_COLUMNS} FROM users WHERE login = ? COLLATE NOCASE OR email = ? COLLATE NOCASE ORDER BY created`,
      )
      .all(ref, ref) as UserRow[];
  }

  async list(limit: number | null, offset: number): Promise<UserRow[]> {
    return this.db
      .prepare(`SELECT ${USER_COLUMNS} FROM users ORDER BY created, id LIMIT ? OFFSET ?`)
      .all(limit ?? -1, offset) as UserRow[];
  }

  async count(): Promise<number> {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM users').get() as { n: number }).n;
  }

  async setTokenKey(id: string, tokenKey: string, updated: number): Promise<boolean> {
    return (
      this.db.prepare('UPDATE users SET token_key = ?, updated = ? WHERE id = ?').run(tokenKey, updated, id).changes > 0
    );
  }

  async delete(id: string): Promise<boolean> {
    return this.db.prepare('DELETE FROM users WHERE id = ?').run(id).changes > 0;
  }
}

function insertPat(db: Db, row: PatRow): void {
  db.prepare(
    `INSERT INTO pat_tokens (id, user, name, description, prefix, token_hash, scopes, expires_at, last_used_at, created, updated)
     VALUES (@id, @userId, @name, @description, @prefix, @tokenHash, @scopes, @expiresAt, @lastUsedAt, @created, @updated)`,
  ).run(row);
}

class SqlitePats implements PatRepository {
  private readonly dataVersion: { get(): unknown };

  constructor(private readonly db: Db) {
    this.dataVersion = db.prepare('PRAGMA data_version').pluck();
  }

  async insert(row: PatRow): Promise<void> {
    insertPat(this.db, row);
  }

  async get(id: string): Promise<PatRow | null> {
    return (
      (this.db.prepare(`SELECT ${PAT_COLUMNS} FROM pat_tokens WHERE id = ?`).get(id) as PatRow | undefined) ?? null
    );
  }

  async list(userId?: string): Promise<PatRow[]> {
    return (
      userId === undefined
        ? this.db.prepare(`SELECT ${PAT_COLUMNS} FROM pat_tokens ORDER BY created DESC, rowid DESC`).all()
        : this.db
            .prepare(`SELECT ${PAT_COLUMNS} FROM pat_tokens WHERE user = ? ORDER BY created DESC, rowid DESC`)
            .all(userId)
    ) as PatRow[];
  }

  async delete(id: string): Promise<PatRow | null> {
    return (
      (this.db.prepare(`DELETE FROM pat_tokens WHERE id = ? RETURNING ${PAT_COLUMNS}`).get(id) as PatRow | undefined) ??
      null
    );
  }

  async tokenHashesOf(userId: string): Promise<string[]> {
    return this.db.prepare('SELECT token_hash FROM pat_tokens WHERE user = ?').pluck().all(userId) as string[];
  }

  async credential(tokenHash: string): Promise<PatCredential | null> {
    const row = this.db
      .prepare(
        `SELECT p.id, p.user AS userId, u.login, p.scopes, p.expires_at AS expiresAt FROM pat_tokens p
         JOIN users u ON u.id = p.user WHERE p.token_hash = ?`,
      )
      .get(tokenHash) as PatCredential | undefined;
    return row ?? null;
  }

  async touch(id: string, at: number): Promise<void> {
    this.db.prepare('UPDATE pat_tokens SET last_used_at = ? WHERE id = ?').run(at, id);
  }

  /** SQLite's `data_version`: moves on every commit of another connection (another process, `pksd pat revoke`). */
  async revision(): Promise<unknown> {
    return this.dataVersion.get();
  }
}

class SqliteDevices implements DeviceRepository {
  constructor(private readonly db: Db) {}

  private row(where: string, ...params: unknown[]): DeviceRow | null {
    return (
      (this.db.prepare(`SELECT ${DEVICE_COLUMNS} FROM device_requests WHERE ${where}`).get(...params) as
        DeviceRow | undefined) ?? null
    );
  }

  async pending(now: number): Promise<{ count: number; firstExpiry: number | null }> {
    const r = this.db
      .prepare(
        `SELECT COUNT(*) AS n, MIN(expires_at) AS first FROM device_requests WHERE expires_at > ? AND status = 'pending'`,
      )
      .get(now) as { n: number; first: number | null };
    return { count: r.n, firstExpiry: r.first };
  }

  async userCodeLive(userCode: string, now: number): Promise<boolean> {
    return (
      this.db
        .prepare(
          `SELECT 1 FROM device_requests WHERE user_code = ? AND status IN ('pending', 'approved') AND expires_at > ?`,
        )
        .get(userCode, now) !== undefined
    );
  }

  async insert(r: DeviceRow): Promise<void> {
    this.db
      .prepare(
        `INSERT INTO device_requests (id, device_code_hash, user_code, name, description, scopes, expires_in_days,
           status, approved_by, pat_id, poll_count, last_poll_at, created, expires_at)
         VALUES (@id, @deviceCodeHash, @userCode, @name, @description, @scopes, @expiresInDays, @status, @approvedBy,
           @patId, @pollCount, @lastPollAt, @created, @expiresAt)`,
      )
      .run(r);
  }

  async registerPoll(deviceCodeHash: string, now: number): Promise<DeviceRow | null> {
    return this.db
      .transaction(() => {
        const before = this.row('device_code_hash = ?', deviceCodeHash);
        if (before && before.status !== 'consumed') {
          this.db
            .prepare('UPDATE device_requests SET poll_count = poll_count + 1, last_poll_at = ? WHERE id = ?')
            .run(now, before.id);
        }
        return before;
      })
      .immediate();
  }

  async latestByUserCode(userCode: string): Promise<DeviceRow | null> {
    return this.row('user_code = ? ORDER BY created DESC LIMIT 1', userCode);
  }

  async setStatus(id: string, status: DeviceStatus, from?: DeviceStatus): Promise<boolean> {
    const run =
      from === undefined
        ? this.db.prepare('UPDATE device_requests SET status = ? WHERE id = ?').run(status, id)
        : this.db.prepare('UPDATE device_requests SET status = ? WHERE id = ? AND status = ?').run(status, id, from);
    return run.changes > 0;
  }

  async approve(id: string, userId: string, name: string, scopes: string, expiresInDays: number): Promise<boolean> {
    return (
      this.db
        .prepare(
          `UPDATE device_requests SET status = 'approved', approved_by = ?, name = ?, scopes = ?, expires_in_days = ?
           WHERE id = ? AND status = 'pending'`,
        )
        .run(userId, name, scopes, expiresInDays, id).changes > 0
    );
  }

  async deleteExpiredBefore(before: number): Promise<number> {
    return this.db.prepare('DELETE FROM device_requests WHERE expires_at < ?').run(before).changes;
  }

  async consumeAndMint(id: string, pat: PatRow): Promise<ConsumeOutcome> {
    return this.db
      .transaction((): ConsumeOutcome => {
        const row = this.row('id = ?', id);
        if (row?.status !== 'approved') return 'not-approved';
        const approver = this.db.prepare('SELECT 1 FROM users WHERE id = ?').get(pat.userId);
        if (row.approvedBy !== pat.userId || approver === undefined) {
          this.db.prepare(`UPDATE device_requests SET status = 'denied' WHERE id = ?`).run(id);
          return 'approver-gone';
        }
        insertPat(this.db, pat);
        this.db.prepare(`UPDATE device_requests SET status = 'consumed', pat_id = ? WHERE id = ?`).run(pat.id, id);
        return 'minted';
      })
      .immediate();
  }
}

class SqliteSuperusers implements SuperuserRepository {
  constructor(private readonly db: Db) {}

  async get(id: string): Promise<SuperuserRow | null> {
    return (
      (this.db.prepare(`SELECT ${SUPERUSER_COLUMNS} FROM superusers WHERE id = ?`).get(id) as
        SuperuserRow | undefined) ?? null
    );
  }

  async findByEmail(email: string): Promise<SuperuserRow | null> {
    // The column is declared COLLATE NOCASE.
    return (
      (this.db.prepare(`SELECT ${SUPERUSER_COLUMNS} FROM superusers WHERE email = ?`).get(email) as
        SuperuserRow | undefined) ?? null
    );
  }

  async insert(r: SuperuserRow): Promise<void> {
    this.db
      .prepare(
        `INSERT INTO superusers (id, email, password_hash, token_key, created, updated)
         VALUES (@id, @email, @passwordHash, @tokenKey, @created, @updated)`,
      )
      .run(r);
  }

  async setCredentials(id: string, passwordHash: string, tokenKey: string, updated: number): Promise<void> {
    this.db
      .prepare('UPDATE superusers SET password_hash = ?, token_key = ?, updated = ? WHERE id = ?')
      .run(passwordHash, tokenKey, updated, id);
  }

  async deleteByEmail(email: string): Promise<boolean> {
    return this.db.prepare('DELETE FROM superusers WHERE email = ?').run(email).changes > 0;
  }
}

/** Fixed windows as rows, counted by one upsert; rows of ended windows deleted at most once per window length. */
class SqliteRateCounters implements RateCounterRepository {
  private lastSweep = 0;
  constructor(private readonly db: Db) {}

  async count(rule: string, key: string, now: number, windowMs: number): Promise<RateWindow> {
    if (now - this.lastSweep >= windowMs) {
      this.lastSweep = now;
      this.db.prepare('DELETE FROM rate_windows WHERE window_start <= ?').run(now - windowMs);
    }
    return this.db
      .prepare(
        `INSERT INTO rate_windows (rule, key, window_start, hits) VALUES (@rule, @key, @now, 1)
         ON CONFLICT (rule, key) DO UPDATE SET
           window_start = CASE WHEN @now - window_start >= @windowMs THEN @now ELSE window_start END,
           hits = CASE WHEN @now - window_start >= @windowMs THEN 1 ELSE hits + 1 END
         RETURNING window_start AS start, hits AS count`,
      )
      .get({ rule, key, now, windowMs }) as RateWindow;
  }

  async peek(rule: string, key: string, now: number, windowMs: number): Promise<RateWindow | null> {
    const row = this.db
      .prepare(
        'SELECT window_start AS start, hits AS count FROM rate_windows WHERE rule = ? AND key = ? AND window_start > ?',
      )
      .get(rule, key, now - windowMs) as RateWindow | undefined;
    return row ?? null;
  }

  async refund(rule: string, key: string, now: number, windowMs: number): Promise<void> {
    this.db
      .prepare('UPDATE rate_windows SET hits = hits - 1 WHERE rule = ? AND key = ? AND window_start > ? AND hits > 0')
      .run(rule, key, now - windowMs);
  }
}

/** The bucket's tokens at `@now` (ms), refilled at `@rate` tokens/s up to `@capacity` since its last take. */
const REFILLED = 'MIN(@capacity, tokens + MAX(0, @now - updated_at) / 1000.0 * @rate)';

/** One row per bucket; a take is one conditional UPDATE computing the refill (as on PostgreSQL). */
class SqliteTokenBuckets implements TokenBucketRepository {
  constructor(private readonly db: Db) {}

  async take(bucket: string, rate: number, capacity: number, now: number): Promise<number> {
    const params = { bucket, rate, capacity, now };
    this.db
      .prepare(
        'INSERT INTO token_buckets (name, tokens, updated_at) VALUES (@bucket, @capacity, @now) ON CONFLICT DO NOTHING',
      )
      .run(params);
    const taken = this.db
      .prepare(
        `UPDATE token_buckets SET tokens = ${REFILLED} - 1, updated_at = MAX(updated_at, @now)
         WHERE name = @bucket AND ${REFILLED} >= 1`,
      )
      .run(params);
    if (taken.changes === 1) return 0;
    const row = this.db.prepare(`SELECT ${REFILLED} AS tokens FROM token_buckets WHERE name = @bucket`).get(params) as {
      tokens: number;
    };
    return Math.max(1, Math.ceil(((1 - row.tokens) / rate) * 1000));
  }

  async debit(bucket: string, tokens: number, rate: number, capacity: number, now: number): Promise<void> {
    this.db
      .prepare(
        `UPDATE token_buckets SET tokens = ${REFILLED} - @tokens, updated_at = MAX(updated_at, @now) WHERE name = @bucket`,
      )
      .run({ bucket, rate, capacity, now, tokens });
  }
}

export class SqliteUserDatabase implements UserDatabase {
  readonly backend = 'sqlite' as const;
  readonly location: string;
  readonly users: UserRepository;
  readonly pats: PatRepository;
  readonly devices: DeviceRepository;
  readonly superusers: SuperuserRepository;
  readonly metadata: SqliteMetadataCache;
  readonly rateCounters: RateCounterRepository;
  readonly buckets: TokenBucketRepository;

  /** The better-sqlite3 handle (`pksd db copy` reads it; tests inspect rows through it). */
  readonly handle: Db;
  private closed = false;

  constructor(private readonly dir: string) {
    this.handle = openDatabase(dir);
    this.location = path.join(dir, DB_FILE);
    this.users = new SqliteUsers(this.handle);
    this.pats = new SqlitePats(this.handle);
    this.devices = new SqliteDevices(this.handle);
    this.superusers = new SqliteSuperusers(this.handle);
    this.metadata = new SqliteMetadataCache(this.handle);
    this.rateCounters = new SqliteRateCounters(this.handle);
    this.buckets = new SqliteTokenBuckets(this.handle);
  }

  async instanceKey(): Promise<Buffer> {
    return loadOrCreateInstanceKey(this.dir);
  }

  async schemaVersion(): Promise<number> {
    return schemaVersion(this.handle);
  }

  async ping(): Promise<void> {
    this.handle.prepare('SELECT 1').get();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.handle.close();
  }
}
