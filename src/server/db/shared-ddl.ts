/**
 * The tables both user-database backends define alike (migrations.ts on SQLite, postgres-migrations.ts on
 * PostgreSQL): one text, spelled with each engine's column types, so the two schemas cannot drift apart. Released
 * migrations are built from these texts, so they are as frozen as the migrations: never edit one, write a new
 * migration instead (test/server/db/migrations-frozen.test.ts pins the bytes each engine runs). The continuation
 * lines keep the migrations' own indentation, so a fragment reads the same inside either template.
 */

/** The column types the two engines spell differently. */
export interface ColumnTypes {
  /** Epoch milliseconds and counts that can pass 2^31 (SQLite's INTEGER is 64-bit, PostgreSQL's is not). */
  readonly bigint: 'INTEGER' | 'BIGINT';
  readonly float: 'REAL' | 'DOUBLE PRECISION';
}

/** SQLite's INTEGER holds 64 bits; its REAL is a double. */
export const SQLITE_TYPES: ColumnTypes = { bigint: 'INTEGER', float: 'REAL' };

/** Milliseconds outgrow PostgreSQL's 32-bit INTEGER. */
export const POSTGRES_TYPES: ColumnTypes = { bigint: 'BIGINT', float: 'DOUBLE PRECISION' };

/** `users` without its indexes (the engines index case-insensitively in their own ways). Migration 1. */
export function usersTable(t: ColumnTypes): string {
  return `CREATE TABLE users (
        id               TEXT PRIMARY KEY,
        email            TEXT NOT NULL DEFAULT '',
        name             TEXT NOT NULL DEFAULT '',
        login            TEXT NOT NULL DEFAULT '',
        avatar           TEXT NOT NULL DEFAULT '',
        provider         TEXT NOT NULL,
        provider_user_id TEXT NOT NULL,
        token_key        TEXT NOT NULL,
        created          ${t.bigint} NOT NULL,
        updated          ${t.bigint} NOT NULL
      );`;
}

/** How `pat_tokens` differs between the engines. */
export interface PatTokensSpelling {
  /** The owner column: PostgreSQL reserves `user`, so it is `user_id` there. */
  readonly owner: 'user' | 'user_id';
  /** A leading identity column `seq` (PostgreSQL): a listing orders equal creation times by it, as SQLite's rowid. */
  readonly seq: boolean;
}

/** `pat_tokens` and its index. Migration 1. */
export function patTokensTable(t: ColumnTypes, spelling: PatTokensSpelling): string {
  const seq = spelling.seq ? '\n        seq          BIGINT GENERATED ALWAYS AS IDENTITY,' : '';
  return `CREATE TABLE pat_tokens (${seq}
        id           TEXT PRIMARY KEY,
        ${spelling.owner.padEnd(12)} TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        name         TEXT NOT NULL,
        description  TEXT NOT NULL DEFAULT '',
        prefix       TEXT NOT NULL,
        token_hash   TEXT NOT NULL UNIQUE,
        scopes       TEXT,
        expires_at   ${t.bigint} NOT NULL,
        last_used_at ${t.bigint},
        created      ${t.bigint} NOT NULL,
        updated      ${t.bigint} NOT NULL
      );
      CREATE INDEX pat_tokens_user ON pat_tokens (${spelling.owner}, created);`;
}

/** `device_requests` and its indexes. Migration 1. */
export function deviceRequestsTable(t: ColumnTypes): string {
  return `CREATE TABLE device_requests (
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
        last_poll_at     ${t.bigint},
        created          ${t.bigint} NOT NULL,
        expires_at       ${t.bigint} NOT NULL
      );
      CREATE INDEX device_requests_user_code ON device_requests (user_code, created);
      CREATE INDEX device_requests_expires ON device_requests (expires_at);`;
}

/** The whole of migration 2: the paper metadata cache (CONTRACT §18.1). */
export function paperMetadataMigration(t: ColumnTypes): string {
  return `
      CREATE TABLE paper_metadata (
        preprint_id    TEXT PRIMARY KEY,
        title          TEXT NOT NULL,
        authors        TEXT NOT NULL,
        abstract       TEXT NOT NULL,
        published      TEXT NOT NULL,
        doi            TEXT,
        openalex_id    TEXT,
        cited_by_count ${t.bigint},
        source         TEXT NOT NULL CHECK (source IN ('arxiv', 'openalex')),
        fetched_at     ${t.bigint} NOT NULL
      );
      CREATE INDEX paper_metadata_doi ON paper_metadata (doi);
      CREATE INDEX paper_metadata_openalex_id ON paper_metadata (openalex_id);
    `;
}

/** The whole of migration 3: rate-limit windows (CONTRACT §7.7) and token buckets (§11.5). */
export function rateLimitMigration(t: ColumnTypes): string {
  return `
      CREATE TABLE rate_windows (
        rule         TEXT NOT NULL,
        key          TEXT NOT NULL,
        window_start ${t.bigint} NOT NULL,
        hits         INTEGER NOT NULL,
        PRIMARY KEY (rule, key)
      );
      CREATE INDEX rate_windows_start ON rate_windows (window_start);

      CREATE TABLE token_buckets (
        name       TEXT PRIMARY KEY,
        tokens     ${t.float} NOT NULL,
        updated_at ${t.bigint} NOT NULL
      );
    `;
}
