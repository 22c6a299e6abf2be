/**
 * The user-database port on both adapters (CONTRACT §21): the one contract suite on SQLite and on a real
 * PostgreSQL, then what is particular to each: migrations under PostgreSQL's advisory lock, and the "schema newer
 * than this pksd" guard on both.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { SchemaTooNewError } from '../../../src/server/db/migrations.js';
import { migratePostgres, PostgresUserDatabase } from '../../../src/server/db/postgres-user-database.js';
import { POSTGRES_MIGRATIONS } from '../../../src/server/db/postgres-migrations.js';
import { SqliteUserDatabase } from '../../../src/server/db/sqlite-user-database.js';
import type { UserDatabase } from '../../../src/server/db/user-database.js';
import { usePostgres } from '../../support/postgres.js';
import { userDatabaseContract } from './user-database-contract.js';

const postgres = usePostgres();
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});
const tempDir = async () => {
  const d = await mkdtemp(path.join(os.tmpdir(), 'pks-userdb-'));
  dirs.push(d);
  return d;
};

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

async function query(url: string, sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

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
    expect(rows.rows.map((r: { version: number }) => r.version)).toEqual([1, 2, 3]);
    // The lock is released: a later start opens at once.
    const db = await PostgresUserDatabase.open(url);
    expect(await db.schemaVersion()).toBe(3);
    await db.close();
  });

  it('a failing migration leaves no half-applied schema and no version', async () => {
    const url = await postgres.newDatabase();
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    try {
      const broken = [
        ...POSTGRES_MIGRATIONS,
        { version: 4, name: 'broken', sql: 'CREATE TABLE t4 (x int); SELECT nope' },
      ];
      await expect(migratePostgres(pool, broken)).rejects.toThrow(/nope/);
      const version = await pool.query('SELECT MAX(version) AS v FROM schema_migrations');
      expect(version.rows[0].v).toBe(3);
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
        { version: 4, name: 'dies', sql: 'SELECT pg_terminate_backend(pg_backend_pid())' },
      ];
      await expect(migratePostgres(pool, dying)).rejects.toThrow(/terminating connection/);
      const version = await pool.query('SELECT MAX(version) AS v FROM schema_migrations');
      expect(version.rows[0].v).toBe(3);
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
    await query(url, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (7, 'future', 'x')`);
    const opening = PostgresUserDatabase.open(url);
    await expect(opening).rejects.toBeInstanceOf(SchemaTooNewError);
    await expect(opening).rejects.toThrow('database schema 7 is newer than this pksd (3)');
  });

  it('the location never shows the password', async () => {
    const url = new URL(await postgres.newDatabase());
    url.password = 's3cret-pw';
    const db = await PostgresUserDatabase.open(url.toString());
    try {
      expect(db.location).not.toContain('s3cret-pw');
      expect(db.location).toContain('***');
    } finally {
      await db.close();
    }
  });

  it('the location never shows a password given as a query parameter', async () => {
    const url = new URL(await postgres.newDatabase());
    url.searchParams.set('password', 's3cret-pw');
    const db = await PostgresUserDatabase.open(url.toString());
    try {
      expect(db.location).not.toContain('s3cret-pw');
      expect(db.location).toContain('password=***');
    } finally {
      await db.close();
    }
  });
});

describe('SQLite migrations', () => {
  it('refuses a database migrated by a newer pksd (schema newer than this binary)', async () => {
    const dir = path.join(await tempDir(), 'pb_data');
    const db = new SqliteUserDatabase(dir);
    db.handle.prepare(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (5, 'future', 'x')`).run();
    await db.close();
    expect(() => new SqliteUserDatabase(dir)).toThrow(new SchemaTooNewError(5, 3));
    expect(() => new SqliteUserDatabase(dir)).toThrow('database schema 5 is newer than this pksd (3)');
  });
});
