/** The PostgreSQL repository of users (CONTRACT §7.2, §21): `users` rows, looked up case-insensitively. */
import type { UserRepository, UserRow } from './user-database.js';
import type { Query } from './postgres-query.js';

const USER_COLUMNS = `id, email, name, login, avatar, provider, provider_user_id AS "providerUserId",
  token_key AS "tokenKey", created, updated`;

export class PostgresUsers implements UserRepository {
  constructor(private readonly q: Query) {}

  async get(id: string): Promise<UserRow | null> {
    return (await this.q<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE id = $1`, [id])).rows[0] ?? null;
  }

  async upsert(f: UserRow): Promise<{ user: UserRow; isNew: boolean }> {
    const { rows } = await this.q<UserRow & { inserted: boolean }>(
      `INSERT INTO users (id, email, name, login, avatar, provider, provider_user_id, token_key, created, updated)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT (id) DO UPDATE SET email = excluded.email, name = excluded.name, login = excluded.login,
         avatar = excluded.avatar, updated = excluded.updated
       RETURNING ${USER_COLUMNS}, (xmax = 0) AS inserted`,
      [f.id, f.email, f.name, f.login, f.avatar, f.provider, f.providerUserId, f.tokenKey, f.created, f.updated],
    );
    const { inserted, ...user } = rows[0]!;
    return { user, isNew: inserted };
  }

  async findByLoginOrEmail(ref: string): Promise<UserRow[]> {
    return (
      await this.q<UserRow>(
        `SELECT ${USER_COLUMNS} FROM users WHERE lower(login) = lower($1) OR lower(email) = lower($1)
         ORDER BY created, id`,
        [ref],
      )
    ).rows;
  }

  async list(limit: number | null, offset: number): Promise<UserRow[]> {
    return (
      await this.q<UserRow>(`SELECT ${USER_COLUMNS} FROM users ORDER BY created, id LIMIT $1 OFFSET $2`, [
        limit,
        offset,
      ])
    ).rows;
  }

  async count(): Promise<number> {
    return (await this.q<{ n: number }>('SELECT COUNT(*)::int AS n FROM users')).rows[0]!.n;
  }

  async setTokenKey(id: string, tokenKey: string, updated: number): Promise<boolean> {
    return (
      ((await this.q('UPDATE users SET token_key = $1, updated = $2 WHERE id = $3', [tokenKey, updated, id]))
        .rowCount ?? 0) > 0
    );
  }

  async delete(id: string): Promise<boolean> {
    return ((await this.q('DELETE FROM users WHERE id = $1', [id])).rowCount ?? 0) > 0;
  }
}
