/**
 * The PostgreSQL adapter of the job-lease store (CONTRACT §21; table `job_leases`, migration 4). Every method is one
 * statement on the user database's pool, so the row lock orders instances acting on one id at once: two acquires
 * of a free id meet in `ON CONFLICT`, and the second re-evaluates its condition on the first one's row. Snapshots
 * and failure details go to JSONB, which cannot hold U+0000: it is stored as U+FFFD.
 */
import type pg from 'pg';
import { jsonbText } from './postgres-query.js';
import type { JobLeaseClaim, JobLeaseFailure, JobLeaseKind, JobLeaseRow, JobLeaseStore } from './job-lease-store.js';

const COLUMNS = `preprint_id AS "preprintId", kind, holder, lease_until AS "leaseUntil", snapshot,
  ended_at AS "endedAt", failure, updated_at AS "updatedAt"`;

export class PostgresJobLeaseStore implements JobLeaseStore {
  constructor(private readonly pool: pg.Pool) {}

  async acquire(claim: JobLeaseClaim): Promise<{ won: boolean; row: JobLeaseRow | null }> {
    const { rows } = await this.pool.query<JobLeaseRow>(
      `INSERT INTO job_leases AS l (preprint_id, kind, holder, lease_until, snapshot, ended_at, failure, updated_at)
       VALUES ($1, $2, $3, $4::bigint + $5::bigint, $6::jsonb, NULL, NULL, $4)
       ON CONFLICT (preprint_id) DO UPDATE SET kind = excluded.kind, holder = excluded.holder,
         lease_until = excluded.lease_until, snapshot = excluded.snapshot, ended_at = NULL, failure = NULL,
         updated_at = excluded.updated_at
       WHERE l.lease_until <= $4::bigint OR (l.holder = $3 AND l.ended_at IS NULL)
       RETURNING ${COLUMNS}`,
      [claim.preprintId, claim.kind, claim.holder, claim.now, claim.leaseMs, jsonbText(claim.snapshot)],
    );
    if (rows[0]) return { won: true, row: rows[0] };
    return { won: false, row: await this.get(claim.preprintId) };
  }

  async renew(preprintId: string, holder: string, now: number, leaseMs: number): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE job_leases SET lease_until = $3::bigint + $4::bigint
       WHERE preprint_id = $1 AND holder = $2 AND ended_at IS NULL AND lease_until > 0`,
      [preprintId, holder, now, leaseMs],
    );
    return rowCount === 1;
  }

  async publish(
    preprintId: string,
    holder: string,
    kind: JobLeaseKind,
    snapshot: Record<string, unknown>,
    now: number,
  ): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE job_leases SET kind = $3, snapshot = $4::jsonb, updated_at = $5
       WHERE preprint_id = $1 AND holder = $2 AND ended_at IS NULL AND lease_until > 0`,
      [preprintId, holder, kind, jsonbText(snapshot), now],
    );
    return rowCount === 1;
  }

  async end(
    preprintId: string,
    holder: string,
    end: {
      kind: JobLeaseKind;
      snapshot: Record<string, unknown>;
      failure: JobLeaseFailure | null;
      freeAt: number;
      now: number;
    },
  ): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE job_leases SET kind = $3, snapshot = $4::jsonb, failure = $5::jsonb, lease_until = $6, ended_at = $7,
         updated_at = $7
       WHERE preprint_id = $1 AND holder = $2 AND ended_at IS NULL`,
      [
        preprintId,
        holder,
        end.kind,
        jsonbText(end.snapshot),
        end.failure === null ? null : jsonbText(end.failure),
        end.freeAt,
        end.now,
      ],
    );
    return rowCount === 1;
  }

  async release(preprintId: string, holder: string, now: number): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE job_leases SET lease_until = 0, updated_at = $3
       WHERE preprint_id = $1 AND holder = $2 AND ended_at IS NULL`,
      [preprintId, holder, now],
    );
    return rowCount === 1;
  }

  async get(preprintId: string): Promise<JobLeaseRow | null> {
    const { rows } = await this.pool.query<JobLeaseRow>(`SELECT ${COLUMNS} FROM job_leases WHERE preprint_id = $1`, [
      preprintId,
    ]);
    return rows[0] ?? null;
  }

  async getMany(preprintIds: readonly string[]): Promise<JobLeaseRow[]> {
    if (preprintIds.length === 0) return [];
    const { rows } = await this.pool.query<JobLeaseRow>(
      `SELECT ${COLUMNS} FROM job_leases WHERE preprint_id = ANY($1::text[])`,
      [preprintIds],
    );
    return rows;
  }

  async list(since: number, limit: number): Promise<JobLeaseRow[]> {
    const { rows } = await this.pool.query<JobLeaseRow>(
      `SELECT ${COLUMNS} FROM job_leases WHERE updated_at >= $1 ORDER BY updated_at DESC, preprint_id LIMIT $2`,
      [since, limit],
    );
    return rows;
  }

  async prune(before: number): Promise<number> {
    const { rowCount } = await this.pool.query('DELETE FROM job_leases WHERE updated_at < $1 AND lease_until < $1', [
      before,
    ]);
    return rowCount ?? 0;
  }
}
