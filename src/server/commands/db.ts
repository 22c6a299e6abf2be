import { Command } from 'commander';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config/types.js';
import { copySqliteToPostgres, TargetNotEmptyError } from '../db/copy.js';
import { DB_FILE, peekSchemaVersion } from '../db/database.js';
import { acquireServerLock, LockHeldError } from '../db/lock.js';
import { MIGRATIONS } from '../db/migrations.js';
import { PostgresUserDatabase, redactDbUrl } from '../db/postgres-user-database.js';
import { SqliteUserDatabase } from '../db/sqlite-user-database.js';
import { exitOnDatabaseError } from './db-errors.js';
import { ExitError, type CommandIO } from './io.js';
import { loadConfigOrExit } from './serve.js';
import { settingSubcommand } from './setting-flags.js';

/** The newest schema version this pksd knows (both backends share the numbering). */
const KNOWN_VERSION = Math.max(...MIGRATIONS.map((m) => m.version));

interface Status {
  readonly backend: 'sqlite' | 'postgres';
  readonly location: string;
  /** `null`: the SQLite file does not exist yet (created at the first start). */
  readonly schema_version: number | null;
  readonly pksd_schema_version: number;
  readonly state: 'absent' | 'current' | 'behind' | 'newer';
}

/** The schema version as stored, read without migrating (status must not change what it reports on). */
async function readStatus(config: Config): Promise<Status> {
  let backend: Status['backend'];
  let location: string;
  let version: number | null;
  if (config.dbUrl === null) {
    backend = 'sqlite';
    location = path.join(config.dbDataDir, DB_FILE);
    version = peekSchemaVersion(config.dbDataDir);
  } else {
    backend = 'postgres';
    location = redactDbUrl(config.dbUrl);
    const db = await PostgresUserDatabase.open(config.dbUrl, { migrate: false });
    try {
      version = await db.schemaVersion();
    } finally {
      await db.close();
    }
  }
  const state =
    version === null ? 'absent' : version > KNOWN_VERSION ? 'newer' : version < KNOWN_VERSION ? 'behind' : 'current';
  return { backend, location, schema_version: version, pksd_schema_version: KNOWN_VERSION, state };
}

const STATE_TEXT: Record<Status['state'], string> = {
  absent: 'not created yet (created at the first start)',
  current: 'current',
  behind: 'older; migrated at the next start',
  newer: 'newer than this pksd: upgrade pksd',
};

/** `pksd db status [--json]` and `pksd db copy --from-sqlite <dir> [--force]` (CONTRACT §21). */
export function dbCommand(io: CommandIO): Command {
  const cmd = new Command('db').description('the user database (SQLite, or PostgreSQL with SVC_DB_URL)');
  settingSubcommand(cmd, 'status')
    .description("print the user database's backend and schema version")
    .option('--json', 'one JSON object')
    .action(async (opts: { json?: boolean }, sub: Command) => {
      const config = loadConfigOrExit(io, sub);
      let status: Status;
      try {
        status = await readStatus(config);
      } catch (err) {
        exitOnDatabaseError(io, config, err);
      }
      if (opts.json) {
        io.stdout(JSON.stringify(status) + '\n');
        return;
      }
      io.stdout(
        `backend: ${status.backend}\n` +
          `location: ${status.location}\n` +
          `schema version: ${status.schema_version ?? '-'} (this pksd: ${status.pksd_schema_version}; ` +
          `${STATE_TEXT[status.state]})\n`,
      );
    });
  settingSubcommand(cmd, 'copy')
    .description('copy an embedded (SQLite) user database into the PostgreSQL database of SVC_DB_URL')
    .requiredOption('--from-sqlite <dir>', 'the pb_data directory holding pksd.db and instance.key')
    .option('--force', 'replace what the target holds when it is another deployment')
    .action(async (opts: { fromSqlite: string; force?: boolean }, sub: Command) => {
      const config = loadConfigOrExit(io, sub);
      if (config.dbUrl === null) {
        io.stderr('pksd: db copy: SVC_DB_URL is not set (the PostgreSQL database to copy into)\n');
        throw new ExitError(2);
      }
      const dir = path.resolve(io.base.cwd, opts.fromSqlite);
      if (!existsSync(path.join(dir, DB_FILE))) {
        io.stderr(`pksd: db copy: no ${DB_FILE} in ${dir}\n`);
        throw new ExitError(2);
      }
      let release: () => void;
      try {
        // A running server would change the source while it is read.
        release = acquireServerLock(dir);
      } catch (err) {
        if (!(err instanceof LockHeldError)) throw err;
        io.stderr(`${err.message}; stop it before copying\n`);
        throw new ExitError(1);
      }
      try {
        await copyFrom(io, config, config.dbUrl, dir, opts.force === true);
      } finally {
        release();
      }
    });
  return cmd;
}

async function copyFrom(io: CommandIO, config: Config, url: string, dir: string, force: boolean): Promise<void> {
  let source: SqliteUserDatabase;
  let target: PostgresUserDatabase;
  try {
    source = new SqliteUserDatabase(dir);
  } catch (err) {
    exitOnDatabaseError(io, { dbUrl: null, dbDataDir: dir }, err);
  }
  try {
    try {
      target = await PostgresUserDatabase.open(url);
    } catch (err) {
      exitOnDatabaseError(io, config, err);
    }
    try {
      const report = await copySqliteToPostgres(source.handle, await source.instanceKey(), target, { force });
      const counts = report.rows.map((r) => `${r.count} ${r.label}`).join(', ');
      io.stderr(
        `${report.rerun ? 'copied again (the target already held this database)' : 'copied'}: ${counts} and ` +
          `the instance key, from ${source.location} to ${target.location}\n`,
      );
    } catch (err) {
      if (err instanceof TargetNotEmptyError) {
        io.stderr(`pksd: db copy: ${err.message}\n`);
        throw new ExitError(1);
      }
      throw err;
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}
