/**
 * Versioned schema of the embedded user database (`pksd.db`; PostgreSQL's is postgres-migrations.ts, with the same
 * version numbers). Each migration runs once, in order, inside a
 * transaction, and is recorded in `schema_migrations`. Never edit a released migration: append a new one.
 */
/** The database was migrated by a newer pksd: this one must not touch it (CONTRACT §21, exit 2 at start). */
export class SchemaTooNewError extends Error {
  constructor(
    readonly found: number,
    readonly known: number,
  ) {
    super(`database schema ${found} is newer than this pksd (${known})`);
  }
}

/** Throws `SchemaTooNewError` when the database records a version beyond the newest of `migrations`. */
export function assertSchemaKnown(found: number, migrations: readonly Migration[]): void {
  const known = Math.max(0, ...migrations.map((m) => m.version));
  if (found > known) throw new SchemaTooNewError(found, known);
}

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'users, PATs, device requests, superusers',
    sql: `
      CREATE TABLE users (
        id               TEXT PRIMARY KEY,
        email            TEXT NOT NULL DEFAULT '',
        name             TEXT NOT NULL DEFAULT '',
        login            TEXT NOT NULL DEFAULT '',
        avatar           TEXT NOT NULL DEFAULT '',
        provider         TEXT NOT NULL,
        provider_user_id TEXT NOT NULL,
        token_key        TEXT NOT NULL,
        created          INTEGER NOT NULL,
        updated          INTEGER NOT NULL
      );
      CREATE INDEX users_login ON users (login COLLATE NOCASE);
      CREATE INDEX users_email ON users (email COLLATE NOCASE);

      CREATE TABLE pat_tokens (
        id           TEXT PRIMARY KEY,
        user         TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        name         TEXT NOT NULL,
        description  TEXT NOT NULL DEFAULT '',
        prefix       TEXT NOT NULL,
        token_hash   TEXT NOT NULL UNIQUE,
        scopes       TEXT,
        expires_at   INTEGER NOT NULL,
        last_used_at INTEGER,
        created      INTEGER NOT NULL,
        updated      INTEGER NOT NULL
      );
      CREATE INDEX pat_tokens_user ON pat_tokens (user, created);

      CREATE TABLE device_requests (
        id               TEXT PRIMARY KEY,
        device_code_hash TEXT NOT NULL UNIQUE,
        user_code        TEXT NOT NULL,
        name             TEXT NOT NULL,
        description      TEXT NOT NULL DEFAULT '',
        scopes           TEXT NOT NULL,
        expires_in_days  INTEGER NOT NULL,
        status           TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'denied', 'consumed', 'expired')),
        approved_by      TEXT REFERENCES users (id) ON DELETE SET NULL,
        pat_id           TEXT,
        poll_count       INTEGER NOT NULL DEFAULT 0,
        last_poll_at     INTEGER,
        created          INTEGER NOT NULL,
        expires_at       INTEGER NOT NULL
      );
      CREATE INDEX device_requests_user_code ON device_requests (user_code, created);
      CREATE INDEX device_requests_expires ON device_requests (expires_at);

      CREATE TABLE superusers (
        id            TEXT PRIMARY KEY,
        email         TEXT NOT NULL UNIQUE COLLATE NOCASE,
        password_hash TEXT NOT NULL,
        token_key     TEXT NOT NULL,
        created       INTEGER NOT NULL,
        updated       INTEGER NOT NULL
      );
    `,
  },
  {
    version: 2,
    name: 'paper metadata cache (CONTRACT §18.1)',
    sql: `
      CREATE TABLE paper_metadata (
        preprint_id    TEXT PRIMARY KEY,
        title          TEXT NOT NULL,
        authors        TEXT NOT NULL,
        abstract       TEXT NOT NULL,
        published      TEXT NOT NULL,
        doi            TEXT,
        openalex_id    TEXT,
        cited_by_count INTEGER,
        source         TEXT NOT NULL CHECK (source IN ('arxiv', 'openalex')),
        fetched_at     INTEGER NOT NULL
      );
      CREATE INDEX paper_metadata_doi ON paper_metadata (doi);
      CREATE INDEX paper_metadata_openalex_id ON paper_metadata (openalex_id);
    `,
  },
  {
    version: 3,
    name: 'rate-limit windows (CONTRACT §7.7) and token buckets (§11.5)',
    sql: `
      CREATE TABLE rate_windows (
        rule         TEXT NOT NULL,
        key          TEXT NOT NULL,
        window_start INTEGER NOT NULL,
        hits         INTEGER NOT NULL,
        PRIMARY KEY (rule, key)
      );
      CREATE INDEX rate_windows_start ON rate_windows (window_start);

      CREATE TABLE token_buckets (
        name       TEXT PRIMARY KEY,
        tokens     REAL NOT NULL,
        updated_at INTEGER NOT NULL
      );
    `,
  },
  {
    version: 4,
    name: 'paper-access job leases: PostgreSQL only (SQLite serves one instance; its jobs stay in memory, CONTRACT §21)',
    // Keeps the version numbers of the two backends in step (postgres-migrations.ts): nothing to create here.
    sql: '',
  },
  {
    version: 5,
    name: 'ingest tasks and parser claims: PostgreSQL only (the embedded server keeps them in files, CONTRACT §5.1, §10.6)',
    // Keeps the version numbers of the two backends in step (postgres-migrations.ts): nothing to create here.
    sql: '',
  },
  {
    version: 6,
    name: 'credential revocation notifications: PostgreSQL only (SQLite serves one instance, CONTRACT §21)',
    // Keeps the version numbers of the two backends in step (postgres-migrations.ts): nothing to create here.
    sql: '',
  },
  {
    version: 7,
    name: 'the last announced wiki commit: PostgreSQL only (SQLite serves one instance, CONTRACT §21)',
    // Keeps the version numbers of the two backends in step (postgres-migrations.ts): nothing to create here.
    sql: '',
  },
];
