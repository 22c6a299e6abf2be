/**
 * Opens the user database the settings name (CONTRACT §21): PostgreSQL at `SVC_DB_URL` when it is set, else the
 * embedded SQLite file under `SVC_DB_DATA_DIR`. Either way the schema is migrated first; a database migrated by a
 * newer pksd is refused with `SchemaTooNewError`.
 */
import type { Config } from '../config/types.js';
import { PostgresUserDatabase } from './postgres-user-database.js';
import { SqliteUserDatabase } from './sqlite-user-database.js';
import type { UserDatabase } from './user-database.js';

export async function openUserDatabase(config: Pick<Config, 'dbUrl' | 'dbDataDir'>): Promise<UserDatabase> {
  return config.dbUrl === null ? new SqliteUserDatabase(config.dbDataDir) : PostgresUserDatabase.open(config.dbUrl);
}
