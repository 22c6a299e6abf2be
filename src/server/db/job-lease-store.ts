/**
 * Paper-access job records shared by the instances of a cluster (CONTRACT §21): one row per canonical id holding a
 * lease — which instance runs the job, and until when — with the job's latest snapshot (§11.2) and, once the job
 * ended, how it ended. The holder renews the lease while it works; another instance takes the job over once the
 * lease has expired. A row is never a second job: the acquire is one atomic statement with one winner.
 *
 * PostgreSQL only (job-lease-postgres.ts): an embedded pksd (SQLite) is one instance — `pksd.lock` keeps a second
 * `serve` off its data directory — so its jobs stay in memory exactly as §11.5 describes, and it has no store.
 */
import { PostgresJobLeaseStore } from './job-lease-postgres.js';
import { PostgresUserDatabase } from './postgres-user-database.js';
import type { UserDatabase } from './user-database.js';

export type JobLeaseKind = 'pdf' | 'markdown';

/** How a failed job ended (what another instance answers until the cooldown ends, §11.4–11.5). */
export interface JobLeaseFailure {
  readonly kind: 'fatal' | 'retryable' | 'daily_limit';
  readonly stage: 'fetch' | 'convert';
  readonly detail: string;
  /** arXiv does not have the paper (the trigger answers 404). */
  readonly notFound: boolean;
}

export interface JobLeaseRow {
  /** Canonical id with version. */
  readonly preprintId: string;
  /** `markdown` once any trigger wants the markdown. */
  readonly kind: JobLeaseKind;
  /** The holder's `SVC_INSTANCE_ID`. */
  readonly holder: string;
  /**
   * Epoch ms: while the job runs, the end of the lease; once it ended, when the row frees the id — at once after a
   * success, at the end of the cooldown after a failure.
   */
  readonly leaseUntil: number;
  /** The job's latest snapshot (§11.2), as the holder rendered it. */
  readonly snapshot: Record<string, unknown>;
  /** Epoch ms of the end, else `null` (running). */
  readonly endedAt: number | null;
  /** The failure that ended it; `null` while running or after a success. */
  readonly failure: JobLeaseFailure | null;
  /** Epoch ms of the last write. */
  readonly updatedAt: number;
}

export interface JobLeaseClaim {
  readonly preprintId: string;
  readonly kind: JobLeaseKind;
  readonly holder: string;
  readonly now: number;
  readonly leaseMs: number;
  readonly snapshot: Record<string, unknown>;
}

export interface JobLeaseStore {
  /**
   * Takes the lease for `claim.holder` until `now + leaseMs` when the id is free — no row, a lease (or cooldown)
   * over by `now`, or a running row `holder` itself wrote (a restarted instance keeping its id; a failure it
   * recorded cools down for it too) — in one statement: of
   * instances acquiring at once exactly one wins. Otherwise nothing changes; `row` is the current row (`null` only
   * when it vanished meanwhile).
   */
  acquire(claim: JobLeaseClaim): Promise<{ readonly won: boolean; readonly row: JobLeaseRow | null }>;
  /** Extends a running job's lease to `now + leaseMs`; `false` when `holder` no longer holds it (taken over). */
  renew(preprintId: string, holder: string, now: number, leaseMs: number): Promise<boolean>;
  /** Writes the running job's snapshot (and kind); `false` when `holder` no longer holds it. */
  publish(
    preprintId: string,
    holder: string,
    kind: JobLeaseKind,
    snapshot: Record<string, unknown>,
    now: number,
  ): Promise<boolean>;
  /**
   * Records the end: the final snapshot, the failure (or `null` for a success), and `freeAt` — when another
   * instance may start the id again (`now` after a success, the cooldown's end after a failure).
   */
  end(
    preprintId: string,
    holder: string,
    end: {
      readonly kind: JobLeaseKind;
      readonly snapshot: Record<string, unknown>;
      readonly failure: JobLeaseFailure | null;
      readonly freeAt: number;
      readonly now: number;
    },
  ): Promise<boolean>;
  /** Gives a running job's lease up at once (shutdown): another instance takes the job over on its next look. */
  release(preprintId: string, holder: string, now: number): Promise<boolean>;
  get(preprintId: string): Promise<JobLeaseRow | null>;
  /** The rows of `preprintIds` that exist, in one read (a batch status of up to 200 ids is one query). */
  getMany(preprintIds: readonly string[]): Promise<JobLeaseRow[]>;
  /** Rows written at or after `since`, newest first, at most `limit`. */
  list(since: number, limit: number): Promise<JobLeaseRow[]>;
  /** Deletes rows last written before `before` whose lease is over by then; how many. */
  prune(before: number): Promise<number>;
}

/** The job-lease store of the user database: PostgreSQL's; `null` for the embedded SQLite one (single instance). */
export function jobLeaseStoreOf(db: UserDatabase): JobLeaseStore | null {
  return db instanceof PostgresUserDatabase ? new PostgresJobLeaseStore(db.pool) : null;
}
