/**
 * The user-database port on both adapters (CONTRACT §21): the one contract suite on SQLite and on a real
 * PostgreSQL, then what is particular to each: migrations under PostgreSQL's advisory lock, and the "schema newer
 * than this pksd" guard on both.
 */
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { SchemaTooNewError } from '../../../src/server/db/migrations.js';
import { migratePostgres, PostgresUserDatabase } from '../../../src/server/db/postgres-user-database.js';
import { POSTGRES_MIGRATIONS } from '../../../src/server/db/postgres-migrations.js';
import { SqliteUserDatabase } from '../../../src/server/db/sqlite-user-database.js';
import type { UserDatabase } from '../../../src/server/db/user-database.js';
import { query, usePostgres } from '../../support/postgres.js';
import { NEWEST_SCHEMA } from './newest-schema.js';
import { useTempDirs } from './support.js';
import { userDatabaseContract } from './user-database-contract.js';

const postgres = usePostgres();
const tempDir = useTempDirs('pks-userdb-');

userDatabaseContract('sqlite', {
  open: async () => new SqliteUserDatabase(path.join(await tempDir(), 'pb_data')),
  reopen: async (db) => new SqliteUserDatabase(path.dirname(db.location)),
});

const urls = new WeakMap<UserDatabase, string>();
userDatabaseContract('postgres', {
  open: async () => {
    const url = await postgres.newDatabase();
    const db = await PostgresUserDatabase.open(url);
    urls.set(db, url);
    return db;
  },
  reopen: async (db) => PostgresUserDatabase.open(urls.get(db)!),
});

describe('PostgreSQL migrations', () => {
  it('instances starting together migrate once, under the advisory lock', async () => {
    const url = await postgres.newDatabase();
    const pools = Array.from({ length: 4 }, () => new pg.Pool({ connectionString: url, max: 1 }));
    try {
      const applied = await Promise.all(pools.map((pool) => migratePostgres(pool)));
      // One of them applied every migration; the others found nothing left to do.
      expect(applied.filter((a) => a.length > 0)).toEqual([POSTGRES_MIGRATIONS.map((m) => m.version)]);
      expect(applied.filter((a) => a.length === 0)).toHaveLength(3);
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
    const rows = await query(url, 'SELECT version, name FROM schema_migrations ORDER BY version');
    expect(rows.rows.map((r: { version: number }) => r.version)).toEqual(POSTGRES_MIGRATIONS.map((m) => m.version));
    // The lock is released: a later start opens at once.
    const db = await PostgresUserDatabase.open(url);
    expect(await db.schemaVersion()).toBe(NEWEST_SCHEMA);
    await db.close();
  });

  it('a failing migration leaves no half-applied schema and no version', async () => {
    const url = await postgres.newDatabase();
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    try {
      const broken = [
        ...POSTGRES_MIGRATIONS,
        { version: NEWEST_SCHEMA + 1, name: 'broken', sql: 'CREATE TABLE t4 (x int); SELECT nope' },
      ];
      await expect(migratePostgres(pool, broken)).rejects.toThrow(/nope/);
      const version = await pool.query('SELECT MAX(version) AS v FROM schema_migrations');
      expect(version.rows[0].v).toBe(NEWEST_SCHEMA);
      const t4 = await pool.query(`SELECT to_regclass('t4') AS t`);
      expect(t4.rows[0].t).toBeNull();
    } finally {
      await pool.end();
    }
  });

  it("a migration whose connection dies reports its own error, not the failed unlock's; the pool recovers", async () => {
    const url = await postgres.newDatabase();
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    pool.on('error', () => undefined);
    try {
      const dying = [
        ...POSTGRES_MIGRATIONS,
        { version: NEWEST_SCHEMA + 1, name: 'dies', sql: 'SELECT pg_terminate_backend(pg_backend_pid())' },
      ];
      await expect(migratePostgres(pool, dying)).rejects.toThrow(/terminating connection/);
      const version = await pool.query('SELECT MAX(version) AS v FROM schema_migrations');
      expect(version.rows[0].v).toBe(NEWEST_SCHEMA);
    } finally {
      await pool.end();
    }
  });

  it('statements run under a statement timeout; the migrating connection is handed back with it', async () => {
    const db = await PostgresUserDatabase.open(await postgres.newDatabase());
    try {
      // One idle connection after opening: the one that migrated (with the timeout lifted for the lock wait).
      expect((await db.pool.query('SHOW statement_timeout')).rows[0].statement_timeout).toBe('10s');
    } finally {
      await db.close();
    }
  });

  it('refuses a database migrated by a newer pksd (schema newer than this binary)', async () => {
    const url = await postgres.newDatabase();
    await (await PostgresUserDatabase.open(url)).close();
    await query(
      url,
      `INSERT INTO schema_migrations (version, name, applied_at) VALUES (${NEWEST_SCHEMA + 1}, 'future', 'x')`,
    );
    const opening = PostgresUserDatabase.open(url);
    await expect(opening).rejects.toBeInstanceOf(SchemaTooNewError);
    await expect(opening).rejects.toThrow(
      `database schema ${NEWEST_SCHEMA + 1} is newer than this pksd (${NEWEST_SCHEMA})`,
    );
  });

  it.each([
    { given: 'in the URL', mask: '***', set: (url: URL) => (url.password = 's3cret-pw') },
    {
      given: 'as a query parameter',
      mask: 'password=***',
      set: (url: URL) => url.searchParams.set('password', 's3cret-pw'),
    },
  ])('the location never shows a password given $given', async ({ mask, set }) => {
    const url = new URL(await postgres.newDatabase());
    set(url);
    const db = await PostgresUserDatabase.open(url.toString());
    try {
      expect(db.location).not.toContain('s3cret-pw');
      expect(db.location).toContain(mask);
    } finally {
      await db.close();
    }
  });
});

describe('SQLite migrations', () => {
  it('refuses a database migrated by a newer pksd (schema newer than this binary)', async () => {
    const dir = path.join(await tempDir(), 'pb_data');
    const db = new SqliteUserDatabase(dir);
    db.handle
      .prepare(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (${NEWEST_SCHEMA + 1}, 'future', 'x')`)
      .run();
    await db.close();
    expect(() => new SqliteUserDatabase(dir)).toThrow(new SchemaTooNewError(NEWEST_SCHEMA + 1, NEWEST_SCHEMA));
    expect(() => new SqliteUserDatabase(dir)).toThrow(
      `database schema ${NEWEST_SCHEMA + 1} is newer than this pksd (${NEWEST_SCHEMA})`,
    );
  });
});
