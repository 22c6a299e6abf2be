/**
 * The PostgreSQL adapter of the ingest task store (CONTRACT §10.6 in cluster mode, §21): one `ingest_tasks` row per
 * task, so status and listing answer the same on every instance. A row names its owner (`SVC_INSTANCE_ID`) and
 * carries the owner's lease, renewed every 20 s while the task is unfinished; a task whose lease ran out (its owner
 * stopped without finishing it) becomes `cancelled` by whichever instance sees it first — at start or at a renewal
 * tick. A starting instance also cancels its own leftovers, never a live task of another instance. Writes by an
 * owner whose task another instance cancelled are dropped, so a cancelled task stays cancelled.
 */
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { TaskDocument } from '../ingest/task.js';
import {
  cancelTask,
  isUnfinished,
  KEEP_TASKS,
  ThrottledTaskWrites,
  type IngestTaskStore,
} from '../ingest/task-store-port.js';
import { jsonbText, nulSafe, withClient, type Query } from './postgres-query.js';

export interface TaskLease {
  /** How often an instance renews the leases of the tasks it runs (and sweeps expired ones). */
  readonly renewMs: number;
  /** How long a lease lasts: another instance takes over (cancels) a task this long after its last renewal. */
  readonly leaseMs: number;
}

export const TASK_LEASE: TaskLease = { renewMs: 20_000, leaseMs: 60_000 };

const UNFINISHED = `status IN ('queued', 'running')`;
const NEWEST_FIRST = 'ORDER BY submitted_at DESC, task_id DESC';

export class PostgresTaskStore extends ThrottledTaskWrites implements IngestTaskStore {
  readonly backend = 'postgres' as const;
  /** The unfinished tasks this instance runs: answered from memory (fresher than the throttled row). */
  private readonly live = new Map<string, TaskDocument>();
  private timer: NodeJS.Timeout | null = null;
  private maintaining: Promise<void> = Promise.resolve();
  /** Lookups keyed by request text (a task id may hold U+0000): such an id matches nothing. */
  private readonly q: Query;

  constructor(
    private readonly pool: pg.Pool,
    readonly instanceId: string,
    logger: Logger,
    now: () => number = Date.now,
    private readonly lease: TaskLease = TASK_LEASE,
  ) {
    super(logger, now);
    this.q = nulSafe(pool);
  }

  /** Cancels this instance's leftovers and tasks whose lease ran out, trims to the newest 1000, starts renewing. */
  async open(): Promise<void> {
    await this.cancelStale(true);
    // Beyond the newest 1000, finished tasks go (an unfinished one belongs to an instance that may still run it).
    await this.pool.query(
      `DELETE FROM ingest_tasks WHERE NOT ${UNFINISHED}
         AND task_id IN (SELECT task_id FROM ingest_tasks ${NEWEST_FIRST} OFFSET $1)`,
      [KEEP_TASKS],
    );
    this.timer = setInterval(() => {
      this.maintaining = this.maintaining.then(() =>
        this.maintain().catch((err: unknown) => {
          this.logger.warn({ err: (err as Error).message }, 'renewing the ingest task leases failed');
        }),
      );
    }, this.lease.renewMs);
    this.timer.unref();
  }

  /** One renewal tick: this instance's unfinished tasks get a fresh lease; tasks whose lease ran out are cancelled. */
  async maintain(): Promise<void> {
    if (this.closed) return;
    const ids = [...this.live.keys()];
    if (ids.length > 0) {
      await this.pool.query(
        `UPDATE ingest_tasks SET lease_expires_at = $1 WHERE owner = $2 AND task_id = ANY($3) AND ${UNFINISHED}`,
        [this.now() + this.lease.leaseMs, this.instanceId, ids],
      );
    }
    await this.cancelStale(false);
  }

  /**
   * Cancels the unfinished tasks whose lease ran out and, at start (`own`), this instance's own leftovers: under row
   * locks, so an owner's write racing the cancellation either lands first (and the row is re-checked) or is dropped.
   */
  private async cancelStale(own: boolean): Promise<void> {
    const now = this.now();
    const cancelled = await withClient(this.pool, async (client) => {
      let count = 0;
      await client.query('BEGIN');
      try {
        const { rows } = await client.query<{ doc: TaskDocument }>(
          `SELECT doc FROM ingest_tasks WHERE ${UNFINISHED} AND (lease_expires_at <= $1 OR (owner = $2 AND $3))
           FOR UPDATE`,
          [now, this.instanceId, own],
        );
        for (const { doc } of rows) {
          if (this.live.has(doc.task_id)) continue;
          cancelTask(doc, now);
          await client.query('UPDATE ingest_tasks SET status = $2, doc = $3 WHERE task_id = $1', [
            doc.task_id,
            doc.status,
            jsonbText(doc),
          ]);
          count++;
        }
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      }
      return count;
    });
    if (cancelled > 0) this.logger.info(`cancelled ${cancelled} ingest task(s) no instance runs any more`);
  }

  async newId(): Promise<string> {
    for (;;) {
      const id = randomBytes(4).toString('hex');
      if (this.live.has(id)) continue;
      const { rowCount } = await this.pool.query('SELECT 1 FROM ingest_tasks WHERE task_id = $1', [id]);
      if (rowCount === 0) return id;
    }
  }

  async get(id: string): Promise<TaskDocument | undefined> {
    const mine = this.live.get(id);
    if (mine) return mine;
    const { rows } = await this.q<{ doc: TaskDocument }>('SELECT doc FROM ingest_tasks WHERE task_id = $1', [id]);
    return rows[0]?.doc;
  }

  async list(limit: number): Promise<{ total: number; tasks: TaskDocument[] }> {
    // One statement: the total and the page are read from one snapshot.
    const { rows } = await this.pool.query<{ doc: TaskDocument; total: number }>(
      `SELECT doc, count(*) OVER () AS total FROM ingest_tasks ${NEWEST_FIRST} LIMIT $1`,
      [limit],
    );
    return {
      total: Number(rows[0]?.total ?? 0), // no row on a page of ≥ 1: no task at all
      tasks: rows.map(({ doc }) => this.live.get(doc.task_id) ?? doc),
    };
  }

  add(doc: TaskDocument): Promise<void> {
    this.live.set(doc.task_id, doc);
    return this.save(doc);
  }

  /** A status change, written now; once the task finished, it is read from its row like any other. */
  override async save(doc: TaskDocument): Promise<void> {
    await super.save(doc);
    if (!isUnfinished(doc) && this.live.get(doc.task_id) === doc) this.live.delete(doc.task_id);
  }

  async remove(id: string): Promise<void> {
    if (this.closed) return;
    this.live.delete(id);
    await this.forget(id);
    await this.q('DELETE FROM ingest_tasks WHERE task_id = $1 AND owner = $2', [id, this.instanceId]);
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.maintaining;
    await this.closeWrites(this.live.values());
    this.live.clear();
  }

  /**
   * Inserts the task or updates its row — only while this instance owns it and it is unfinished: a task another
   * instance cancelled (its lease ran out) keeps that state, and this instance stops following it.
   */
  protected async persist(snapshot: TaskDocument): Promise<void> {
    const { rowCount } = await this.pool.query(
      `INSERT INTO ingest_tasks (task_id, status, submitted_at, owner, lease_expires_at, doc)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (task_id) DO UPDATE SET status = excluded.status, doc = excluded.doc,
         lease_expires_at = excluded.lease_expires_at
       WHERE ingest_tasks.owner = excluded.owner AND ingest_tasks.${UNFINISHED}`,
      [
        snapshot.task_id,
        snapshot.status,
        snapshot.submitted_at,
        this.instanceId,
        this.now() + this.lease.leaseMs,
        jsonbText(snapshot),
      ],
    );
    if (rowCount === 0 && this.live.delete(snapshot.task_id)) {
      this.logger.warn(
        { task_id: snapshot.task_id },
        'an ingest task of this instance was cancelled by another one (its lease ran out); its changes are not written',
      );
    }
  }
}
