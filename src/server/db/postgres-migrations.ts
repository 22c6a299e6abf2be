/**
 * Versioned schema of the user database on PostgreSQL (CONTRACT §21). The version numbers are those of the SQLite
 * schema (migrations.ts), so `pksd db status` names one schema version whichever backend holds it; the tables are
 * PostgreSQL's own (BIGINT milliseconds, case-insensitive lookups through `lower()` indexes, `user_id` for SQLite's
 * `user` column, which PostgreSQL reserves); the tables both engines define alike are shared-ddl.ts's text in
 * PostgreSQL's types. Each migration runs once, in order, in a transaction, under an advisory lock
 * (postgres-user-database.ts). Never edit a released migration: append a new one.
 */
import type { Migration } from './migrations.js';
import * as ddl from './shared-ddl.js';

export const POSTGRES_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'users, PATs, device requests, superusers, the instance key',
    sql: `
      ${ddl.usersTable(ddl.POSTGRES_TYPES)}
      CREATE INDEX users_login ON users (lower(login));
      CREATE INDEX users_email ON users (lower(email));

      ${ddl.patTokensTable(ddl.POSTGRES_TYPES, { owner: 'user_id', seq: true })}

      ${ddl.deviceRequestsTable(ddl.POSTGRES_TYPES)}

      CREATE TABLE superusers (
        id            TEXT PRIMARY KEY,
        email         TEXT NOT NULL,
        password_hash TEXT NOT NULL,
        token_key     TEXT NOT NULL,
        created       BIGINT NOT NULL,
        updated       BIGINT NOT NULL
      );
      CREATE UNIQUE INDEX superusers_email ON superusers (lower(email));

      -- The instance secret every instance shares (SQLite keeps it in instance.key beside pksd.db).
      CREATE TABLE instance_key (
        id  INTEGER PRIMARY KEY CHECK (id = 1),
        key BYTEA NOT NULL CHECK (length(key) = 32)
      );

      -- Moves on every change that can revoke a cached PAT (what SQLite's data_version tells a connection).
      CREATE TABLE credential_revision (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        n  BIGINT NOT NULL
      );
      INSERT INTO credential_revision (id, n) VALUES (1, 0);
      CREATE FUNCTION bump_credential_revision() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE credential_revision SET n = n + 1 WHERE id = 1;
        RETURN NULL;
      END
      $$;
      CREATE TRIGGER pat_tokens_revision AFTER DELETE OR UPDATE OF token_hash, scopes, expires_at, user_id
        ON pat_tokens FOR EACH STATEMENT EXECUTE FUNCTION bump_credential_revision();
      CREATE TRIGGER users_revision AFTER DELETE OR UPDATE OF login, token_key
        ON users FOR EACH STATEMENT EXECUTE FUNCTION bump_credential_revision();
    `,
  },
  {
    version: 2,
    name: 'paper metadata cache (CONTRACT §18.1)',
    sql: ddl.paperMetadataMigration(ddl.POSTGRES_TYPES),
  },
  {
    version: 3,
    name: 'rate-limit windows (CONTRACT §7.7) and token buckets (§11.5)',
    sql: ddl.rateLimitMigration(ddl.POSTGRES_TYPES),
  },
  {
    version: 4,
    name: 'paper-access job leases (CONTRACT §21)',
    sql: `
      -- One row per canonical id: the instance running its paper-access job (SVC_INSTANCE_ID) and its lease (ms,
      -- renewed every 20 s, free 60 s after the last renewal), the job's latest §11.2 snapshot, and how it ended
      -- (job-lease-postgres.ts). After a failure lease_until is the cooldown's end: no instance restarts it before.
      CREATE TABLE job_leases (
        preprint_id TEXT PRIMARY KEY,
        kind        TEXT NOT NULL CHECK (kind IN ('pdf', 'markdown')),
        holder      TEXT NOT NULL,
        lease_until BIGINT NOT NULL,
        snapshot    JSONB NOT NULL,
        ended_at    BIGINT,
        failure     JSONB,
        updated_at  BIGINT NOT NULL
      );
      CREATE INDEX job_leases_updated ON job_leases (updated_at);
    `,
  },
  {
    version: 5,
    name: 'ingest tasks (CONTRACT §10.6) and parser claims (§5.1) shared by every instance (§21)',
    sql: `
      -- One row per task: the §10.2 document (JSON keeps its key order), its owner instance (SVC_INSTANCE_ID) and
      -- the owner's lease (ms), renewed while the task is unfinished; a task whose lease ran out lost its owner and
      -- becomes cancelled.
      CREATE TABLE ingest_tasks (
        task_id          TEXT PRIMARY KEY,
        status           TEXT NOT NULL,
        submitted_at     TEXT NOT NULL COLLATE "C",
        owner            TEXT NOT NULL,
        lease_expires_at BIGINT NOT NULL,
        doc              JSON NOT NULL
      );
      CREATE INDEX ingest_tasks_newest ON ingest_tasks (submitted_at DESC, task_id DESC);
      CREATE INDEX ingest_tasks_unfinished ON ingest_tasks (owner, lease_expires_at)
        WHERE status IN ('queued', 'running');

      -- One row per claimed paper (the §5.1 fields; times in ms).
      CREATE TABLE parser_claims (
        preprint_id TEXT PRIMARY KEY,
        key         TEXT NOT NULL,
        claim_id    TEXT NOT NULL,
        requester   TEXT NOT NULL,
        created_at  BIGINT NOT NULL,
        expires_at  BIGINT NOT NULL,
        ttl_seconds INTEGER NOT NULL
      );
      CREATE INDEX parser_claims_expires_at ON parser_claims (expires_at);
    `,
  },
  {
    version: 6,
    name: 'credential revocation notifications (CONTRACT §21)',
    sql: `
      -- Every move of the credential revision (the triggers of migration 1, pksd db copy) is notified on
      -- pks_credentials, delivered at commit: instances listening drop their PAT verify caches at once instead of
      -- reading the revision on every request (notifications-postgres.ts).
      CREATE FUNCTION notify_credential_revision() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('pks_credentials', NEW.n::text);
        RETURN NULL;
      END
      $$;
      CREATE TRIGGER credential_revision_notify AFTER UPDATE ON credential_revision
        FOR EACH ROW EXECUTE FUNCTION notify_credential_revision();
    `,
  },
  {
    version: 7,
    name: 'the last announced wiki commit (CONTRACT §21)',
    sql: `
      -- One row: the commit the latest wiki pull on any instance reached, written before it is notified on
      -- pks_wiki, so an instance whose listener was down compares its HEAD with it when it reconnects.
      CREATE TABLE wiki_announced (
        id           INTEGER PRIMARY KEY CHECK (id = 1),
        head         TEXT NOT NULL,
        announced_at BIGINT NOT NULL
      );
    `,
  },
];
