import Database from 'better-sqlite3';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { assertSchemaKnown, MIGRATIONS, type Migration } from './migrations.js';

export type Db = Database.Database;

export const DB_FILE = 'pksd.db';
const BUSY_TIMEOUT_MS = 30_000;

/**
 * Opens (creating if needed) `<dir>/pksd.db`: WAL journal, 30 s busy timeout, foreign keys on, and every pending
 * migration applied (CONTRACT §1.4: `serve` and the admin commands share it concurrently).
 */
export function openDatabase(dir: string, migrations: readonly Migration[] = MIGRATIONS): Db {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const db = new Database(path.join(dir, DB_FILE), { timeout: BUSY_TIMEOUT_MS });
  try {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    migrate(db, migrations);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

/**
 * Applies the migrations newer than the recorded version; returns the versions applied. A database recording a
 * version this binary does not know is refused (`SchemaTooNewError`).
 */
export function migrate(db: Db, migrations: readonly Migration[] = MIGRATIONS): number[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`);
  assertSchemaKnown(schemaVersion(db), migrations);
  const applied: number[] = [];
  // IMMEDIATE: two processes opening a fresh database at once must not both migrate.
  const run = db.transaction((m: Migration) => {
    const done = db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?').get(m.version);
    if (done) return;
    db.exec(m.sql);
    db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
      m.version,
      m.name,
      new Date().toISOString(),
    );
    applied.push(m.version);
  });
  for (const m of [...migrations].sort((a, b) => a.version - b.version)) run.immediate(m);
  return applied;
}

export function schemaVersion(db: Db): number {
  const row = db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get() as { v: number | null };
  return row.v ?? 0;
}

/** The schema version of `<dir>/pksd.db` read without migrating it; `null` when there is no such file yet. */
export function peekSchemaVersion(dir: string): number | null {
  const file = path.join(dir, DB_FILE);
  if (!existsSync(file)) return null;
  const db = new Database(file, { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
  try {
    const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get();
    return table ? schemaVersion(db) : 0;
  } finally {
    db.close();
  }
}
