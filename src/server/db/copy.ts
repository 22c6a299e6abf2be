/**
 * `pksd db copy --from-sqlite <dir>` (CONTRACT §21): moves an embedded user database into PostgreSQL — users,
 * superusers, PATs, device requests, the metadata cache and the instance key (without which every copied PAT and
 * session would stop verifying). One transaction: the target holds all of it or none. Re-running the copy of the
 * same source (the target holds that source's instance key) updates the rows in place, so the copy is idempotent;
 * a target holding another deployment's data is refused unless `force` (which empties it first).
 */
import type pg from 'pg';
import { METADATA_COLUMNS } from '../papers/metadata/metadata-cache.js';
import type { Db } from './database.js';
import type { PostgresUserDatabase } from './postgres-user-database.js';
import { withClient } from './postgres-query.js';

/** A table as it moves: SQLite's columns, PostgreSQL's names for them, the conflict key. */
interface TableCopy {
  readonly table: string;
  readonly label: string;
  /** SQLite column → PostgreSQL column. */
  readonly columns: Readonly<Record<string, string>>;
  readonly key: string;
}

/** In dependency order: users before the rows that reference them. */
const TABLES: readonly TableCopy[] = [
  {
    table: 'users',
    label: 'users',
    key: 'id',
    columns: Object.fromEntries(
      ['id', 'email', 'name', 'login', 'avatar', 'provider', 'provider_user_id', 'token_key', 'created', 'updated'].map(
        (c) => [c, c],
      ),
    ),
  },
  {
    table: 'superusers',
    label: 'superusers',
    key: 'id',
    columns: Object.fromEntries(['id', 'email', 'password_hash', 'token_key', 'created', 'updated'].map((c) => [c, c])),
  },
  {
    table: 'pat_tokens',
    label: 'PATs',
    key: 'id',
    columns: {
      id: 'id',
      user: 'user_id',
      name: 'name',
      description: 'description',
      prefix: 'prefix',
      token_hash: 'token_hash',
      scopes: 'scopes',
      expires_at: 'expires_at',
      last_used_at: 'last_used_at',
      created: 'created',
      updated: 'updated',
    },
  },
  {
    table: 'device_requests',
    label: 'device requests',
    key: 'id',
    columns: Object.fromEntries(
      [
        'id',
        'device_code_hash',
        'user_code',
        'name',
        'description',
        'scopes',
        'expires_in_days',
        'status',
        'approved_by',
        'pat_id',
        'poll_count',
        'last_poll_at',
        'created',
        'expires_at',
      ].map((c) => [c, c]),
    ),
  },
  {
    table: 'paper_metadata',
    label: 'cached papers',
    key: 'preprint_id',
    columns: Object.fromEntries([...METADATA_COLUMNS.split(', '), 'fetched_at'].map((c) => [c, c])),
  },
];

const BATCH_ROWS = 500;

export class TargetNotEmptyError extends Error {}

export interface CopyReport {
  /** Rows copied per table label, in copy order. */
  readonly rows: ReadonlyArray<{ readonly label: string; readonly count: number }>;
  /** The target already held this source's data (a re-run), or nothing at all. */
  readonly rerun: boolean;
}

/** Rows of every copied table in the target, by label (only the non-empty ones). */
async function targetContents(client: pg.PoolClient): Promise<string[]> {
  const held: string[] = [];
  for (const t of TABLES) {
    const { rows } = await client.query<{ n: number }>(`SELECT COUNT(*)::int AS n FROM ${t.table}`);
    if (rows[0]!.n > 0) held.push(`${rows[0]!.n} ${t.label}`);
  }
  return held;
}

async function insertBatch(client: pg.PoolClient, t: TableCopy, rows: Record<string, unknown>[]): Promise<void> {
  const source = Object.keys(t.columns);
  const target = source.map((c) => t.columns[c]!);
  const params: unknown[] = [];
  const tuples = rows.map((row) => {
    const marks = source.map((c) => {
      params.push(row[c] ?? null);
      return `$${params.length}`;
    });
    return `(${marks.join(', ')})`;
  });
  const updates = target.filter((c) => c !== t.key).map((c) => `${c} = excluded.${c}`);
  await client.query(
    `INSERT INTO ${t.table} (${target.join(', ')}) VALUES ${tuples.join(', ')}
     ON CONFLICT (${t.key}) DO UPDATE SET ${updates.join(', ')}`,
    params,
  );
}

/**
 * Copies `source` (an opened, migrated SQLite user database) and its instance key into `target`. Throws
 * `TargetNotEmptyError` when the target holds another deployment's data and `force` is not set.
 */
export async function copySqliteToPostgres(
  source: Db,
  sourceKey: Buffer,
  target: PostgresUserDatabase,
  options: { force: boolean },
): Promise<CopyReport> {
  return withClient(target.pool, async (client) => {
    await client.query('BEGIN');
    try {
      // Two copies at once would interleave: the second waits for the first to commit.
      await client.query('LOCK TABLE instance_key IN EXCLUSIVE MODE');
      const key = (await client.query<{ key: Buffer }>('SELECT key FROM instance_key WHERE id = 1')).rows[0]?.key;
      const held = await targetContents(client);
      const sameSource = key !== undefined && key.equals(sourceKey);
      const empty = key === undefined && held.length === 0;
      if (!empty && !sameSource && !options.force) {
        throw new TargetNotEmptyError(
          `the target database already holds ${held.length > 0 ? held.join(', ') : 'an instance key'} of another ` +
            'deployment; pass --force to replace them',
        );
      }
      if (!empty && !sameSource) {
        await client.query(`TRUNCATE ${TABLES.map((t) => t.table).join(', ')}, instance_key`);
      }
      await client.query(
        'INSERT INTO instance_key (id, key) VALUES (1, $1) ON CONFLICT (id) DO UPDATE SET key = excluded.key',
        [sourceKey],
      );
      const counts: { label: string; count: number }[] = [];
      for (const t of TABLES) {
        const rows = source.prepare(`SELECT * FROM ${t.table}`).all() as Record<string, unknown>[];
        for (let i = 0; i < rows.length; i += BATCH_ROWS) await insertBatch(client, t, rows.slice(i, i + BATCH_ROWS));
        counts.push({ label: t.label, count: rows.length });
      }
      // Running instances empty their PAT caches: the credentials they knew may have changed.
      await client.query('UPDATE credential_revision SET n = n + 1 WHERE id = 1');
      await client.query('COMMIT');
      return { rows: counts, rerun: sameSource };
    } catch (err) {
      await client.query('ROLLBACK');
      throw err;
    }
  });
}
