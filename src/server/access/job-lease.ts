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
import type { Clock } from './clock.js';

/** The lease a renewal gives: taken over 60 s after the holder's last renewal. */
export const LEASE_MS = 60_000;
/** The holder renews every 20 s. */
export const RENEW_MS = 20_000;
/** How often an instance following another's job looks at its row. */
export const WATCH_MS = 1_000;
/** Progress snapshots are written at most this often. */
export const PUBLISH_MS = 1_000;

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
  constructor(readonly deps: JobLeasesDeps) {}

  get holder(): string {
    return this.deps.holder;
  }

  /** Takes the id's lease (the job then runs here) or answers the row of the instance that holds it. */
  async acquire(preprintId: string, render: () => JobView): Promise<LeaseClaim> {
    const { store, holder, clock } = this.deps;
    const view = render();
    const claim = await store.acquire({ preprintId, holder, now: clock.now(), leaseMs: LEASE_MS, ...view });
    return claim.won ? { lease: new HeldLease(this, preprintId, render) } : { lease: null, row: claim.row };
  }

  /**
   * The row of a job another instance runs or ended in failure and is cooling down, else `null`: what a status
   * call answers when this instance has no job of the id.
   */
  async elsewhere(preprintId: string): Promise<JobLeaseRow | null> {
    const row = await this.deps.store.get(preprintId);
    return row !== null && this.heldElsewhere(row) ? row : null;
  }

  /** `elsewhere` of many ids in one read: the rows held elsewhere, by id (for a batch status). */
  async elsewhereAll(preprintIds: readonly string[]): Promise<Map<string, JobLeaseRow>> {
    const rows = await this.deps.store.getMany(preprintIds);
    return new Map(rows.filter((r) => this.heldElsewhere(r)).map((r) => [r.preprintId, r]));
  }

  /** The rows other instances wrote since `since` (at most `limit`), for the cluster's job list. */
  async listed(since: number, limit: number): Promise<JobLeaseRow[]> {
    const { store, holder, clock } = this.deps;
    await store.prune(since).catch((err: unknown) => this.deps.logger.warn({ err }, 'pruning job leases failed'));
    const now = clock.now();
    return (await store.list(since, limit)).filter(
      (r) => r.holder !== holder && (r.endedAt !== null || r.leaseUntil > now),
    );
  }

  /** Running under a live lease, or ended in a failure whose cooldown lasts — on another instance. */
  private heldElsewhere(row: JobLeaseRow): boolean {
    const live = row.leaseUntil > this.deps.clock.now();
    return row.holder !== this.deps.holder && live && (row.endedAt === null || row.failure !== null);
  }
}

/** The lease of a job running here: renewed in the background, the snapshot written on changes, ended once. */
export class HeldLease {
  private lost = false;
  private done = false;
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
    void this.renewEvery();
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
        if (!(await store.publish(this.preprintId, holder, view.kind, view.snapshot, clock.now()))) this.lose();
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
        await clock.sleep(RENEW_MS, signal);
        if (signal.aborted) return;
        const held = await store.renew(this.preprintId, holder, clock.now(), LEASE_MS).catch((err: unknown) => {
          // The next renewal tries again; the lease lasts three renewal periods.
          logger.warn({ err, preprint_id: this.preprintId }, 'renewing the job lease failed');
          return true;
        });
        if (!held && !signal.aborted) return this.lose();
      }
    } catch {
      // Stopped: the job ended.
    }
  }

  /** Another instance took the job over (this one missed its renewals): the job ends here without writing more. */
  private lose(): void {
    if (this.lost || this.done) return;
    this.lost = true;
    this.renewal.abort();
    this.owner.deps.logger.warn(
      { preprint_id: this.preprintId },
      'paper-access job lease lost to another instance; finishing without updating the job record',
    );
  }
}
