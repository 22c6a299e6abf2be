/**
 * The test suite's choice of user database (CONTRACT §21). `PKS_TEST_USER_DB=postgres` (set by scripts/test-all.sh
 * for its second run of the route and identity files) gives every test server and auth harness a fresh PostgreSQL
 * database as `SVC_DB_URL`; otherwise they keep the embedded SQLite under their temp dir.
 */
import type { UserDatabase } from '../../src/server/db/user-database.js';
import { SqliteUserDatabase } from '../../src/server/db/sqlite-user-database.js';
import { PostgresUserDatabase } from '../../src/server/db/postgres-user-database.js';
import { createDatabase, runCluster } from './postgres.js';

export const TEST_USER_DB: 'sqlite' | 'postgres' =
  process.env['PKS_TEST_USER_DB'] === 'postgres' ? 'postgres' : 'sqlite';

/** One database per data directory: a harness reopened on the same directory finds the same database. */
const databases = new Map<string, Promise<string>>();

/** `{ SVC_DB_URL }` of a fresh database for the test directory `dir` on the PostgreSQL run; `{}` on SQLite's. */
export async function userDbEnv(dir: string): Promise<Record<string, string>> {
  if (TEST_USER_DB !== 'postgres') return {};
  let url = databases.get(dir);
  if (!url) {
    url = runCluster().then(createDatabase);
    databases.set(dir, url);
  }
  return { SVC_DB_URL: await url };
}

/**
 * Runs one statement written with `?` placeholders and SQLite's column names on either backend (tests that reach
 * behind the services); returns the rows (the PostgreSQL `user_id` column reads as `user`).
 */
export async function sql(db: UserDatabase, text: string, ...params: unknown[]): Promise<Record<string, unknown>[]> {
  if (db instanceof SqliteUserDatabase) {
    const stmt = db.handle.prepare(text);
    if (stmt.reader) return stmt.all(...params) as Record<string, unknown>[];
    stmt.run(...params);
    return [];
  }
  if (db instanceof PostgresUserDatabase) {
    let n = 0;
    const translated = text.replace(/\?/g, () => `$${++n}`);
    const { rows } = await db.pool.query(translated, params);
    return rows.map(({ user_id, ...rest }: Record<string, unknown>) =>
      user_id === undefined ? rest : { ...rest, user: user_id },
    );
  }
  throw new Error(`unknown user database ${db.backend}`);
}
