/**
 * The PostgreSQL adapter of the user-database port (CONTRACT §21, `SVC_DB_URL`): one `pg` pool; the schema of
 * postgres-migrations.ts applied at open under an advisory lock, so instances starting together migrate once.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import {
  cachedPaperOf,
  METADATA_COLUMNS,
  type CachedPaper,
  type MetadataCache,
  type MetadataRow,
} from '../papers/metadata/metadata-cache.js';
import { assertSchemaKnown, type Migration } from './migrations.js';
import { POSTGRES_MIGRATIONS } from './postgres-migrations.js';
import { nulSafe, withClient, type Query } from './postgres-query.js';
import type {
  ConsumeOutcome,
  DeviceRepository,
  DeviceRow,
  DeviceStatus,
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

/** The advisory lock every pksd takes while it migrates (any constant shared by all versions of pksd). */
const MIGRATION_LOCK = 7_342_006_121;
const POOL_SIZE = 10;
/** A database that does not accept a connection in this time fails the request instead of hanging it. */
const CONNECT_TIMEOUT_MS = 10_000;
/** A statement (a lock wait included) running longer fails its request instead of holding a pooled client. */
const STATEMENT_TIMEOUT_MS = 10_000;
const INT8_OID = 20;

/** BIGINT columns hold milliseconds and counts well inside 2^53: read them as numbers, not strings. */
const TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === INT8_OID
      ? (v: string) => Number(v)
      : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

/** Query parameters that pg reads as secrets (a password may come in the query string instead of the user info). */
const SECRET_PARAMS = ['password', 'sslpassword'];

/** The URL without its passwords (logs, health, `pksd db status`, open errors). */
export function redactDbUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '***';
    for (const name of SECRET_PARAMS) if (u.searchParams.has(name)) u.searchParams.set(name, '***');
    return u.toString();
  } catch {
    return 'postgres://(unparsable URL)';
  }
}

const USER_COLUMNS = `id, email, name, login, avatar, provider, provider_user_id AS "providerUserId",
  token_key AS "tokenKey", created, updated`;
const PAT_COLUMNS = `id, user_id AS "userId", name, description, prefix, token_hash AS "tokenHash", scopes,
  expires_at AS "expiresAt", last_used_at AS "lastUsedAt", created, updated`;
const DEVICE_COLUMNS = `id, device_code_hash AS "deviceCodeHash", user_code AS "userCode", name, description, scopes,
  expires_in_days AS "expiresInDays", status, approved_by AS "approvedBy", pat_id AS "patId",
  poll_count AS "pollCount", last_poll_at AS "lastPollAt", created, expires_at AS "expiresAt"`;
const SUPERUSER_COLUMNS = `id, email, password_hash AS "passwordHash", token_key AS "tokenKey", created, updated`;

class PostgresUsers implements UserRepository {
  constructor(private readonly q: Query) {}

  async get(id: string): Promise<UserRow | null> {
    return (await this.q<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE id = $1`, [id])).rows[0] ?? null;
  }

  async upsert(f: UserRow): Promise<{ user: UserRow; isNew: boolean }> {
    const { rows } = await this.q<UserRow & { inserted: boolean }>(
      `INSERT INTO users (id, email, name, login, avatar, provider, provider_user_id, token_key, created, updated)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT (id) DO UPDATE SET email = excluded.email, name = excluded.name, login = excluded.login,
         avatar = excluded.avatar, updated = excluded.updated
       RETURNING ${USER_COLUMNS}, (xmax = 0) AS inserted`,
      [f.id, f.email, f.name, f.login, f.avatar, f.provider, f.providerUserId, f.tokenKey, f.created, f.updated],
    );
    const { inserted, ...user } = rows[0]!;
    return { user, isNew: inserted };
  }

  async findByLoginOrEmail(ref: string): Promise<UserRow[]> {
    return (
      await this.q<UserRow>(
        `SELECT ${USER_COLUMNS} FROM users WHERE lower(login) = lower($1) OR lower(email) = lower($1)
         ORDER BY created, id`,
        [ref],
      )
    ).rows;
  }

  async list(limit: number | null, offset: number): Promise<UserRow[]> {
    return (
      await this.q<UserRow>(`SELECT ${USER_COLUMNS} FROM users ORDER BY created, id LIMIT $1 OFFSET $2`, [
        limit,
        offset,
      ])
    ).rows;
  }

  async count(): Promise<number> {
    return (await this.q<{ n: number }>('SELECT COUNT(*)::int AS n FROM users')).rows[0]!.n;
  }

  async setTokenKey(id: string, tokenKey: string, updated: number): Promise<boolean> {
    return (
      ((await this.q('UPDATE users SET token_key = $1, updated = $2 WHERE id = $3', [tokenKey, updated, id]))
        .rowCount ?? 0) > 0
    );
  }

  async delete(id: string): Promise<boolean> {
    return ((await this.q('DELETE FROM users WHERE id = $1', [id])).rowCount ?? 0) > 0;
  }
}

const INSERT_PAT = `INSERT INTO pat_tokens (id, user_id, name, description, prefix, token_hash, scopes, expires_at,
    last_used_at, created, updated)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`;
const patParams = (r: PatRow): unknown[] => [
  r.id,
  r.userId,
  r.name,
  r.description,
  r.prefix,
  r.tokenHash,
  r.scopes,
  r.expiresAt,
  r.lastUsedAt,
  r.created,
  r.updated,
];

class PostgresPats implements PatRepository {
  constructor(private readonly q: Query) {}

  async insert(r: PatRow): Promise<void> {
    await this.q(INSERT_PAT, patParams(r));
  }

  async get(id: string): Promise<PatRow | null> {
    return (await this.q<PatRow>(`SELECT ${PAT_COLUMNS} FROM pat_tokens WHERE id = $1`, [id])).rows[0] ?? null;
  }

  async list(userId?: string): Promise<PatRow[]> {
    return userId === undefined
      ? (await this.q<PatRow>(`SELECT ${PAT_COLUMNS} FROM pat_tokens ORDER BY created DESC, seq DESC`)).rows
      : (
          await this.q<PatRow>(
            `SELECT ${PAT_COLUMNS} FROM pat_tokens WHERE user_id = $1 ORDER BY created DESC, seq DESC`,
            [userId],
          )
        ).rows;
  }

  async delete(id: string): Promise<PatRow | null> {
    return (
      (await this.q<PatRow>(`DELETE FROM pat_tokens WHERE id = $1 RETURNING ${PAT_COLUMNS}`, [id])).rows[0] ?? null
    );
  }

  async tokenHashesOf(userId: string): Promise<string[]> {
    return (
      await this.q<{ h: string }>('SELECT token_hash AS h FROM pat_tokens WHERE user_id = $1', [userId])
    ).rows.map((r) => r.h);
  }

  async credential(tokenHash: string): Promise<PatCredential | null> {
    return (
      (
        await this.q<PatCredential>(
          `SELECT p.id, p.user_id AS "userId", u.login, p.scopes, p.expires_at AS "expiresAt" FROM pat_tokens p
           JOIN users u ON u.id = p.user_id WHERE p.token_hash = $1`,
          [tokenHash],
        )
      ).rows[0] ?? null
    );
  }

  async touch(id: string, at: number): Promise<void> {
    await this.q('UPDATE pat_tokens SET last_used_at = $1 WHERE id = $2', [at, id]);
  }

  async revision(): Promise<unknown> {
    return (await this.q<{ n: number }>('SELECT n FROM credential_revision WHERE id = 1')).rows[0]?.n ?? null;
  }
}

class PostgresDevices implements DeviceRepository {
  constructor(
    private readonly q: Query,
    private readonly pool: pg.Pool,
  ) {}

  async pending(now: number): Promise<{ count: number; firstExpiry: number | null }> {
    const r = (
      await this.q<{ n: number; first: number | null }>(
        `SELECT COUNT(*)::int AS n, MIN(expires_at) AS first FROM device_requests
         WHERE expires_at > $1 AND status = 'pending'`,
        [now],
      )
    ).rows[0]!;
    return { count: r.n, firstExpiry: r.first };
  }

  async userCodeLive(userCode: string, now: number): Promise<boolean> {
    const { rowCount } = await this.q(
      `SELECT 1 FROM device_requests WHERE user_code = $1 AND status IN ('pending', 'approved') AND expires_at > $2`,
      [userCode, now],
    );
    return (rowCount ?? 0) > 0;
  }

  async insert(r: DeviceRow): Promise<void> {
    await this.q(
      `INSERT INTO device_requests (id, device_code_hash, user_code, name, description, scopes, expires_in_days,
         status, approved_by, pat_id, poll_count, last_poll_at, created, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
      [
        r.id,
        r.deviceCodeHash,
        r.userCode,
        r.name,
        r.description,
        r.scopes,
        r.expiresInDays,
        r.status,
        r.approvedBy,
        r.patId,
        r.pollCount,
        r.lastPollAt,
        r.created,
        r.expiresAt,
      ],
    );
  }

  async registerPoll(deviceCodeHash: string, now: number): Promise<DeviceRow | null> {
    // One statement: the row is locked, read as it was, and counted (unless consumed).
    const { rows } = await this.q<DeviceRow>(
      `WITH before AS (SELECT * FROM device_requests WHERE device_code_hash = $1 FOR UPDATE),
            counted AS (UPDATE device_requests d SET poll_count = before.poll_count + 1, last_poll_at = $2
                        FROM before WHERE d.id = before.id AND before.status <> 'consumed')
       SELECT ${DEVICE_COLUMNS} FROM before`,
      [deviceCodeHash, now],
    );
    return rows[0] ?? null;
  }

  async latestByUserCode(userCode: string): Promise<DeviceRow | null> {
    return (
      (
        await this.q<DeviceRow>(
          `SELECT ${DEVICE_COLUMNS} FROM device_requests WHERE user_code = $1 ORDER BY created DESC LIMIT 1`,
          [userCode],
        )
      ).rows[0] ?? null
    );
  }

  async setStatus(id: string, status: DeviceStatus, from?: DeviceStatus): Promise<boolean> {
    const res =
      from === undefined
        ? await this.q('UPDATE device_requests SET status = $1 WHERE id = $2', [status, id])
        : await this.q('UPDATE device_requests SET status = $1 WHERE id = $2 AND status = $3', [status, id, from]);
    return (res.rowCount ?? 0) > 0;
  }

  async approve(id: string, userId: string, name: string, scopes: string, expiresInDays: number): Promise<boolean> {
    const res = await this.q(
      `UPDATE device_requests SET status = 'approved', approved_by = $1, name = $2, scopes = $3, expires_in_days = $4
       WHERE id = $5 AND status = 'pending'`,
      [userId, name, scopes, expiresInDays, id],
    );
    return (res.rowCount ?? 0) > 0;
  }

  async deleteExpiredBefore(before: number): Promise<number> {
    return (await this.q('DELETE FROM device_requests WHERE expires_at < $1', [before])).rowCount ?? 0;
  }

  async consumeAndMint(id: string, pat: PatRow): Promise<ConsumeOutcome> {
    return withClient(this.pool, async (client) => {
      await client.query('BEGIN');
      try {
        // The user row first, then the request: the order a user deletion (its cascade) takes them in.
        const approver = await client.query('SELECT 1 FROM users WHERE id = $1 FOR KEY SHARE', [pat.userId]);
        const { rows } = await client.query<{ status: DeviceStatus; approvedBy: string | null }>(
          'SELECT status, approved_by AS "approvedBy" FROM device_requests WHERE id = $1 FOR UPDATE',
          [id],
        );
        let outcome: ConsumeOutcome;
        if (rows[0]?.status !== 'approved') outcome = 'not-approved';
        else if (rows[0].approvedBy !== pat.userId || approver.rowCount === 0) {
          await client.query(`UPDATE device_requests SET status = 'denied' WHERE id = $1`, [id]);
          outcome = 'approver-gone';
        } else {
          await client.query(INSERT_PAT, patParams(pat));
          await client.query(`UPDATE device_requests SET status = 'consumed', pat_id = $1 WHERE id = $2`, [pat.id, id]);
          outcome = 'minted';
        }
        await client.query('COMMIT');
        return outcome;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      }
    });
  }
}

class PostgresSuperusers implements SuperuserRepository {
  constructor(private readonly q: Query) {}

  async get(id: string): Promise<SuperuserRow | null> {
    return (
      (await this.q<SuperuserRow>(`SELECT ${SUPERUSER_COLUMNS} FROM superusers WHERE id = $1`, [id])).rows[0] ?? null
    );
  }

  async findByEmail(email: string): Promise<SuperuserRow | null> {
    return (
      (
        await this.q<SuperuserRow>(`SELECT ${SUPERUSER_COLUMNS} FROM superusers WHERE lower(email) = lower($1)`, [
          email,
        ])
      ).rows[0] ?? null
    );
  }

  async insert(r: SuperuserRow): Promise<void> {
    await this.q(
      `INSERT INTO superusers (id, email, password_hash, token_key, created, updated) VALUES ($1, $2, $3, $4, $5, $6)`,
      [r.id, r.email, r.passwordHash, r.tokenKey, r.created, r.updated],
    );
  }

  async setCredentials(id: string, passwordHash: string, tokenKey: string, updated: number): Promise<void> {
    await this.q('UPDATE superusers SET password_hash = $1, token_key = $2, updated = $3 WHERE id = $4', [
      passwordHash,
      tokenKey,
      updated,
      id,
    ]);
  }

  async deleteByEmail(email: string): Promise<boolean> {
    return ((await this.q('DELETE FROM superusers WHERE lower(email) = lower($1)', [email])).rowCount ?? 0) > 0;
  }
}

/**
 * Fixed windows as rows, counted by one upsert (the row lock orders concurrent instances). Rows of ended windows
 * are deleted at most once per window length by each instance.
 */
class PostgresRateCounters implements RateCounterRepository {
  private lastSweep = 0;
  constructor(private readonly q: Query) {}

  async count(rule: string, key: string, now: number, windowMs: number): Promise<RateWindow> {
    if (now - this.lastSweep >= windowMs) {
      this.lastSweep = now;
      await this.q('DELETE FROM rate_windows WHERE window_start <= $1', [now - windowMs]);
    }
    const { rows } = await this.q<RateWindow>(
      `INSERT INTO rate_windows (rule, key, window_start, hits) VALUES ($1, $2, $3, 1)
       ON CONFLICT (rule, key) DO UPDATE SET
         window_start = CASE WHEN $3 - rate_windows.window_start >= $4 THEN $3 ELSE rate_windows.window_start END,
         hits = CASE WHEN $3 - rate_windows.window_start >= $4 THEN 1 ELSE rate_windows.hits + 1 END
       RETURNING window_start AS start, hits AS count`,
      [rule, key, now, windowMs],
    );
    return rows[0]!;
  }

  async peek(rule: string, key: string, now: number, windowMs: number): Promise<RateWindow | null> {
    const { rows } = await this.q<RateWindow>(
      `SELECT window_start AS start, hits AS count FROM rate_windows
       WHERE rule = $1 AND key = $2 AND window_start > $3`,
      [rule, key, now - windowMs],
    );
    return rows[0] ?? null;
  }

  async refund(rule: string, key: string, now: number, windowMs: number): Promise<void> {
    await this.q(
      'UPDATE rate_windows SET hits = hits - 1 WHERE rule = $1 AND key = $2 AND window_start > $3 AND hits > 0',
      [rule, key, now - windowMs],
    );
  }
}

/** The bucket's tokens at `$4` (ms), refilled at `$2` tokens/s up to `$3` since its last take. */
const REFILLED = `LEAST($3::double precision,
  tokens + GREATEST(0, $4::bigint - updated_at)::double precision / 1000 * $2::double precision)`;

/**
 * One row per bucket. A take is one conditional UPDATE that computes the refill from the row it locks: two
 * instances taking at once are ordered by the row lock, and the second re-evaluates on the first one's result.
 */
class PostgresTokenBuckets implements TokenBucketRepository {
  private readonly created = new Set<string>();
  constructor(private readonly q: Query) {}

  async take(bucket: string, rate: number, capacity: number, now: number): Promise<number> {
    if (!this.created.has(bucket)) {
      await this.q('INSERT INTO token_buckets (name, tokens, updated_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [
        bucket,
        capacity,
        now,
      ]);
      this.created.add(bucket);
    }
    const params = [bucket, rate, capacity, now];
    const taken = await this.q(
      `UPDATE token_buckets SET tokens = ${REFILLED} - 1, updated_at = GREATEST(updated_at, $4::bigint)
       WHERE name = $1 AND ${REFILLED} >= 1`,
      params,
    );
    if (taken.rowCount === 1) return 0;
    const { rows } = await this.q<{ tokens: number }>(
      `SELECT ${REFILLED} AS tokens FROM token_buckets WHERE name = $1`,
      params,
    );
    return Math.max(1, Math.ceil(((1 - rows[0]!.tokens) / rate) * 1000));
  }

  async debit(bucket: string, tokens: number, rate: number, capacity: number, now: number): Promise<void> {
    await this.q(
      `UPDATE token_buckets SET tokens = ${REFILLED} - $5::double precision, updated_at = GREATEST(updated_at, $4::bigint)
       WHERE name = $1`,
      [bucket, rate, capacity, now, tokens],
    );
  }
}

class PostgresMetadataCache implements MetadataCache {
  constructor(private readonly q: Query) {}

  private async one(where: string, value: string): Promise<CachedPaper | null> {
    const row = (
      await this.q<MetadataRow>(
        `SELECT ${METADATA_COLUMNS} FROM paper_metadata WHERE ${where} = $1 ORDER BY preprint_id LIMIT 1`,
        [value],
      )
    ).rows[0];
    return row ? cachedPaperOf(row) : null;
  }

  get(preprintId: string): Promise<CachedPaper | null> {
    return this.one('preprint_id', preprintId);
  }

  findByDoi(doi: string): Promise<CachedPaper | null> {
    return this.one('doi', doi);
  }

  findByOpenAlexId(openalexId: string): Promise<CachedPaper | null> {
    return this.one('openalex_id', openalexId);
  }

  async put(paper: CachedPaper, fetchedAt: Date): Promise<void> {
    const m = paper.metadata;
    await this.q(
      `INSERT INTO paper_metadata (${METADATA_COLUMNS}, fetched_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT (preprint_id) DO UPDATE SET title = excluded.title, authors = excluded.authors,
         abstract = excluded.abstract, published = excluded.published, doi = excluded.doi,
         openalex_id = excluded.openalex_id, cited_by_count = excluded.cited_by_count, source = excluded.source,
         fetched_at = excluded.fetched_at`,
      [
        paper.preprintId,
        m.title,
        JSON.stringify(m.authors),
        m.abstract,
        m.published,
        m.doi,
        m.openalex_id,
        m.cited_by_count,
        m.source,
        fetchedAt.getTime(),
      ],
    );
  }
}

/** The highest applied migration, 0 for a database pksd never touched. */
async function appliedVersion(client: pg.PoolClient | pg.Pool): Promise<number> {
  const exists = await client.query<{ t: string | null }>(`SELECT to_regclass('schema_migrations')::text AS t`);
  if (exists.rows[0]?.t === null) return 0;
  return (await client.query<{ v: number | null }>('SELECT MAX(version) AS v FROM schema_migrations')).rows[0]?.v ?? 0;
}

/**
 * Applies the pending migrations under `pg_advisory_lock`: instances starting together wait for one another, and
 * the second finds nothing left to do. A database newer than `migrations` → `SchemaTooNewError`. Returns the
 * versions applied.
 */
export async function migratePostgres(
  pool: pg.Pool,
  migrations: readonly Migration[] = POSTGRES_MIGRATIONS,
): Promise<number[]> {
  const client = await pool.connect();
  // A connection lost meanwhile fails the pending query; its error event must not crash the process as well.
  const ignore = () => undefined;
  client.on('error', ignore);
  // A client whose unlock failed may still hold the lock: it is discarded, which ends its session and the lock.
  let broken: Error | undefined;
  const unlock = async () => {
    try {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
      await client.query('RESET statement_timeout');
    } catch (err) {
      broken = err instanceof Error ? err : new Error(String(err));
      throw err;
    }
  };
  try {
    // Waiting for another instance's migrations, and the migrations themselves, are not bounded by the statement
    // timeout of the pool's queries.
    await client.query('SET statement_timeout = 0');
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    let applied: number[];
    try {
      applied = await applyPending(client, migrations);
    } catch (err) {
      // The migration's own error is the one to report, not a failure to unlock after it.
      await unlock().catch(() => undefined);
      throw err;
    }
    await unlock();
    return applied;
  } finally {
    client.off('error', ignore);
    client.release(broken);
  }
}

async function applyPending(client: pg.PoolClient, migrations: readonly Migration[]): Promise<number[]> {
  await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`);
  const found = await appliedVersion(client);
  assertSchemaKnown(found, migrations);
  const applied: number[] = [];
  for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
    if (m.version <= found) continue;
    await client.query('BEGIN');
    try {
      await client.query(m.sql);
      await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
        m.version,
        m.name,
        new Date().toISOString(),
      ]);
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
    applied.push(m.version);
  }
  return applied;
}

export class PostgresUserDatabase implements UserDatabase {
  readonly backend = 'postgres' as const;
  readonly location: string;
  readonly users: UserRepository;
  readonly pats: PatRepository;
  readonly devices: DeviceRepository;
  readonly superusers: SuperuserRepository;
  readonly metadata: MetadataCache;
  readonly rateCounters: RateCounterRepository;
  readonly buckets: TokenBucketRepository;
  private closed = false;

  private constructor(
    readonly pool: pg.Pool,
    url: string,
  ) {
    this.location = redactDbUrl(url);
    const q = nulSafe(pool);
    this.users = new PostgresUsers(q);
    this.pats = new PostgresPats(q);
    this.devices = new PostgresDevices(q, pool);
    this.superusers = new PostgresSuperusers(q);
    this.metadata = new PostgresMetadataCache(q);
    this.rateCounters = new PostgresRateCounters(q);
    this.buckets = new PostgresTokenBuckets(q);
  }

  /** Connects to `url` and migrates the schema (`migrate: false`: as it is, for `pksd db status`). */
  static async open(url: string, options: { migrate?: boolean } = {}): Promise<PostgresUserDatabase> {
    const pool = new pg.Pool({
      connectionString: url,
      max: POOL_SIZE,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      statement_timeout: STATEMENT_TIMEOUT_MS,
      types: TYPES,
    });
    // An idle client losing its server (a restart) must not crash the process; the next query reconnects.
    pool.on('error', () => undefined);
    try {
      if (options.migrate !== false) await migratePostgres(pool);
      else await pool.query('SELECT 1');
    } catch (err) {
      await pool.end();
      throw err;
    }
    return new PostgresUserDatabase(pool, url);
  }

  async instanceKey(): Promise<Buffer> {
    await this.pool.query('INSERT INTO instance_key (id, key) VALUES (1, $1) ON CONFLICT (id) DO NOTHING', [
      randomBytes(32),
    ]);
    return (await this.pool.query<{ key: Buffer }>('SELECT key FROM instance_key WHERE id = 1')).rows[0]!.key;
  }

  schemaVersion(): Promise<number> {
    return appliedVersion(this.pool);
  }

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }
}
