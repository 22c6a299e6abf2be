/** The PostgreSQL repository of device authorization requests (CONTRACT §7.8, §21): `device_requests` rows. */
import type pg from 'pg';
import type { DeviceStatus } from '../../shared/api/device.js';
import type { ConsumeOutcome, DeviceRepository, DeviceRow, PatRow } from './user-database.js';
import { INSERT_PAT, patParams } from './postgres-pats.js';
import { withClient, type Query } from './postgres-query.js';

const DEVICE_COLUMNS = `id, device_code_hash AS "deviceCodeHash", user_code AS "userCode", name, description, scopes,
  expires_in_days AS "expiresInDays", status, approved_by AS "approvedBy", pat_id AS "patId",
  poll_count AS "pollCount", last_poll_at AS "lastPollAt", created, expires_at AS "expiresAt"`;

export class PostgresDevices implements DeviceRepository {
  constructor(
    private readonly q: Query,
    private readonly pool: pg.Pool,
  ) {}

  async pending(now: number): Promise<{ count: number; firstExpiry: number | null }> {
    const r = (
      await this.q<{ n: number; first: number | null }>(
        `SELECT COUNT(*)::int AS n, MIN(expires_at) AS first FROM device_requests
         WHERE expires_at > $1 AND status = 'pending'`,
        [now],
      )
    ).rows[0]!;
    return { count: r.n, firstExpiry: r.first };
  }

  async userCodeLive(userCode: string, now: number): Promise<boolean> {
    const { rowCount } = await this.q(
      `SELECT 1 FROM device_requests WHERE user_code = $1 AND status IN ('pending', 'approved') AND expires_at > $2`,
      [userCode, now],
    );
    return (rowCount ?? 0) > 0;
  }

  async insert(r: DeviceRow): Promise<void> {
    await this.q(
      `INSERT INTO device_requests (id, device_code_hash, user_code, name, description, scopes, expires_in_days,
         status, approved_by, pat_id, poll_count, last_poll_at, created, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
      [
        r.id,
        r.deviceCodeHash,
        r.userCode,
        r.name,
        r.description,
        r.scopes,
        r.expiresInDays,
        r.status,
        r.approvedBy,
        r.patId,
        r.pollCount,
        r.lastPollAt,
        r.created,
        r.expiresAt,
      ],
    );
  }

  async registerPoll(deviceCodeHash: string, now: number): Promise<DeviceRow | null> {
    // One statement: the row is locked, read as it was, and counted (unless consumed).
    const { rows } = await this.q<DeviceRow>(
      `WITH before AS (SELECT * FROM device_requests WHERE device_code_hash = $1 FOR UPDATE),
            counted AS (UPDATE device_requests d SET poll_count = before.poll_count + 1, last_poll_at = $2
                        FROM before WHERE d.id = before.id AND before.status <> 'consumed')
       SELECT ${DEVICE_COLUMNS} FROM before`,
      [deviceCodeHash, now],
    );
    return rows[0] ?? null;
  }

  async latestByUserCode(userCode: string): Promise<DeviceRow | null> {
    return (
      (
        await this.q<DeviceRow>(
          `SELECT ${DEVICE_COLUMNS} FROM device_requests WHERE user_code = $1 ORDER BY created DESC LIMIT 1`,
          [userCode],
        )
      ).rows[0] ?? null
    );
  }

  async setStatus(id: string, status: DeviceStatus, from?: DeviceStatus): Promise<boolean> {
    const res =
      from === undefined
        ? await this.q('UPDATE device_requests SET status = $1 WHERE id = $2', [status, id])
        : await this.q('UPDATE device_requests SET status = $1 WHERE id = $2 AND status = $3', [status, id, from]);
    return (res.rowCount ?? 0) > 0;
  }

  async approve(id: string, userId: string, name: string, scopes: string, expiresInDays: number): Promise<boolean> {
    const res = await this.q(
      `UPDATE device_requests SET status = 'approved', approved_by = $1, name = $2, scopes = $3, expires_in_days = $4
       WHERE id = $5 AND status = 'pending'`,
      [userId, name, scopes, expiresInDays, id],
    );
    return (res.rowCount ?? 0) > 0;
  }

  async deleteExpiredBefore(before: number): Promise<number> {
    return (await this.q('DELETE FROM device_requests WHERE expires_at < $1', [before])).rowCount ?? 0;
  }

  async consumeAndMint(id: string, pat: PatRow): Promise<ConsumeOutcome> {
    return withClient(this.pool, async (client) => {
      await client.query('BEGIN');
      try {
        // The user row first, then the request: the order a user deletion (its cascade) takes them in.
        const approver = await client.query('SELECT 1 FROM users WHERE id = $1 FOR KEY SHARE', [pat.userId]);
        const { rows } = await client.query<{ status: DeviceStatus; approvedBy: string | null }>(
          'SELECT status, approved_by AS "approvedBy" FROM device_requests WHERE id = $1 FOR UPDATE',
          [id],
        );
        let outcome: ConsumeOutcome;
        if (rows[0]?.status !== 'approved') outcome = 'not-approved';
        else if (rows[0].approvedBy !== pat.userId || approver.rowCount === 0) {
          await client.query(`UPDATE device_requests SET status = 'denied' WHERE id = $1`, [id]);
          outcome = 'approver-gone';
        } else {
          await client.query(INSERT_PAT, patParams(pat));
          await client.query(`UPDATE device_requests SET status = 'consumed', pat_id = $1 WHERE id = $2`, [pat.id, id]);
          outcome = 'minted';
        }
        await client.query('COMMIT');
        return outcome;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      }
    });
  }
}
