/**
 * Issue 20, in the ingest service itself: what a shutdown racing a submission or a task's next step leaves behind.
 * A store whose writes a test holds makes each race happen every time: a submission whose task write is under way
 * when `close()` begins is refused (503) and leaves no task; a task stopped while its step's status write was under
 * way touches neither the paper stores nor the engine afterwards.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parsePreprintId, type VersionedPreprintId } from '../../../src/shared/ids.js';
import { createLogger } from '../../../src/server/logger.js';
import { IngestService } from '../../../src/server/ingest/service.js';
import type { TaskDocument } from '../../../src/server/ingest/task.js';
import { TaskStore } from '../../../src/server/ingest/task-store.js';
import type { PaperAssets } from '../../../src/server/papers/assets.js';
import { LogCapture } from '../../support/server.js';
import { Gate } from '../../support/upstreams/http-double.js';
import { until } from '../access/support/clocks.js';
import { addPaper } from '../access/support/papers.js';
import { startAccessStack, stopAccessStack, type AccessStack } from '../access/support/server.js';

/** A real task store whose writes a test can hold. */
class GatedStore extends TaskStore {
  /** Holds `add` after the task is registered and its file write began. */
  readonly addGate = new Gate();
  /** Holds the status write of a task whose fetch step just started. */
  readonly fetchStepGate = new Gate();

  override async add(doc: TaskDocument): Promise<void> {
    const written = super.add(doc);
    await this.addGate.pass();
    return written;
  }

  override async save(doc: TaskDocument): Promise<void> {
    if (doc.steps.fetch.status === 'running') await this.fetchStepGate.pass();
    return super.save(doc);
  }
}

let stack: AccessStack;
const dirs: string[] = [];
beforeAll(async () => {
  stack = await startAccessStack();
});
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});
afterAll(() => stopAccessStack(stack));

/** An ingest service on a gated store in a fresh directory; `lookups` records every call into the paper stores. */
async function gatedService(): Promise<{ service: IngestService; store: GatedStore; lookups: string[] }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pksd-ingest-race-'));
  dirs.push(dir);
  const logger = createLogger('warn', new LogCapture());
  const store = new GatedStore(path.join(dir, 'ingests'), logger);
  await store.open();
  const lookups: string[] = [];
  const papers = new Proxy(stack.s.papers, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        lookups.push(String(key));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  }) as PaperAssets;
  return { service: new IngestService(store, stack.s.access, papers, logger, Date.now), store, lookups };
}

describe('shutdown racing ingest work', () => {
  it('a submission whose task write is under way when close() begins: 503, no task, no file', async () => {
    addPaper(stack.d.arxiv, '2511.00001');
    const { service, store, lookups } = await gatedService();
    store.addGate.close();
    const refused = expect(service.submit('2511.00001v1', { stop_after: 'fetch' }, 'alice')).rejects.toMatchObject({
      kind: 'unavailable',
      message: 'server is shutting down; submit the task again once it is back',
      retryAfterSeconds: 5,
    });
    await until('the task write to be held', () => store.addGate.held === 1);
    const closing = service.close();
    store.addGate.open();
    await refused;
    await closing;
    expect(store.all()).toEqual([]);
    expect(await readdir(store.dir)).toEqual([]);
    expect(lookups).toEqual([]);
  });

  it('a task stopped while its fetch step was being written: no store lookup, no engine job after close()', async () => {
    addPaper(stack.d.arxiv, '2511.00002');
    const { service, store, lookups } = await gatedService();
    store.fetchStepGate.close();
    const { task_id: taskId } = await service.submit('2511.00002v1', { stop_after: 'fetch' }, 'alice');
    await until('the fetch step write to be held', () => store.fetchStepGate.held === 1);
    await service.close();
    store.fetchStepGate.open();
    // The released write resolves through promise callbacks only: once the next macrotask runs, the abandoned steps
    // have gone as far as they ever will.
    await new Promise((resolve) => setImmediate(resolve));
    expect(lookups).toEqual([]);
    expect(stack.s.access.engine.job(parsePreprintId('2511.00002v1') as VersionedPreprintId)).toBeUndefined();
    expect(stack.d.arxiv.requestsTo('pdf').filter((r) => r.url.includes('2511.00002'))).toEqual([]);
    const stored = JSON.parse(await readFile(path.join(store.dir, `${taskId}.json`), 'utf8')) as TaskDocument;
    expect(stored).toMatchObject({
      status: 'cancelled',
      message: 'server restarted before the task finished; use continue',
      steps: { fetch: { status: 'failed', error: 'server stopped while the step ran' } },
    });
  });
});
