import type { RegistryJob, RegistryJobs } from '../../../shared/api/registry.js';
import type { CliContext } from '../../context.js';
import { EXIT } from '../../errors.js';
import { formatBytes } from '../../progress/line.js';
import { fit } from '../../text.js';
import { defineAction, type RegisterCommand } from '../host.js';
import { parsePositiveNumber } from '../options.js';
import { addRegistryOptions, printJson, registryOptions } from './registry.js';

interface JobsInput {
  readonly watch: boolean;
  readonly intervalS: number;
  readonly json: boolean;
  readonly timeoutMs: number;
}

/** Minimum pause between two polls of `--watch`. */
const MIN_INTERVAL_S = 1;
const HEADERS = ['ID', 'KIND', 'STATE', 'PHASE', 'PROGRESS', 'QUEUE', 'ETA'] as const;

/**
 * `pks paper jobs [--watch]`: the paper-access jobs the server holds (CONTRACT §16.8, `GET /api/papers/jobs`).
 * `--watch` polls until no job is queued or running: on a terminal the table is redrawn in place; elsewhere a
 * new table (with `--json`, one JSON line) is printed each time the answer changes.
 */
export const registerPaperJobs: RegisterCommand = (parent, host) => {
  addRegistryOptions(
    parent
      .command('jobs')
      .description('list the fetch and conversion jobs of the server (id, kind, phase, progress, queue, ETA)')
      .option('--watch', 'keep polling until no job is queued or running')
      .option('--interval <seconds>', `seconds between polls with --watch (at least ${MIN_INTERVAL_S})`, '2'),
  ).action(
    defineAction(
      host,
      (_args, o): JobsInput => ({
        watch: o['watch'] === true,
        intervalS: Math.max(MIN_INTERVAL_S, parsePositiveNumber('--interval', o['interval'] as string)),
        ...registryOptions(o),
      }),
      (ctx, input) => (input.watch ? watchJobs(ctx, input) : listJobs(ctx, input)),
    ),
  );
};

async function listJobs(ctx: CliContext, input: JobsInput): Promise<number> {
  const { body } = await ctx
    .api({ timeoutMs: input.timeoutMs })
    .json<RegistryJobs>('GET', '/api/papers/jobs', { ok: [200] });
  if (input.json) printJson(ctx.io, body);
  else ctx.io.stdout(renderJobs(body, null));
  return EXIT.ok;
}

async function watchJobs(ctx: CliContext, input: JobsInput): Promise<number> {
  const { io } = ctx;
  const api = ctx.api({ timeoutMs: input.timeoutMs });
  const stop = new AbortController();
  const unsubscribe = ctx.onSignal(() => stop.abort(new Error('interrupted')));
  // Redrawn in place only on a terminal the client may draw on; a JSON stream is never redrawn.
  const redraw = io.stdoutIsTTY && io.stdoutControl !== undefined && !input.json ? io.stdoutControl : null;
  let shownLines = 0;
  let last = '';
  try {
    for (;;) {
      const { body } = await api.json<RegistryJobs>('GET', '/api/papers/jobs', { ok: [200], signal: stop.signal });
      if (redraw) {
        const frame = renderJobs(body, io.columns());
        if (shownLines > 0) redraw(`\x1b[${shownLines}F\x1b[J`);
        io.stdout(frame);
        shownLines = frame.split('\n').length - 1;
      } else {
        const frame = input.json ? `${JSON.stringify(body)}\n` : renderJobs(body, null);
        if (frame !== last) io.stdout(last === '' || input.json ? frame : `\n${frame}`);
        last = frame;
      }
      if (!body.jobs.some(isActive)) return EXIT.ok;
      await ctx.sleep(input.intervalS * 1000, stop.signal);
    }
  } catch (err) {
    if (stop.signal.aborted) return EXIT.interrupted;
    throw err;
  } finally {
    unsubscribe();
  }
}

const isActive = (job: RegistryJob): boolean => job.state === 'queued' || job.state === 'running';

/** `<queued> queued, <running> running` and the table (rows cut to `width` on a terminal), or `No jobs.`. */
export function renderJobs(answer: RegistryJobs, width: number | null): string {
  const summary = `${answer.queued} queued, ${answer.running} running`;
  if (answer.jobs.length === 0) return `No jobs. (${summary})\n`;
  const rows = [
    [...HEADERS],
    ...answer.jobs.map((job) => [
      job.preprint_id,
      job.asset,
      job.state,
      job.phase || '-',
      progressOf(job),
      job.queue?.position ? `#${job.queue.position}` : '-',
      job.queue?.eta_seconds ? duration(job.queue.eta_seconds) : '-',
    ]),
  ];
  const widths = HEADERS.map((_, i) => Math.max(...rows.map((row) => Array.from(row[i]!).length)));
  const lines = rows.map((row) =>
    row
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd(),
  );
  return [summary, ...lines].map((line) => (width === null ? line : fit(line, width - 1))).join('\n') + '\n';
}

/** Bytes fetched (of the total when known) while fetching; stage and pages while converting. */
function progressOf(job: RegistryJob): string {
  if (job.phase === 'fetching_pdf' && job.fetch) {
    const { bytes_received: got, bytes_total: total } = job.fetch;
    return total ? `${formatBytes(got)} / ${formatBytes(total)}` : formatBytes(got);
  }
  if (job.phase === 'converting_md' && job.convert) {
    const { stage, extracted_pages: done, total_pages: total } = job.convert;
    return total ? `${stage} ${done ?? 0}/${total} pages` : stage;
  }
  return '-';
}

/** `190` → `3m10s`; `45` → `45s`; `3725` → `1h02m`. */
export function duration(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}
