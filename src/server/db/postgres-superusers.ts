/** The PostgreSQL repository of superusers (CONTRACT §21): `superusers` rows, emails case-insensitive. */
import type { SuperuserRepository, SuperuserRow } from './user-database.js';
import type { Query } from './postgres-query.js';

const SUPERUSER_COLUMNS = `id, email, password_hash AS "passwordHash", token_key AS "tokenKey", created, updated`;

export class PostgresSuperusers implements SuperuserRepository {
  constructor(private readonly q: Query) {}

  async get(id: string): Promise<SuperuserRow | null> {
    return (
      (await this.q<SuperuserRow>(`SELECT ${SUPERUSER_COLUMNS} FROM superusers WHERE id = $1`, [id])).rows[0] ?? null
    );
  }

  async findByEmail(email: string): Promise<SuperuserRow | null> {
    return (
      (
        await this.q<SuperuserRow>(`SELECT ${SUPERUSER_COLUMNS} FROM superusers WHERE lower(email) = lower($1)`, [
          email,
        ])
      ).rows[0] ?? null
    );
  }

  async insert(r: SuperuserRow): Promise<void> {
    await this.q(
      `INSERT INTO superusers (id, email, password_hash, token_key, created, updated) VALUES ($1, $2, $3, $4, $5, $6)`,
      [r.id, r.email, r.passwordHash, r.tokenKey, r.created, r.updated],
    );
  }

  async setCredentials(id: string, passwordHash: string, tokenKey: string, updated: number): Promise<void> {
    await this.q('UPDATE superusers SET password_hash = $1, token_key = $2, updated = $3 WHERE id = $4', [
      passwordHash,
      tokenKey,
      updated,
      id,
    ]);
  }

  async deleteByEmail(email: string): Promise<boolean> {
    return ((await this.q('DELETE FROM superusers WHERE lower(email) = lower($1)', [email])).rowCount ?? 0) > 0;
  }
}
