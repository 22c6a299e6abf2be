/**
 * Paper-access jobs across a cluster (CONTRACT §21): before a job works, its instance takes the id's row lease in
 * the user database; while it works it renews the lease every 20 s and writes its snapshot there (at most once a
 * second), and at its end records how it ended. Another instance that gets a trigger for the id meanwhile does not
 * start a second job: it answers the stored snapshot and looks at the row every second, taking the job over when
 * the lease has not been renewed for 60 s (the holder died) and answering the result once it ended.
 *
 * Lease times come from the engine's `Clock` (tests drive it); the instances' clocks are assumed to agree to well
 * under the 40 s between the last renewal and the takeover.
 */
import type { Logger } from 'pino';
import type { JobLeaseFailure, JobLeaseKind, JobLeaseRow, JobLeaseStore } from '../db/job-lease-store.js';
import { UnavailableError } from '../../shared/domain-errors.js';
import type { Clock } from './clock.js';

/** The lease a renewal gives: taken over 60 s after the holder's last renewal. */
export const LEASE_MS = 60_000;
/** The holder renews every 20 s. */
export const RENEW_MS = 20_000;
/** How often an instance following another's job looks at its row. */
export const WATCH_MS = 1_000;
/**
 * A holder whose renewals all failed for this long gives its job up: it cannot know whether it still holds the
 * lease, and another instance may take the job over at `LEASE_MS` — the margin stops it before that.
 */
export const GIVE_UP_MS = LEASE_MS - 5_000;
/** Progress snapshots are written at most this often. */
export const PUBLISH_MS = 1_000;
/** Rows last written longer ago than the jobs lists look back (the engine's `RECENT_MS`) are pruned. */
const KEEP_MS = 60 * 60_000;

/** The job records cannot be read (the database is unreachable or failed the read): 503, retry shortly. */
export class JobRecordsUnavailableError extends UnavailableError {
  constructor(cause: unknown) {
    super('paper-access job records unavailable (database unreachable); retry shortly', { cause });
  }
}

/** What the row shows of a job: its kind and snapshot, rendered when written. */
export interface JobView {
  readonly kind: JobLeaseKind;
  readonly snapshot: Record<string, unknown>;
}

export interface JobLeasesDeps {
  readonly store: JobLeaseStore;
  /** `SVC_INSTANCE_ID`. */
  readonly holder: string;
  readonly clock: Clock;
  readonly logger: Logger;
}

export type LeaseClaim = { readonly lease: HeldLease } | { readonly lease: null; readonly row: JobLeaseRow | null };

export class JobLeases {
  /** When old rows were last pruned (this clock): at most once per renewal period, on the write paths. */
  private prunedAt = -Infinity;

  constructor(readonly deps: JobLeasesDeps) {}

  get holder(): string {
    return this.deps.holder;
  }

  /** Takes the id's lease (the job then runs here) or answers the row of the instance that holds it. */
  async acquire(preprintId: string, render: () => JobView): Promise<LeaseClaim> {
    const { store, holder, clock } = this.deps;
    const view = render();
    const claim = await store.acquire({ preprintId, holder, now: clock.now(), leaseMs: LEASE_MS, ...view });
    this.pruneDue();
    return claim.won ? { lease: new HeldLease(this, preprintId, render) } : { lease: null, row: claim.row };
  }

  /**
   * The row of a job another instance runs or ended in failure and is cooling down, else `null`: what a status
   * call answers when this instance has no job of the id.
   */
  async elsewhere(preprintId: string): Promise<JobLeaseRow | null> {
    const row = await read(this.deps.store.get(preprintId));
    return row !== null && this.heldElsewhere(row) ? row : null;
  }

  /** `elsewhere` of many ids in one read: the rows held elsewhere, by id (for a batch status). */
  async elsewhereAll(preprintIds: readonly string[]): Promise<Map<string, JobLeaseRow>> {
    const rows = await read(this.deps.store.getMany(preprintIds));
    return new Map(rows.filter((r) => this.heldElsewhere(r)).map((r) => [r.preprintId, r]));
  }

  /** The rows other instances wrote since `since` (at most `limit`), for the cluster's job list. */
  async listed(since: number, limit: number): Promise<JobLeaseRow[]> {
    const { store, holder, clock } = this.deps;
    const now = clock.now();
    return (await read(store.list(since, limit))).filter(
      (r) => r.holder !== holder && (r.endedAt !== null || r.leaseUntil > now),
    );
  }

  /**
   * Deletes the rows no jobs list shows any more, at most once per renewal period: called by the write paths (a
   * new job, a renewal), never by a read — a GET is not a DELETE.
   */
  pruneDue(): void {
    const { store, clock, logger } = this.deps;
    const now = clock.now();
    if (now - this.prunedAt < RENEW_MS) return;
    this.prunedAt = now;
    store.prune(now - KEEP_MS).catch((err: unknown) => logger.warn({ err }, 'pruning job leases failed'));
  }

  /**
   * Running under a live lease on another instance, or ended in a failure whose cooldown lasts — wherever it ended:
   * this instance's own failure is in memory, except after a restart under the same id.
   */
  private heldElsewhere(row: JobLeaseRow): boolean {
    if (row.leaseUntil <= this.deps.clock.now()) return false;
    return row.endedAt === null ? row.holder !== this.deps.holder : row.failure !== null;
  }
}

/** A read of the job records; its failure is the database's: 503, retry shortly. */
async function read<T>(pending: Promise<T>): Promise<T> {
  try {
    return await pending;
  } catch (err) {
    throw new JobRecordsUnavailableError(err);
  }
}

/** The lease of a job running here: renewed in the background, the snapshot written on changes, ended once. */
export class HeldLease {
  private lost = false;
  private done = false;
  /** The clock time sent with the last successful renewal (the acquire at first). */
  private renewedAt: number;
  private readonly lossSignal = new AbortController();
  private lastPublish = 0;
  private pending: NodeJS.Timeout | null = null;
  /** Writes in order (a snapshot never lands after the end). */
  private writes: Promise<unknown> = Promise.resolve();
  private readonly renewal = new AbortController();

  constructor(
    private readonly owner: JobLeases,
    readonly preprintId: string,
    private readonly render: () => JobView,
  ) {
    this.renewedAt = owner.deps.clock.now();
    void this.renewEvery();
  }

  /** This instance no longer holds the lease (taken over, or not renewed for `GIVE_UP_MS`): the job stops here. */
  get isLost(): boolean {
    return this.lost;
  }

  /** Why the lease was lost (the failure's detail), once it was. */
  get lostReason(): string {
    return (this.lossSignal.signal.reason as Error | undefined)?.message ?? '';
  }

  /**
   * `work`'s outcome, or a rejection as soon as the lease is lost: the job ends then, while an operation already
   * under way finishes in the background and its result is dropped (the work checks `isLost` between stages).
   */
  whileHeld<T>(work: Promise<T>): Promise<T> {
    const { signal } = this.lossSignal;
    work.catch(() => undefined);
    if (signal.aborted) return Promise.reject(signal.reason as Error);
    return new Promise<T>((resolve, reject) => {
      const onLost = () => reject(signal.reason as Error);
      signal.addEventListener('abort', onLost, { once: true });
      work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onLost));
    });
  }

  /** The job changed: its snapshot is written now, or a second after the last write at the latest. */
  changed(): void {
    if (this.done || this.lost || this.pending) return;
    const wait = Math.max(0, this.lastPublish + PUBLISH_MS - Date.now());
    this.pending = setTimeout(() => {
      this.pending = null;
      if (this.done || this.lost) return;
      this.lastPublish = Date.now();
      const { store, holder, clock } = this.owner.deps;
      const view = this.render();
      void this.write(async () => {
        if (!(await store.publish(this.preprintId, holder, view.kind, view.snapshot, clock.now()))) {
          this.lose('lost to another instance');
        }
      });
    }, wait);
    this.pending.unref();
  }

  /** Records the end: `failure` null for a success; the id is free again at `freeAt`. */
  end(failure: JobLeaseFailure | null, freeAt: number): Promise<void> {
    const { store, holder, clock } = this.owner.deps;
    const view = this.stop();
    return this.write(async () => {
      await store.end(this.preprintId, holder, { ...view, failure, freeAt, now: clock.now() });
    });
  }

  /** Gives the lease up at once (the server stops): another instance takes the job over on its next look. */
  release(): Promise<void> {
    const { store, holder, clock } = this.owner.deps;
    this.stop();
    return this.write(async () => {
      await store.release(this.preprintId, holder, clock.now());
    });
  }

  private stop(): JobView {
    this.done = true;
    if (this.pending) clearTimeout(this.pending);
    this.pending = null;
    this.renewal.abort();
    return this.render();
  }

  private write(op: () => Promise<void>): Promise<void> {
    const next = this.writes.then(op).catch((err: unknown) => {
      this.owner.deps.logger.warn({ err, preprint_id: this.preprintId }, 'writing the job lease failed');
    });
    this.writes = next;
    return next;
  }

  private async renewEvery(): Promise<void> {
    const { store, holder, clock, logger } = this.owner.deps;
    const { signal } = this.renewal;
    try {
      for (;;) {
        // The next renewal, or the moment to give up when the renewals keep failing — whichever comes first.
        await clock.sleep(Math.min(RENEW_MS, Math.max(0, this.renewedAt + GIVE_UP_MS - clock.now())), signal);
        if (signal.aborted) return;
        const at = clock.now();
        const held = await store.renew(this.preprintId, holder, at, LEASE_MS).catch((err: unknown) => {
          // The next renewal tries again, until GIVE_UP_MS after the last one that succeeded.
          logger.warn({ err, preprint_id: this.preprintId }, 'renewing the job lease failed');
          return null;
        });
        if (signal.aborted) return;
        if (held === true) {
          this.renewedAt = at;
          this.owner.pruneDue();
        } else if (held === false) {
          return this.lose('lost to another instance');
        } else if (clock.now() - this.renewedAt >= GIVE_UP_MS) {
          return this.lose(`no renewal for ${GIVE_UP_MS / 1000} s`);
        }
      }
    } catch {
      // Stopped: the job ended.
    }
  }

  /**
   * This instance no longer holds the job (taken over, or unsure after failed renewals): the job stops here — the
   * engine ends it without a cooldown — and writes nothing more.
   */
  private lose(why: string): void {
    if (this.lost || this.done) return;
    this.lost = true;
    this.renewal.abort();
    this.owner.deps.logger.warn(
      { preprint_id: this.preprintId },
      `paper-access job lease lost (${why}); the job stops here without updating the job record`,
    );
    this.lossSignal.abort(new Error(`the job lease was lost (${why}); retry to follow the instance that holds it`));
  }
}
