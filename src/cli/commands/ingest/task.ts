/** Submitting an ingest request and following its task to a terminal status (CONTRACT §10, §16.3). */
import type { IngestAccepted, IngestTask } from '../../../shared/api/ingest.js';
import type { CliContext } from '../../context.js';
import { EXIT } from '../../errors.js';
import { stderrProgress } from '../../progress/line.js';
import type { IngestRunOptions } from './options.js';

const TERMINAL_OK = new Set(['succeeded']);
const TERMINAL_FAILED = new Set(['failed', 'partial', 'cancelled']);

/** POSTs `path` with `body`; then prints the 202 answer (`--no-poll`) or follows the task. */
export async function submitAndFollow(
  ctx: CliContext,
  path: string,
  body: Record<string, unknown>,
  options: IngestRunOptions,
): Promise<number> {
  const api = ctx.api({ timeoutMs: options.requestTimeoutMs });
  const { body: accepted } = await api.json<IngestAccepted>('POST', path, { kind: 'write', ok: [200, 202], body });
  if (!options.poll) {
    ctx.io.stdout(`${JSON.stringify(accepted, null, 2)}\n`);
    return EXIT.ok;
  }
  return followTask(ctx, accepted.task_id, options);
}

/** Polls `GET /api/ingest/<id>` every interval until a terminal status or the timeout. */
export async function followTask(ctx: CliContext, taskId: string, options: IngestRunOptions): Promise<number> {
  const api = ctx.api({ timeoutMs: options.requestTimeoutMs });
  const progress = stderrProgress(ctx.io, options.quietProgress);
  const started = Date.now();
  let last: IngestTask | null = null;
  for (;;) {
    const answer = await api
      .json<IngestTask>('GET', `/api/ingest/${encodeURIComponent(taskId)}`, { ok: [200] })
      .catch((err: unknown) => {
        progress.end(); // the error is printed below the last progress line, not over it
        throw err;
      });
    last = answer.body;
    progress.eventOnChange(describeTask(taskId, last));
    const status = last.status ?? '';
    if (TERMINAL_OK.has(status) || TERMINAL_FAILED.has(status)) {
      progress.end();
      ctx.io.stdout(`${JSON.stringify(last, null, 2)}\n`);
      return TERMINAL_OK.has(status) ? EXIT.ok : EXIT.failure;
    }
    const remaining = options.timeoutS * 1000 - (Date.now() - started);
    if (remaining <= 0) break;
    await ctx.sleep(Math.min(options.pollIntervalS * 1000, remaining));
  }
  progress.end();
  ctx.io.stderr(`Timed out waiting for ingest task ${taskId}\n`);
  ctx.io.stdout(`${JSON.stringify(last, null, 2)}\n`);
  return EXIT.failure;
}

/** `ingest 3f9a1c2b: running — parse: converting (fetch succeeded; parse running 3/12 pages)`. */
export function describeTask(taskId: string, task: IngestTask): string {
  const steps = Object.entries(task.steps ?? {})
    .filter(([, step]) => step.status !== 'skipped')
    .map(([name, step]) => `${name} ${step.status ?? '?'}${stepDetail(step.progress ?? null)}`);
  const message = task.message ? ` — ${task.message}` : '';
  return `ingest ${taskId}: ${task.status ?? '?'}${message}${steps.length > 0 ? ` (${steps.join('; ')})` : ''}`;
}

function stepDetail(progress: Record<string, unknown> | null): string {
  if (!progress) return '';
  const num = (key: string) => (typeof progress[key] === 'number' ? (progress[key] as number) : null);
  const got = num('bytes_downloaded');
  if (got !== null && got > 0) {
    const total = num('bytes_total');
    return total ? ` ${got}/${total}B` : ` ${got}B`;
  }
  const pages = num('extracted_pages');
  if (pages !== null) return ` ${pages}/${num('total_pages') ?? '?'} pages`;
  return '';
}
