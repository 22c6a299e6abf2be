import type { Config } from '../config/types.js';
import { SchemaTooNewError } from '../db/migrations.js';
import { redactDbUrl } from '../db/postgres-user-database.js';
import { ExitError, type CommandIO } from './io.js';

/** Where the user database is, for messages: the PostgreSQL URL without its password, else the SQLite directory. */
export function databaseLocation(config: Pick<Config, 'dbUrl' | 'dbDataDir'>): string {
  return config.dbUrl === null ? `in ${config.dbDataDir}` : `at ${redactDbUrl(config.dbUrl)}`;
}

/**
 * Ends a command that could not open the user database: a schema migrated by a newer pksd exits 2 with the
 * contract's message (CONTRACT §21), anything else exits 1.
 */
export function exitOnDatabaseError(io: CommandIO, config: Pick<Config, 'dbUrl' | 'dbDataDir'>, err: unknown): never {
  if (err instanceof SchemaTooNewError) {
    io.stderr(`pksd: ${err.message}\n`);
    throw new ExitError(2);
  }
  io.stderr(`pksd: cannot open the user database ${databaseLocation(config)}: ${(err as Error).message}\n`);
  throw new ExitError(1);
}
