/**
 * Runs one ingest task (CONTRACT §10.3): resolve the id, then the selected stages in order, sharing the
 * paper-access machinery (§11.5) — the per-id job when no `force_*`/`no_cache` is set, else an own fetch or
 * conversion through the same limiter and slots, writing with overwrite.
 *
 * Shutdown: when `signal` aborts, `run` returns at once without finishing the task (the task store then writes it
 * `cancelled`, §10.6); the stage in progress is not followed further and no later stage starts. The fetch or
 * conversion it was waiting for belongs to the paper-access engine, which stops it itself. The steps unwind in the
 * background, untracked, so they check the signal before every store lookup and before starting engine work:
 * nothing touches the stores or the engine once the service closed.
 */
import type { Logger } from 'pino';
import type { VersionedPreprintId } from '../../shared/ids.js';
import { rfc3339 } from '../../shared/time.js';
import type { ConvertProgress } from '../access/converter.js';
import type { FetchStepProgress } from '../access/engine.js';
import { JobFailure, storeErrorText } from '../access/failure.js';
import type { Job, MarkdownResult, PdfResult } from '../access/job.js';
import { MAX_ATTEMPTS } from '../access/preprint-fetcher.js';
import type { PaperAccess } from '../access/service.js';
import type { SlotTicket } from '../access/slots.js';
import type { PaperAssets } from '../papers/assets.js';
import { storedSha256 } from '../storage/write.js';
import { finalStatus, type Stage, type StepDocument, type TaskDocument } from './task.js';
import type { IngestTaskStore } from './task-store-port.js';

export class IngestRunner {
  constructor(
    private readonly access: PaperAccess,
    private readonly papers: PaperAssets,
    private readonly store: IngestTaskStore,
    private readonly logger: Logger,
    private readonly signal: AbortSignal,
  ) {}

  private get now(): number {
    return this.access.engine.clock.now();
  }

  private touch(task: TaskDocument): void {
    task.updated_at = rfc3339(this.now);
  }

  async run(task: TaskDocument, requested: string): Promise<void> {
    // Stopped: the task stays unfinished, and the store writes it `cancelled` as it closes.
    if (this.signal.aborted) return;
    try {
      await untilAborted(this.runSteps(task, requested), this.signal);
    } catch (err) {
      if (this.signal.aborted) return;
      this.logger.error({ err, task_id: task.task_id }, 'ingest task failed unexpectedly');
      task.status = 'failed';
      task.message = `internal error: ${(err as Error).message}`;
    }
    if (task.status === 'running') {
      task.status = finalStatus(task);
      task.message = summary(task);
    }
    task.finished_at = rfc3339(this.now);
    this.touch(task);
    await this.store.save(task);
  }

  private async runSteps(task: TaskDocument, requested: string): Promise<void> {
    task.status = 'running';
    task.started_at = rfc3339(this.now);
    task.message = `resolving ${requested}`;
    this.touch(task);
    await this.store.save(task);
    const outcome = await this.access.resolver.resolveId(requested);
    if (this.signal.aborted) return;
    if (!outcome.ok) {
      task.status = 'failed';
      task.message = `could not resolve ${requested}: ${outcome.failure.error.message}`;
      return;
    }
    const { id, defaults } = outcome.resolution;
    task.preprint_id = id.id;
    if (defaults.length > 0) {
      task.requested_id = requested;
      task.defaults_applied = [...defaults];
    }
    const ticket: SlotTicket = { submittedAt: Date.parse(task.submitted_at), id: `ingest ${task.task_id}` };
    for (const stage of task.options.stages) {
      if (this.signal.aborted) return;
      const step = task.steps[stage];
      if (stage === 'parse' && task.options.stages.includes('fetch') && task.steps.fetch.status === 'failed') {
        Object.assign(step, { status: 'skipped', message: 'skipped', error: 'skipped because fetch failed' });
        continue;
      }
      step.status = 'running';
      step.started_at = rfc3339(this.now);
      step.message = 'running';
      // A fetch starts `waiting` (§10.3): a poll between this save and the job's first update sees that, not null.
      if (stage === 'fetch')
        step.progress = fetchProgress({ phase: 'waiting', attempt: 1, bytesReceived: 0, bytesTotal: null });
      task.message = `${stage}: running`;
      this.touch(task);
      await this.store.save(task);
      try {
        if (stage === 'fetch') await this.fetch(task, step, id, ticket);
        else await this.parse(task, step, id, ticket);
        step.status = 'succeeded';
      } catch (err) {
        if (this.signal.aborted) return;
        this.fail(step, err);
      }
      step.finished_at = rfc3339(this.now);
      task.message = `${stage}: ${step.status === 'succeeded' ? step.message : step.error}`;
      this.touch(task);
      await this.store.save(task);
    }
  }

  private fail(step: StepDocument, err: unknown): void {
    step.status = 'failed';
    step.message = 'failed';
    if (err instanceof JobFailure) {
      step.error = err.kind === 'daily_limit' ? `daily_limit: ${err.message}` : err.message;
      if (err.kind === 'daily_limit' && err.extra.retryAt !== undefined)
        step.retry_after_iso = rfc3339(err.extra.retryAt);
    } else {
      step.error = (err as Error).message;
    }
  }

  private progress(task: TaskDocument, step: StepDocument, progress: Record<string, unknown>): void {
    step.progress = progress;
    this.touch(task);
    this.store.progress(task);
  }

  private async fetch(
    task: TaskDocument,
    step: StepDocument,
    id: VersionedPreprintId,
    ticket: SlotTicket,
  ): Promise<void> {
    this.signal.throwIfAborted();
    const { engine } = this.access;
    let result: PdfResult;
    if (!task.options.force_fetch) {
      const stored = await this.find(() => this.papers.findPdf(id));
      if (stored !== null) {
        step.message = 'PDF already stored; reused';
        step.progress = fetchProgress({
          phase: 'complete',
          attempt: 0,
          bytesReceived: stored.size,
          bytesTotal: stored.size,
        });
        step.result = {
          pdf_path: stored.key,
          pdf_sha256: storedSha256(stored.metadata),
          pdf_bytes: stored.size,
          reused: true,
        };
        return;
      }
      this.signal.throwIfAborted();
      result = await this.follow(task, step, engine.start(id, 'pdf'), 'fetch', (job) => job.pdfStored.promise);
    } else {
      this.progress(task, step, fetchProgress({ phase: 'waiting', attempt: 1, bytesReceived: 0, bytesTotal: null }));
      result = await engine.fetchPdf(id, {
        overwrite: true,
        ticket,
        onProgress: (p) => {
          step.attempts = p.attempt;
          this.progress(task, step, fetchProgress(p));
        },
      });
    }
    step.attempts = Math.max(step.attempts, 1);
    step.message = 'PDF stored';
    step.progress = fetchProgress({
      phase: 'complete',
      attempt: step.attempts,
      bytesReceived: result.bytes,
      bytesTotal: result.bytes,
    });
    step.result = { pdf_path: result.key, pdf_sha256: result.sha256, pdf_bytes: result.bytes, reused: result.reused };
  }

  private async parse(
    task: TaskDocument,
    step: StepDocument,
    id: VersionedPreprintId,
    ticket: SlotTicket,
  ): Promise<void> {
    this.signal.throwIfAborted();
    const { engine } = this.access;
    const { force_parse: force, no_cache: noCache } = task.options;
    if (!force) {
      const md = await this.find(() => this.papers.findMarkdown(id));
      if (md !== null) {
        const images = await this.find(() => this.papers.listImages(id));
        step.message = 'markdown already stored; reused';
        step.progress = { phase: 'complete' };
        step.result = {
          markdown_path: md.key,
          markdown_sha256: storedSha256(md.metadata),
          image_count: images.length,
          parser: 'pdfparser',
          parser_task_id: null,
          reused: true,
        };
        return;
      }
    }
    if ((await this.find(() => this.papers.findPdf(id))) === null) {
      throw new Error('no PDF stored; run the fetch stage first');
    }
    if (!engine.conversion.enabled) throw new Error(`server-side parsing unavailable: ${engine.conversion.reason}`);
    this.signal.throwIfAborted();
    let result: MarkdownResult;
    if (!force && !noCache) {
      result = await this.follow(task, step, engine.start(id, 'markdown'), 'parse', async (job) => {
        await job.finished.promise;
        return job.mdResult!;
      });
    } else {
      this.progress(task, step, { phase: 'queued', queue_position: null });
      const waiting = setInterval(() => {
        const position = engine.parserQueuePosition(ticket);
        if (position !== null) this.progress(task, step, { phase: 'queued', queue_position: position });
      }, 1000);
      waiting.unref();
      try {
        result = await engine.convert(id, {
          overwrite: force,
          noCache,
          ticket,
          onSlot: () => clearInterval(waiting),
          onProgress: (p) => {
            step.attempts = p.submissions;
            this.progress(task, step, parseProgress(p));
          },
        });
      } finally {
        clearInterval(waiting);
      }
    }
    step.attempts = Math.max(step.attempts, 1);
    step.message = 'markdown stored';
    step.progress = { phase: 'complete' };
    step.result = {
      markdown_path: result.key,
      markdown_sha256: result.sha256,
      image_count: result.imageCount,
      parser: 'pdfparser',
      parser_task_id: result.parserTaskId,
      reused: result.reused,
    };
  }

  /** Follows a shared job: its progress goes into the step until `settled` resolves or rejects. */
  private async follow<T>(
    task: TaskDocument,
    step: StepDocument,
    job: Job,
    stage: Stage,
    settled: (job: Job) => Promise<T>,
  ): Promise<T> {
    const update = () => {
      if (stage === 'fetch') {
        const f = job.fetch;
        step.attempts = f?.attempts ?? step.attempts;
        this.progress(
          task,
          step,
          fetchProgress({
            phase: job.pdfReady ? 'complete' : job.state === 'running' ? 'download' : 'waiting',
            attempt: Math.max(1, f?.attempts ?? 1),
            bytesReceived: f?.bytes_received ?? 0,
            bytesTotal: f?.bytes_total ?? null,
          }),
        );
      } else if (job.waitingForParser || job.phase !== 'converting_md') {
        this.progress(task, step, {
          phase: 'queued',
          queue_position: this.access.engine.queueView(job)?.position ?? null,
        });
      } else if (job.convert) {
        step.attempts = job.convert.submissions;
        this.progress(task, step, {
          phase: convertPhase(job.convert.stage),
          parser_task_id: job.convert.parser_task_id,
          polled_count: job.convert.polled_count,
          extracted_pages: job.convert.extracted_pages,
          total_pages: job.convert.total_pages,
          queue_position: null,
        });
      }
    };
    const stop = job.observe(update);
    update();
    try {
      return await settled(job);
    } finally {
      stop();
    }
  }

  /** A store lookup; none starts once the task is stopped. */
  private async find<T>(fn: () => Promise<T>): Promise<T> {
    this.signal.throwIfAborted();
    try {
      return await fn();
    } catch (err) {
      throw new JobFailure('retryable', 'fetch', storeErrorText(err));
    }
  }
}

/** `work`, or a rejection with the signal's reason as soon as `signal` aborts (the work itself goes on). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

const convertPhase = (stage: string) => (stage === 'pending' ? 'running' : stage);

function fetchProgress(p: FetchStepProgress): Record<string, unknown> {
  return {
    phase: p.phase,
    attempt: p.attempt,
    max_attempts: MAX_ATTEMPTS,
    bytes_downloaded: p.bytesReceived,
    bytes_total: p.bytesTotal,
    percent: p.bytesTotal ? Math.min(1, p.bytesReceived / p.bytesTotal) : null,
  };
}

function parseProgress(p: ConvertProgress): Record<string, unknown> {
  return {
    phase: convertPhase(p.stage),
    parser_task_id: p.parserTaskId,
    polled_count: p.polledCount,
    extracted_pages: p.extractedPages,
    total_pages: p.totalPages,
    queue_position: null,
  };
}

/** The final task message. */
function summary(task: TaskDocument): string {
  const failures = task.options.stages
    .filter((s) => task.steps[s].status === 'failed')
    .map((s) => `${s}: ${task.steps[s].error}`);
  if (task.status === 'succeeded') return `ingest succeeded (${task.options.stages.join(', ')})`;
  return `ingest ${task.status}: ${failures.join('; ')}`;
}
