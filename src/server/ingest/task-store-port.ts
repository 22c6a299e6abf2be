/**
 * The ingest task-store port (CONTRACT §10.6, §21) and what both adapters share. Tasks are files under
 * `<SVC_DATA_DIR>/ingests/` on the embedded server (`task-store.ts`) and rows of the user database in cluster mode
 * (`../db/postgres-task-store.ts`). Either way a status change is written at once and progress at most once per
 * second, one write at a time per task, in order; at start, tasks no running process will finish become
 * `cancelled`; only the newest 1000 tasks are kept.
 */
import type { Logger } from 'pino';
import { rfc3339 } from '../../shared/time.js';
import { RESTART_MESSAGE, type TaskDocument } from './task.js';

export const KEEP_TASKS = 1000;
const PROGRESS_INTERVAL_MS = 1000;

export interface IngestTaskStore {
  readonly backend: 'file' | 'postgres';
  /** Start: cancels the unfinished tasks no process runs any more and keeps only the newest 1000. */
  open(): Promise<void>;
  /** A fresh 8-hex task id, unused in the store. */
  newId(): Promise<string>;
  get(id: string): Promise<TaskDocument | undefined>;
  /** The newest `limit` (≥ 1) tasks (newest `submitted_at` first) and how many there are. */
  list(limit: number): Promise<{ total: number; tasks: TaskDocument[] }>;
  /** A new task: written now. */
  add(doc: TaskDocument): Promise<void>;
  /** Forgets a task just added (a submission refused after all). */
  remove(id: string): Promise<void>;
  /** A status change: written now. */
  save(doc: TaskDocument): Promise<void>;
  /** A progress change: written at most once per second. */
  progress(doc: TaskDocument): void;
  /** Shutdown (§1.4 step 7): this process's unfinished tasks become `cancelled`; later changes are not written. */
  close(): Promise<void>;
}

/** Newest `submitted_at` first; ties by task id, descending. */
export const newestFirst = (a: TaskDocument, b: TaskDocument): number =>
  a.submitted_at < b.submitted_at ? 1 : a.submitted_at > b.submitted_at ? -1 : a.task_id < b.task_id ? 1 : -1;

export const isUnfinished = (doc: TaskDocument): boolean => doc.status === 'queued' || doc.status === 'running';

/** Marks an unfinished task `cancelled` (restart, shutdown or a lost owner); a running step ends `failed`. */
export function cancelTask(doc: TaskDocument, now: number): void {
  const at = rfc3339(now);
  doc.status = 'cancelled';
  doc.message = RESTART_MESSAGE;
  doc.finished_at = at;
  doc.updated_at = at;
  for (const step of Object.values(doc.steps)) {
    if (step.status !== 'running') continue;
    step.status = 'failed';
    step.error = 'server stopped while the step ran';
    step.message = 'interrupted';
    step.finished_at = at;
  }
}

interface Persisted {
  /** The write chain: one write at a time per task, in order. */
  chain: Promise<void>;
  lastWrite: number;
  timer: NodeJS.Timeout | null;
}

/**
 * The write discipline both adapters share: `save` writes now, `progress` at most once per second, each task's
 * writes chained in order, each one a snapshot of the document as it was when the write was asked for. A failed
 * write is logged; the task goes on.
 */
export abstract class ThrottledTaskWrites {
  private readonly persisted = new Map<string, Persisted>();
  protected closed = false;

  constructor(
    protected readonly logger: Logger,
    protected readonly now: () => number,
  ) {}

  /** Writes one snapshot of a task. */
  protected abstract persist(snapshot: TaskDocument): Promise<void>;

  save(doc: TaskDocument): Promise<void> {
    if (this.closed) return Promise.resolve();
    const p = this.entry(doc.task_id);
    if (p.timer) {
      clearTimeout(p.timer);
      p.timer = null;
    }
    return this.write(doc, p);
  }

  progress(doc: TaskDocument): void {
    if (this.closed) return;
    const p = this.entry(doc.task_id);
    if (p.timer) return;
    const wait = Math.max(0, p.lastWrite + PROGRESS_INTERVAL_MS - this.now());
    p.timer = setTimeout(() => {
      p.timer = null;
      void this.write(doc, p);
    }, wait);
    p.timer.unref();
  }

  /** Drops a task's pending progress write and waits for its writes under way. */
  protected async forget(id: string): Promise<void> {
    const p = this.persisted.get(id);
    if (!p) return;
    if (p.timer) clearTimeout(p.timer);
    await p.chain;
    this.persisted.delete(id);
  }

  /** Shutdown: `unfinished` tasks are written `cancelled`, then nothing more is written. */
  protected async closeWrites(unfinished: Iterable<TaskDocument>): Promise<void> {
    const pending: Promise<void>[] = [];
    for (const doc of unfinished) {
      if (!isUnfinished(doc)) continue;
      cancelTask(doc, this.now());
      pending.push(this.write(doc, this.entry(doc.task_id)));
    }
    this.closed = true;
    for (const p of this.persisted.values()) if (p.timer) clearTimeout(p.timer);
    await Promise.all([...pending, ...[...this.persisted.values()].map((p) => p.chain)]);
  }

  private entry(id: string): Persisted {
    let p = this.persisted.get(id);
    if (!p) {
      p = { chain: Promise.resolve(), lastWrite: 0, timer: null };
      this.persisted.set(id, p);
    }
    return p;
  }

  private write(doc: TaskDocument, p: Persisted): Promise<void> {
    const snapshot = structuredClone(doc);
    p.lastWrite = this.now();
    p.chain = p.chain.then(() =>
      this.persist(snapshot).catch((err: unknown) => {
        this.logger.error({ err, task_id: doc.task_id }, 'could not write an ingest task');
      }),
    );
    return p.chain;
  }
}
