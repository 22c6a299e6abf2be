/**
 * The PostgreSQL adapter of the claim store (CONTRACT §5.1, §21): in cluster mode without a graph, one
 * `parser_claims` row per claimed paper, shared by every instance on the database. Each operation is one statement
 * (release: one statement and, when nothing was deleted, one read), atomic on its own: `acquire` is an
 * `INSERT … ON CONFLICT DO UPDATE … WHERE expired`, so of instances racing for one paper exactly one row version
 * wins and an expired claim is replaced in the same step.
 */
import type pg from 'pg';
import type { VersionedPreprintId } from '../../shared/ids.js';
import { ClaimStoreUnavailableError, newClaim } from '../papers/claim-store.js';
import type { AcquireResult, Claim, ClaimStore, ReleaseResult } from '../papers/claim-store.js';
import { nulSafe, type Query } from './postgres-query.js';

const COLUMNS = 'preprint_id, key, claim_id, requester, created_at, expires_at, ttl_seconds';

interface ClaimRow {
  preprint_id: string;
  key: string;
  claim_id: string;
  requester: string;
  created_at: number | string;
  expires_at: number | string;
  ttl_seconds: number;
}

const fromRow = (r: ClaimRow): Claim => ({
  preprint_id: r.preprint_id,
  key: r.key,
  claim_id: r.claim_id,
  requester: r.requester,
  created_at: new Date(Number(r.created_at)),
  expires_at: new Date(Number(r.expires_at)),
  ttl_seconds: r.ttl_seconds,
});

/** Error codes and texts of a database that cannot be reached (not of a statement it refused). */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'EPIPE']);
const UNREACHABLE_TEXT = /timeout exceeded when trying to connect|Connection terminated|connection is closed/i;

function isUnreachable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && (UNREACHABLE_CODES.has(code) || code.startsWith('08') || code.startsWith('57P')))
    return true;
  return UNREACHABLE_TEXT.test(err.message);
}

export class PostgresClaimStore implements ClaimStore {
  readonly backend = 'postgres' as const;

  /** Claim ids come from request paths: one holding U+0000 matches nothing (PostgreSQL TEXT cannot hold it). */
  private readonly query: Query;

  constructor(pool: pg.Pool) {
    this.query = nulSafe(pool);
  }

  /** A statement; an unreachable database becomes `ClaimStoreUnavailableError` (503). */
  private async q<R extends pg.QueryResultRow>(sql: string, params: unknown[]): Promise<pg.QueryResult<R>> {
    try {
      return await this.query<R>(sql, params);
    } catch (err) {
      if (isUnreachable(err)) throw new ClaimStoreUnavailableError({ cause: err, store: 'database' });
      throw err;
    }
  }

  async acquire(id: VersionedPreprintId, requester: string, ttlSeconds: number, now: Date): Promise<AcquireResult> {
    const candidate = newClaim(id, requester, ttlSeconds, now);
    for (;;) {
      // Inserted, or an expired row replaced: the candidate comes back. An unexpired row stays and nothing does.
      const won = await this.q(
        `INSERT INTO parser_claims (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (preprint_id) DO UPDATE SET key = excluded.key, claim_id = excluded.claim_id,
           requester = excluded.requester, created_at = excluded.created_at, expires_at = excluded.expires_at,
           ttl_seconds = excluded.ttl_seconds
         WHERE parser_claims.expires_at <= $8
         RETURNING claim_id`,
        [
          candidate.preprint_id,
          candidate.key,
          candidate.claim_id,
          candidate.requester,
          candidate.created_at.getTime(),
          candidate.expires_at.getTime(),
          candidate.ttl_seconds,
          now.getTime(),
        ],
      );
      if (won.rowCount === 1) return { ok: true, claim: candidate };
      const held = await this.q<ClaimRow>(`SELECT ${COLUMNS} FROM parser_claims WHERE preprint_id = $1`, [id.id]);
      // Released between the two statements: try again.
      if (held.rows[0]) return { ok: false, existing: fromRow(held.rows[0]) };
    }
  }

  async release(id: VersionedPreprintId, claimId: string, now: Date): Promise<ReleaseResult> {
    // The matching claim, or an expired one whatever its id, is deleted.
    const deleted = await this.q<{ held: boolean }>(
      `DELETE FROM parser_claims WHERE preprint_id = $1 AND (claim_id = $2 OR expires_at <= $3)
       RETURNING expires_at > $3 AS held`,
      [id.id, claimId, now.getTime()],
    );
    if (deleted.rows[0]) return deleted.rows[0].held ? 'released' : 'absent';
    const other = await this.q(`SELECT 1 FROM parser_claims WHERE preprint_id = $1 AND expires_at > $2`, [
      id.id,
      now.getTime(),
    ]);
    return (other.rowCount ?? 0) > 0 ? 'mismatch' : 'absent';
  }

  async clear(id: VersionedPreprintId): Promise<void> {
    await this.q('DELETE FROM parser_claims WHERE preprint_id = $1', [id.id]);
  }

  async active(now: Date): Promise<Map<string, Claim>> {
    const { rows } = await this.q<ClaimRow>(`SELECT ${COLUMNS} FROM parser_claims WHERE expires_at > $1`, [
      now.getTime(),
    ]);
    return new Map(rows.map((r) => [r.preprint_id, fromRow(r)]));
  }

  async purgeExpired(now: Date): Promise<number> {
    return (await this.q('DELETE FROM parser_claims WHERE expires_at <= $1', [now.getTime()])).rowCount ?? 0;
  }
}
