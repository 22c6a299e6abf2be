/** The PostgreSQL repositories of the shared limits: rate-limit windows (CONTRACT §7.7) and token buckets (§11.5). */
import type { RateCounterRepository, RateWindow, TokenBucketRepository } from './user-database.js';
import type { Query } from './postgres-query.js';

/**
 * Fixed windows as rows, counted by one upsert (the row lock orders concurrent instances). Rows of ended windows
 * are deleted at most once per window length by each instance.
 */
export class PostgresRateCounters implements RateCounterRepository {
  private lastSweep = 0;
  constructor(private readonly q: Query) {}

  async count(rule: string, key: string, now: number, windowMs: number): Promise<RateWindow> {
    if (now - this.lastSweep >= windowMs) {
      this.lastSweep = now;
      await this.q('DELETE FROM rate_windows WHERE window_start <= $1', [now - windowMs]);
    }
    const { rows } = await this.q<RateWindow>(
      `INSERT INTO rate_windows (rule, key, window_start, hits) VALUES ($1, $2, $3, 1)
       ON CONFLICT (rule, key) DO UPDATE SET
         window_start = CASE WHEN $3 - rate_windows.window_start >= $4 THEN $3 ELSE rate_windows.window_start END,
         hits = CASE WHEN $3 - rate_windows.window_start >= $4 THEN 1 ELSE rate_windows.hits + 1 END
       RETURNING window_start AS start, hits AS count`,
      [rule, key, now, windowMs],
    );
    return rows[0]!;
  }

  async peek(rule: string, key: string, now: number, windowMs: number): Promise<RateWindow | null> {
    const { rows } = await this.q<RateWindow>(
      `SELECT window_start AS start, hits AS count FROM rate_windows
       WHERE rule = $1 AND key = $2 AND window_start > $3`,
      [rule, key, now - windowMs],
    );
    return rows[0] ?? null;
  }

  async refund(rule: string, key: string, now: number, windowMs: number): Promise<void> {
    await this.q(
      'UPDATE rate_windows SET hits = hits - 1 WHERE rule = $1 AND key = $2 AND window_start > $3 AND hits > 0',
      [rule, key, now - windowMs],
    );
  }
}

/** The bucket's tokens at `$4` (ms), refilled at `$2` tokens/s up to `$3` since its last take. */
const REFILLED = `LEAST($3::double precision,
  tokens + GREATEST(0, $4::bigint - updated_at)::double precision / 1000 * $2::double precision)`;

/**
 * One row per bucket. A take is one conditional UPDATE that computes the refill from the row it locks: two
 * instances taking at once are ordered by the row lock, and the second re-evaluates on the first one's result.
 */
export class PostgresTokenBuckets implements TokenBucketRepository {
  private readonly created = new Set<string>();
  constructor(private readonly q: Query) {}

  async take(bucket: string, rate: number, capacity: number, now: number): Promise<number> {
    if (!this.created.has(bucket)) {
      await this.q('INSERT INTO token_buckets (name, tokens, updated_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [
        bucket,
        capacity,
        now,
      ]);
      this.created.add(bucket);
    }
    const params = [bucket, rate, capacity, now];
    const taken = await this.q(
      `UPDATE token_buckets SET tokens = ${REFILLED} - 1, updated_at = GREATEST(updated_at, $4::bigint)
       WHERE name = $1 AND ${REFILLED} >= 1`,
      params,
    );
    if (taken.rowCount === 1) return 0;
    const { rows } = await this.q<{ tokens: number }>(
      `SELECT ${REFILLED} AS tokens FROM token_buckets WHERE name = $1`,
      params,
    );
    return Math.max(1, Math.ceil(((1 - rows[0]!.tokens) / rate) * 1000));
  }

  async debit(bucket: string, tokens: number, rate: number, capacity: number, now: number): Promise<void> {
    await this.q(
      `UPDATE token_buckets SET tokens = ${REFILLED} - $5::double precision, updated_at = GREATEST(updated_at, $4::bigint)
       WHERE name = $1`,
      [bucket, rate, capacity, now, tokens],
    );
  }
}
