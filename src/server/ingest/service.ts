/**
 * Ingest tasks (CONTRACT §10): submit, continue, read, list, and the stage catalogue. Tasks start at once in
 * submission order; their concurrency is bounded only by the shared fetch and parser slots.
 */
import type { Logger } from 'pino';
import { ConflictError, InvalidInputError, NotFoundError, UnavailableError } from '../../shared/domain-errors.js';
import { parsePreprintId } from '../../shared/ids.js';
import { rfc3339 } from '../../shared/time.js';
import type { PaperAccess } from '../access/service.js';
import type { PaperAssets } from '../papers/assets.js';
import { IngestRunner } from './runner.js';
import { PARSERS, pendingStep, remainingStages, selectStages, STAGES, type Stage, type TaskDocument } from './task.js';
import type { IngestTaskStore } from './task-store-port.js';

/** Submit fields (§10.1) after schema validation; `preprint_id` only on submit. */
export interface IngestOptionsInput {
  readonly parser?: string;
  readonly stop_after?: Stage;
  readonly stages?: readonly Stage[];
  readonly force_fetch?: boolean;
  readonly force_parse?: boolean;
  readonly no_cache?: boolean;
}

export interface Accepted {
  readonly task_id: string;
  readonly status: 'queued';
  readonly message: string;
  readonly status_url: string;
}

export const STAGE_CATALOGUE = {
  order: [...STAGES],
  stages: [
    { name: 'fetch', description: 'download the PDF from arXiv into the pdf bucket', can_stop_after: true },
    {
      name: 'parse',
      description: 'convert the stored PDF to markdown and images with the MinerU cloud API',
      can_stop_after: true,
    },
  ],
  parsers: [...PARSERS],
  default_parser: 'pdfparser',
  controls: {
    stop_after: 'run stages up to and including this one',
    stages: 'explicit list of stages to run',
    force_fetch: 're-download even if stored',
    force_parse: 're-convert even if stored',
    no_cache: "bypass the parser provider's cache",
    continue: 'POST /api/ingest/{task_id}/continue runs the remaining stages',
  },
} as const;

export const MAX_LIST = 500;
const SHUTTING_DOWN = 'server is shutting down; submit the task again once it is back';

function checkParser(parser: string | undefined): string {
  const value = parser ?? 'pdfparser';
  if (!(PARSERS as readonly string[]).includes(value)) {
    throw new InvalidInputError(`unsupported parser '${value}'; only 'pdfparser' is available`);
  }
  return value;
}

export class IngestService {
  private readonly runner: IngestRunner;
  private readonly running = new Set<Promise<void>>();
  /** Aborted by `close()`: running tasks stop, new ones are refused. */
  private readonly stopping = new AbortController();

  constructor(
    private readonly store: IngestTaskStore,
    access: PaperAccess,
    papers: PaperAssets,
    logger: Logger,
    private readonly now: () => number,
  ) {
    this.runner = new IngestRunner(access, papers, store, logger, this.stopping.signal);
  }

  /** `POST /api/ingest/paper`. */
  async submit(preprintId: string, input: IngestOptionsInput, requester: string): Promise<Accepted> {
    if (parsePreprintId(preprintId) === null) {
      throw new InvalidInputError(`invalid preprint_id: ${JSON.stringify(preprintId)}`);
    }
    const parser = checkParser(input.parser);
    if (input.stages !== undefined && input.stages.length === 0)
      throw new InvalidInputError('no ingest stages selected');
    const stages = selectStages(input.stages ?? null, input.stop_after ?? null);
    const task = await this.create(preprintId, requester, {
      parser,
      stages,
      stop_after: input.stop_after ?? null,
      force_fetch: input.force_fetch ?? false,
      force_parse: input.force_parse ?? false,
      no_cache: input.no_cache ?? false,
      source_task_id: null,
    });
    await this.start(task, preprintId);
    return accepted(task.task_id, 'ingest queued');
  }

  /** `POST /api/ingest/{task_id}/continue` (§10.4). */
  async continueTask(sourceId: string, input: IngestOptionsInput, requester: string): Promise<Accepted> {
    const source = await this.get(sourceId);
    if (source.status === 'queued' || source.status === 'running') {
      throw new ConflictError(`task ${sourceId} is still running`);
    }
    const parser = checkParser(input.parser ?? source.options.parser);
    const stopAfter = input.stop_after ?? source.options.stop_after;
    let stages: Stage[];
    if (input.stages !== undefined) {
      if (input.stages.length === 0) throw new InvalidInputError('no ingest stages selected');
      stages = selectStages(input.stages, null);
    } else {
      stages = remainingStages(source, stopAfter);
    }
    if (stages.length === 0) throw new InvalidInputError(`no ingest stages remaining for task ${sourceId}`);
    const requested = source.preprint_id;
    const task = await this.create(requested, requester, {
      parser,
      stages,
      stop_after: stopAfter,
      force_fetch: input.force_fetch ?? source.options.force_fetch,
      force_parse: input.force_parse ?? source.options.force_parse,
      no_cache: input.no_cache ?? source.options.no_cache,
      source_task_id: source.task_id,
    });
    await this.start(task, requested);
    return accepted(task.task_id, 'ingest continuation queued');
  }

  async get(taskId: string): Promise<TaskDocument> {
    const task = await this.store.get(taskId);
    if (!task) throw new NotFoundError('ingest task not found');
    return task;
  }

  /** `GET /api/ingests` (limit already clamped to 1..500). */
  list(limit: number): Promise<{ total: number; tasks: TaskDocument[] }> {
    return this.store.list(limit);
  }

  /** Tasks running in this process now. */
  get runningTasks(): number {
    return this.running.size;
  }

  /** Waits for the tasks started so far (tests, shutdown). */
  async idle(): Promise<void> {
    await Promise.all([...this.running]);
  }

  /**
   * Shutdown (§1.4 step 7): running tasks stop following their work (the paper-access engine aborts that work
   * itself), then every unfinished task is written `cancelled` and nothing more is written.
   */
  async close(): Promise<void> {
    this.stopping.abort(new Error(SHUTTING_DOWN));
    await this.idle();
    await this.store.close();
  }

  private async create(requested: string, requester: string, options: TaskDocument['options']): Promise<TaskDocument> {
    const id = await this.store.newId();
    const at = rfc3339(this.now());
    return {
      task_id: id,
      preprint_id: requested,
      status: 'queued',
      message: `ingest queued; poll GET /api/ingest/${id}`,
      requester,
      options,
      steps: {
        fetch: pendingStep(options.stages.includes('fetch')),
        parse: pendingStep(options.stages.includes('parse')),
      },
      submitted_at: at,
      started_at: null,
      finished_at: null,
      updated_at: at,
    };
  }

  /**
   * Stores `task` and runs it. A submission that raced the shutdown is refused (503) rather than accepted and
   * never run: before the store write, and again after it — then the task is forgotten, its record removed. The run
   * is registered before the write, so a `close()` meanwhile waits for this submission too.
   */
  private async start(task: TaskDocument, requested: string): Promise<void> {
    if (this.stopping.signal.aborted) throw shuttingDown();
    const admitted = this.store.add(task).then(async () => {
      if (!this.stopping.signal.aborted) return true;
      await this.store.remove(task.task_id);
      return false;
    });
    const run: Promise<void> = admitted
      .then(
        (ok) => (ok ? this.runner.run(task, requested) : undefined),
        () => undefined, // the submitter gets the failure
      )
      .finally(() => this.running.delete(run));
    this.running.add(run);
    if (!(await admitted)) throw shuttingDown();
  }
}

const shuttingDown = () => new UnavailableError(SHUTTING_DOWN, { retryAfterSeconds: 5 });

function accepted(taskId: string, what: string): Accepted {
  return {
    task_id: taskId,
    status: 'queued',
    message: `${what}; poll GET /api/ingest/${taskId}`,
    status_url: `/api/ingest/${taskId}`,
  };
}
