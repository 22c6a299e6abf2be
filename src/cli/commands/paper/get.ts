import type { JobSnapshot } from '../../../shared/api/jobs.js';
import { EXIT, TransportError, UsageError } from '../../errors.js';
import type { CliContext } from '../../context.js';
import { jsonObject, readJsonObject } from '../../http/json-body.js';
import { saveBody } from '../../http/save.js';
import type { TransportResponse } from '../../http/transport.js';
import { ByteMeter, stderrProgress } from '../../progress/line.js';
import { outputOption, quietNotesOption, quietProgressOption, requestTimeoutOption } from '../common-options.js';
import { defineAction, type RegisterCommand } from '../host.js';
import { parsePositiveNumber, requestTimeoutMs } from '../options.js';
import { retryAfterSeconds } from '../../http/api-client.js';
import {
  ASSET_KINDS,
  DefaultsNotes,
  encodePaperId,
  etaLine,
  renderBody,
  renderHttpError,
  type AssetKind,
} from './access.js';

export interface PaperGetInput {
  readonly kind: AssetKind;
  readonly id: string;
  /** File to write; `undefined` = stdout. */
  readonly output: string | undefined;
  readonly wait: boolean;
  readonly maxWaitS: number;
  readonly quietProgress: boolean;
  readonly quietNotes: boolean;
  readonly timeoutMs: number;
}

const DEFAULT_INTERVAL_S = 5;

/** `pks paper get markdown|pdf <id_or_doi>` (CONTRACT §16.6): one subcommand per kind under `get`. */
export const registerPaperGet: RegisterCommand = (get, host) => {
  for (const kind of ASSET_KINDS) {
    get
      .command(kind)
      .description(
        `download the ${kind === 'pdf' ? 'PDF' : kind} of a paper, waiting while the server ${kind === 'pdf' ? 'fetches' : 'fetches or converts'} it`,
      )
      .argument('<id_or_doi>', 'arXiv id (with or without version), bare old-style number, or DOI')
      .addOption(outputOption('write to FILE (default: stdout; - = stdout)'))
      .option('--no-wait', 'do not wait: print the 202 job snapshot and exit 0')
      .option('--max-wait <seconds>', 'total time to wait for the job', '1800')
      .addOption(quietProgressOption())
      .addOption(quietNotesOption())
      .addOption(requestTimeoutOption())
      .action(
        defineAction(
          host,
          ([id], o): PaperGetInput => {
            const output = o['output'] as string | undefined;
            if (output !== undefined && o['wait'] === false)
              throw new UsageError('-o/--output and --no-wait exclude each other');
            return {
              kind,
              id: id!,
              output: output === undefined || output === '-' ? undefined : output,
              wait: o['wait'] !== false,
              maxWaitS: parsePositiveNumber('--max-wait', o['maxWait'] as string),
              quietProgress: o['quietProgress'] === true,
              quietNotes: o['quietNotes'] === true,
              timeoutMs: requestTimeoutMs(o['requestTimeout']),
            };
          },
          paperGet,
        ),
      );
  }
};

export async function paperGet(ctx: CliContext, input: PaperGetInput): Promise<number> {
  const api = ctx.api({ timeoutMs: input.timeoutMs });
  const { io } = ctx;
  const progress = stderrProgress(io, input.quietProgress);
  const notes = new DefaultsNotes(io.stderr, input.quietNotes, input.id.trim());
  const encoded = encodePaperId(input.id);
  const resourcePath = `/api/papers/${encoded}/${input.kind}`;
  const started = Date.now();
  const get = async (pathOrUrl: string) => {
    const res = await api.request('GET', pathOrUrl, { kind: 'read' });
    notes.observe(res);
    return res;
  };
  const write = async (res: TransportResponse): Promise<number> => {
    progress.end(); // the last job state stays on screen above the download figures
    const total = Number(res.header('content-length') ?? NaN);
    const meter = new ByteMeter(progress, `downloading ${input.kind}`, Number.isFinite(total) ? total : null);
    const bytes = await saveBody(res, input.output ? { file: input.output } : { stream: io.stdoutStream }, (n) =>
      meter.update(n),
    );
    progress.end();
    if (input.output && !input.quietProgress) io.stderr(`Wrote ${bytes} bytes to ${input.output}\n`);
    return EXIT.ok;
  };
  const fail = (text: string): number => {
    progress.end();
    io.stderr(text.endsWith('\n') ? text : `${text}\n`);
    return EXIT.failure;
  };

  let res = await get(resourcePath);
  if (res.status === 200) return write(res);
  if (res.status !== 202) {
    return fail(renderHttpError(`${input.kind} fetch failed`, res.status, res.statusText, await res.text()));
  }
  let snapshot = await readJsonObject<JobSnapshot>(res);
  progress.event(`async operation started: ${etaLine(snapshot)}`);
  if (!input.wait) {
    progress.end();
    io.stdout(`${JSON.stringify(snapshot, null, 2)}\n`);
    return EXIT.ok;
  }
  // Checked before the first poll: a status URL on another origin is refused at once (the token stays home).
  const statusTarget = (answer: TransportResponse, body: JobSnapshot): URL | string => {
    try {
      return api.url(statusUrlOf(answer, body, resourcePath));
    } catch (err) {
      if (err instanceof TransportError) return `poll request failed: ${err.message}`;
      throw err;
    }
  };
  let statusUrl = statusTarget(res, snapshot);
  if (typeof statusUrl === 'string') return fail(statusUrl);
  let intervalS = intervalOf(res, DEFAULT_INTERVAL_S);
  let retriggered = false;
  for (;;) {
    const remainingMs = input.maxWaitS * 1000 - (Date.now() - started);
    if (remainingMs <= 0) break;
    await ctx.sleep(Math.min(intervalS * 1000, remainingMs));
    try {
      res = await get(statusUrl.href);
    } catch (err) {
      if (err instanceof TransportError) return fail(`poll request failed: ${err.message}`);
      throw err;
    }
    const text = await res.text();
    if (res.status !== 200) {
      return fail(renderHttpError(`${input.kind} status poll failed`, res.status, res.statusText, text));
    }
    snapshot = jsonObject<JobSnapshot>(res, text);
    intervalS = intervalOf(res, intervalS);
    const ready = input.kind === 'markdown' ? snapshot.md_ready : snapshot.pdf_ready;
    switch (snapshot.state) {
      case 'cached':
        if (ready !== true) break;
        res = await get(resourcePath);
        if (res.status === 200) return write(res);
        return fail(renderHttpError(`${input.kind} (post-cache GET)`, res.status, res.statusText, await res.text()));
      case 'cooldown':
      case 'failed':
        return fail(`job ended in terminal state (${snapshot.state}):\n${renderBody(text)}`);
      case 'unavailable':
        return fail(`server-side fetch/convert unavailable:\n${renderBody(text)}`);
      case 'none':
        if (retriggered) break;
        retriggered = true;
        res = await get(resourcePath);
        if (res.status === 200) return write(res);
        if (res.status !== 202) {
          return fail(renderHttpError(`${input.kind} fetch failed`, res.status, res.statusText, await res.text()));
        }
        snapshot = await readJsonObject<JobSnapshot>(res);
        statusUrl = statusTarget(res, snapshot);
        if (typeof statusUrl === 'string') return fail(statusUrl);
        intervalS = intervalOf(res, intervalS);
        break;
    }
    progress.event(`... waiting: ${etaLine(snapshot)}`);
  }
  return fail(`timed out after ${input.maxWaitS}s; last state=${snapshot.state ?? 'unknown'}`);
}

/** `operation.status_url`, else `Operation-Location`, else `<resource>/status`. */
function statusUrlOf(res: TransportResponse, snapshot: JobSnapshot, resourcePath: string): string {
  return snapshot.operation?.status_url ?? res.header('operation-location') ?? `${resourcePath}/status`;
}

/** `Retry-After` (≥ 1 s) of the response, else the interval in use. */
function intervalOf(res: TransportResponse, fallback: number): number {
  const seconds = retryAfterSeconds(res.header('retry-after'));
  return seconds === null ? fallback : Math.max(1, seconds);
}
