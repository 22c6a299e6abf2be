/** The PostgreSQL repository of PATs (CONTRACT §7.3, §21): `pat_tokens` rows, newest first (equal times by `seq`). */
import type { PatCredential, PatRepository, PatRow } from './user-database.js';
import type { Query } from './postgres-query.js';

const PAT_COLUMNS = `id, user_id AS "userId", name, description, prefix, token_hash AS "tokenHash", scopes,
  expires_at AS "expiresAt", last_used_at AS "lastUsedAt", created, updated`;

/** A PAT's insert (also the device flow's hand-out, postgres-devices.ts). */
export const INSERT_PAT = `INSERT INTO pat_tokens (id, user_id, name, description, prefix, token_hash, scopes, expires_at,
    last_used_at, created, updated)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`;
export const patParams = (r: PatRow): unknown[] => [
  r.id,
  r.userId,
  r.name,
  r.description,
  r.prefix,
  r.tokenHash,
  r.scopes,
  r.expiresAt,
  r.lastUsedAt,
  r.created,
  r.updated,
];

export class PostgresPats implements PatRepository {
  constructor(private readonly q: Query) {}

  async insert(r: PatRow): Promise<void> {
    await this.q(INSERT_PAT, patParams(r));
  }

  async get(id: string): Promise<PatRow | null> {
    return (await this.q<PatRow>(`SELECT ${PAT_COLUMNS} FROM pat_tokens WHERE id = $1`, [id])).rows[0] ?? null;
  }

  async list(userId?: string): Promise<PatRow[]> {
    return userId === undefined
      ? (await this.q<PatRow>(`SELECT ${PAT_COLUMNS} FROM pat_tokens ORDER BY created DESC, seq DESC`)).rows
      : (
          await this.q<PatRow>(
            `SELECT ${PAT_COLUMNS} FROM pat_tokens WHERE user_id = $1 ORDER BY created DESC, seq DESC`,
            [userId],
          )
        ).rows;
  }

  async delete(id: string): Promise<PatRow | null> {
    return (
      (await this.q<PatRow>(`DELETE FROM pat_tokens WHERE id = $1 RETURNING ${PAT_COLUMNS}`, [id])).rows[0] ?? null
    );
  }

  async tokenHashesOf(userId: string): Promise<string[]> {
    return (
      await this.q<{ h: string }>('SELECT token_hash AS h FROM pat_tokens WHERE user_id = $1', [userId])
    ).rows.map((r) => r.h);
  }

  async credential(tokenHash: string): Promise<PatCredential | null> {
    return (
      (
        await this.q<PatCredential>(
          `SELECT p.id, p.user_id AS "userId", u.login, p.scopes, p.expires_at AS "expiresAt" FROM pat_tokens p
           JOIN users u ON u.id = p.user_id WHERE p.token_hash = $1`,
          [tokenHash],
        )
      ).rows[0] ?? null
    );
  }

  async touch(id: string, at: number): Promise<void> {
    await this.q('UPDATE pat_tokens SET last_used_at = $1 WHERE id = $2', [at, id]);
  }

  async revision(): Promise<unknown> {
    return (await this.q<{ n: number }>('SELECT n FROM credential_revision WHERE id = 1')).rows[0]?.n ?? null;
  }
}
