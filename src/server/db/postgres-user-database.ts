/**
 * The PostgreSQL adapter of the user-database port (CONTRACT §21, `SVC_DB_URL`): one `pg` pool shared by the
 * repositories (postgres-users.ts, postgres-pats.ts, …); the schema of postgres-migrations.ts applied at open under an
 * advisory lock, so instances starting together migrate once.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { assertSchemaKnown, type Migration } from './migrations.js';
import { PostgresDevices } from './postgres-devices.js';
import { PostgresMetadataCache } from './postgres-metadata-cache.js';
import { POSTGRES_MIGRATIONS } from './postgres-migrations.js';
import { PostgresPats } from './postgres-pats.js';
import { nulSafe } from './postgres-query.js';
import { PostgresRateCounters, PostgresTokenBuckets } from './postgres-rate-limits.js';
import { PostgresSuperusers } from './postgres-superusers.js';
import { PostgresUsers } from './postgres-users.js';
import type { UserDatabase } from './user-database.js';

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
  readonly users: PostgresUsers;
  readonly pats: PostgresPats;
  readonly devices: PostgresDevices;
  readonly superusers: PostgresSuperusers;
  readonly metadata: PostgresMetadataCache;
  readonly rateCounters: PostgresRateCounters;
  readonly buckets: PostgresTokenBuckets;
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
