/**
 * The file adapter of the ingest task store (CONTRACT §10.6): one JSON file per task under
 * `<SVC_DATA_DIR>/ingests/`, written atomically (temp file + rename). One process owns a data directory
 * (`pksd.lock`), so at start every task found `queued` or `running` becomes `cancelled`, and only the newest 1000
 * task files are kept. The tasks are held in memory; the files are read only at start.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { TaskDocument } from './task.js';
import {
  cancelTask,
  isUnfinished,
  KEEP_TASKS,
  newestFirst,
  ThrottledTaskWrites,
  type IngestTaskStore,
} from './task-store-port.js';

const TASK_FILE = /^([0-9a-f]{8})\.json$/;

export class TaskStore extends ThrottledTaskWrites implements IngestTaskStore {
  readonly backend = 'file' as const;
  private readonly tasks = new Map<string, TaskDocument>();

  constructor(
    readonly dir: string,
    logger: Logger,
    now: () => number = Date.now,
  ) {
    super(logger, now);
  }

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
      if (isUnfinished(doc)) {
        cancelTask(doc, this.now());
        await this.save(doc);
      }
    }
  }

  async newId(): Promise<string> {
    for (;;) {
      const id = randomBytes(4).toString('hex');
      if (!this.tasks.has(id)) return id;
    }
  }

  async get(id: string): Promise<TaskDocument | undefined> {
    return this.tasks.get(id);
  }

  /** Every task, newest `submitted_at` first. */
  all(): TaskDocument[] {
    return [...this.tasks.values()].sort(newestFirst);
  }

  async list(limit: number): Promise<{ total: number; tasks: TaskDocument[] }> {
    const all = this.all();
    return { total: all.length, tasks: all.slice(0, limit) };
  }

  add(doc: TaskDocument): Promise<void> {
    this.tasks.set(doc.task_id, doc);
    return this.save(doc);
  }

  async remove(id: string): Promise<void> {
    if (this.closed) return;
    this.tasks.delete(id);
    await this.forget(id);
    await rm(path.join(this.dir, `${id}.json`), { force: true });
  }

  close(): Promise<void> {
    return this.closeWrites(this.tasks.values());
  }

  protected async persist(snapshot: TaskDocument): Promise<void> {
    const target = path.join(this.dir, `${snapshot.task_id}.json`);
    const tmp = `${target}.tmp-${randomBytes(6).toString('hex')}`;
    try {
      await writeFile(tmp, JSON.stringify(snapshot, null, 2));
      await rename(tmp, target);
    } catch (err) {
      await rm(tmp, { force: true }).catch(() => undefined);
      throw err;
    }
  }
}
