/**
 * Versioned schema of the embedded user database (`pksd.db`; PostgreSQL's is postgres-migrations.ts, with the same
 * version numbers; the tables both engines define alike are shared-ddl.ts's text in SQLite's types). Each migration
 * runs once, in order, inside a transaction, and is recorded in `schema_migrations`. Never edit a released
 * migration: append a new one.
 */
import * as ddl from './shared-ddl.js';

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
      ${ddl.usersTable(ddl.SQLITE_TYPES)}
      CREATE INDEX users_login ON users (login COLLATE NOCASE);
      CREATE INDEX users_email ON users (email COLLATE NOCASE);

      ${ddl.patTokensTable(ddl.SQLITE_TYPES, { owner: 'user', seq: false })}

      ${ddl.deviceRequestsTable(ddl.SQLITE_TYPES)}

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
    sql: ddl.paperMetadataMigration(ddl.SQLITE_TYPES),
  },
  {
    version: 3,
    name: 'rate-limit windows (CONTRACT §7.7) and token buckets (§11.5)',
    sql: ddl.rateLimitMigration(ddl.SQLITE_TYPES),
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
