/**
 * Ingest task persistence (CONTRACT §10.6): one JSON file per task under `<SVC_DATA_DIR>/ingests/`, written
 * atomically (temp file + rename) on every status change and at most once per second for progress. At start,
 * tasks found `queued` or `running` become `cancelled`, and only the newest 1000 task files are kept.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { rfc3339 } from '../../shared/time.js';
import { RESTART_MESSAGE, type TaskDocument } from './task.js';

export const KEEP_TASKS = 1000;
const PROGRESS_INTERVAL_MS = 1000;
const TASK_FILE = /^([0-9a-f]{8})\.json$/;

/** Newest `submitted_at` first; ties by task id, descending. */
const newestFirst = (a: TaskDocument, b: TaskDocument): number =>
  a.submitted_at < b.submitted_at ? 1 : a.submitted_at > b.submitted_at ? -1 : a.task_id < b.task_id ? 1 : -1;

interface Persisted {
  /** The write chain: one file write at a time per task, in order. */
  chain: Promise<void>;
  lastWrite: number;
  timer: NodeJS.Timeout | null;
}

export class TaskStore {
  private readonly tasks = new Map<string, TaskDocument>();
  private readonly persisted = new Map<string, Persisted>();
  private closed = false;

  constructor(
    readonly dir: string,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Loads the task files: unfinished ones become `cancelled`; beyond the newest 1000, files are deleted. */
  async open(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const loaded: TaskDocument[] = [];
    for (const name of await readdir(this.dir)) {
      const m = TASK_FILE.exec(name);
      if (!m) {
        if (name.includes('.tmp-')) await rm(path.join(this.dir, name), { force: true });
        continue;
      }
      try {
        const doc = JSON.parse(await readFile(path.join(this.dir, name), 'utf8')) as TaskDocument;
        if (doc.task_id === m[1]) loaded.push(doc);
      } catch (err) {
        this.logger.warn({ file: name, err: (err as Error).message }, 'skipping an unreadable ingest task file');
      }
    }
    loaded.sort(newestFirst);
    for (const old of loaded.splice(KEEP_TASKS)) await rm(path.join(this.dir, `${old.task_id}.json`), { force: true });
    for (const doc of loaded) {
      this.tasks.set(doc.task_id, doc);
      if (doc.status === 'queued' || doc.status === 'running') {
        this.cancel(doc);
        await this.save(doc);
      }
    }
  }

  /** Marks an unfinished task `cancelled` (restart or shutdown); a running step ends `failed`. */
  private cancel(doc: TaskDocument): void {
    const at = rfc3339(this.now());
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

  /** A fresh 8-hex task id, unused here. */
  newId(): string {
    for (;;) {
      const id = randomBytes(4).toString('hex');
      if (!this.tasks.has(id)) return id;
    }
  }

  get(id: string): TaskDocument | undefined {
    return this.tasks.get(id);
  }

  /** Every task, newest `submitted_at` first. */
  all(): TaskDocument[] {
    return [...this.tasks.values()].sort(newestFirst);
  }

  get size(): number {
    return this.tasks.size;
  }

  add(doc: TaskDocument): Promise<void> {
    this.tasks.set(doc.task_id, doc);
    return this.save(doc);
  }

  /** Forgets a task just added (a submission refused after all) and removes its file. */
  async remove(id: string): Promise<void> {
    if (this.closed) return;
    this.tasks.delete(id);
    const p = this.persisted.get(id);
    if (p) {
      if (p.timer) clearTimeout(p.timer);
      await p.chain;
      this.persisted.delete(id);
    }
    await rm(path.join(this.dir, `${id}.json`), { force: true });
  }

  /** A status change: written now. */
  save(doc: TaskDocument): Promise<void> {
    if (this.closed) return Promise.resolve();
    const p = this.entry(doc.task_id);
    if (p.timer) {
      clearTimeout(p.timer);
      p.timer = null;
    }
    return this.write(doc, p);
  }

  /** A progress change: written at most once per second. */
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

  /** Shutdown (§1.4 step 7): unfinished tasks become `cancelled`; later changes are not written. */
  async close(): Promise<void> {
    const pending: Promise<void>[] = [];
    for (const doc of this.tasks.values()) {
      if (doc.status === 'queued' || doc.status === 'running') {
        this.cancel(doc);
        pending.push(this.write(doc, this.entry(doc.task_id)));
      }
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
    const text = JSON.stringify(doc, null, 2);
    const target = path.join(this.dir, `${doc.task_id}.json`);
    p.lastWrite = this.now();
    p.chain = p.chain.then(async () => {
      const tmp = `${target}.tmp-${randomBytes(6).toString('hex')}`;
      try {
        await writeFile(tmp, text);
        await rename(tmp, target);
      } catch (err) {
        await rm(tmp, { force: true }).catch(() => undefined);
        this.logger.error({ err, task_id: doc.task_id }, 'could not write an ingest task file');
      }
    });
    return p.chain;
  }
}
