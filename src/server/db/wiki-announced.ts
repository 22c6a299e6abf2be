/**
 * The commit the latest wiki pull on any instance reached (CONTRACT §21: a wiki pull on one instance brings every
 * instance to the same commit). A pull writes it here before announcing it on the `wiki` channel; an instance whose
 * listener was down while a pull was announced reads it when its listener is back, and pulls when its HEAD differs.
 *
 * PostgreSQL only (table `wiki_announced`, migration 7, one row): the embedded SQLite default is one instance, whose
 * notifications never leave the process and so are never missed.
 */
import type pg from 'pg';
import { PostgresUserDatabase } from './postgres-user-database.js';
import type { UserDatabase } from './user-database.js';

export interface AnnouncedWikiHead {
  /** Records `commit` (full hash) as the latest pulled, at `now` (ms). */
  record(commit: string, now: number): Promise<void>;
  /** The latest recorded commit, or `null` when no pull was announced yet. */
  latest(): Promise<string | null>;
}

class PostgresAnnouncedWikiHead implements AnnouncedWikiHead {
  constructor(private readonly pool: pg.Pool) {}

  async record(commit: string, now: number): Promise<void> {
    await this.pool.query(
      `INSERT INTO wiki_announced (id, head, announced_at) VALUES (1, $1, $2)
       ON CONFLICT (id) DO UPDATE SET head = excluded.head, announced_at = excluded.announced_at`,
      [commit, now],
    );
  }

  async latest(): Promise<string | null> {
    const { rows } = await this.pool.query<{ head: string }>('SELECT head FROM wiki_announced WHERE id = 1');
    return rows[0]?.head ?? null;
  }
}

/** The user database's record of the announced wiki commit: PostgreSQL's; `null` for the embedded SQLite one. */
export function announcedWikiHeadOf(db: UserDatabase): AnnouncedWikiHead | null {
  return db instanceof PostgresUserDatabase ? new PostgresAnnouncedWikiHead(db.pool) : null;
}
