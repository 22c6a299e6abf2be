/**
 * Server-side conversion through the parser provider (CONTRACT §11.6): a parser slot (FIFO by `submitted_at`),
 * the token ring with daily-limit rotation, submit and poll, up to two submissions (the second 10 s after a
 * retryable failure), then the result zip validated and stored by the upload-parser path of `src/server/papers`.
 */
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import type { VersionedPreprintId } from '../../shared/ids.js';
import type { ParserConfig } from '../config/types.js';
import type { PaperService } from '../papers/service.js';
import { SourceStreamError, type DownloadStager, type StagedFile } from '../papers/staging.js';
import type { Clock } from './clock.js';
import { type DurationRing } from './duration-ring.js';
import { classifyPapersError, JobFailure, storeErrorText } from './failure.js';
import { rfc3339Local } from '../../shared/local-day.js';
import {
  ParserCallError,
  RESULT_ZIP_LIMIT,
  ZipStreamError,
  type ParserApiClient,
  type ParserTask,
} from '../../parser-api/client.js';
import { classifyParserText } from '../../parser-api/classify.js';
import type { Slots, SlotTicket } from './slots.js';
import type { TokenRing } from '../../parser-api/token-ring.js';

export const PRESIGN_TTL_SECONDS = 30 * 60;
const MAX_SUBMISSIONS = 2;
const RESUBMIT_DELAY_MS = 10_000;
/** Consecutive failed polls (network or retryable answers) tolerated before the submission counts as failed. */
const MAX_POLL_ERRORS = 5;

export type ConvertStage = 'submitting' | 'pending' | 'running' | 'converting' | 'downloading_zip' | 'storing';

export interface ConvertProgress {
  readonly stage: ConvertStage;
  readonly parserTaskId: string | null;
  readonly polledCount: number;
  readonly extractedPages: number | null;
  readonly totalPages: number | null;
  /** Submissions so far (rotation on a daily limit is not one). */
  readonly submissions: number;
}

export interface ConversionObserver {
  /** The parser slot was granted. */
  onSlot(): void;
  onProgress(progress: ConvertProgress): void;
}

export interface ConversionRequest {
  readonly id: VersionedPreprintId;
  /** The place in the parser queue. */
  readonly ticket: SlotTicket;
  /** Write over different stored content (ingest `force_parse`). */
  readonly overwrite: boolean;
  /** Ask the provider to bypass its cache (ingest `no_cache`). */
  readonly noCache: boolean;
  readonly observer: ConversionObserver;
}

export interface ConversionResult {
  readonly markdownKey: string;
  readonly markdownSha256: string;
  readonly imageCount: number;
  readonly parserTaskId: string;
  readonly submissions: number;
}

export interface ConverterDeps {
  readonly parser: ParserConfig;
  readonly client: ParserApiClient;
  readonly ring: TokenRing;
  readonly slots: Slots;
  readonly durations: DurationRing;
  readonly papers: PaperService;
  readonly clock: Clock;
  readonly logger: Logger;
  /** `<SVC_PREPRINT_BASE_URL>/pdf/<id>`: the source URL when the store cannot presign. */
  readonly preprintPdfUrl: (id: VersionedPreprintId) => string;
  readonly resubmitDelayMs?: number;
  /**
   * Aborted when the server stops: the wait for a slot, a parser call, a poll wait or the zip download in progress
   * ends at once with the signal's reason (the slot is released, a staged zip removed).
   */
  readonly signal?: AbortSignal;
}

type SubmissionOutcome =
  | { readonly ok: true; readonly result: Omit<ConversionResult, 'submissions'> }
  | { readonly ok: false; readonly failure: JobFailure };

const fatal = (message: string) => new JobFailure('fatal', 'convert', message);
const retryable = (message: string) => new JobFailure('retryable', 'convert', message);

export class Converter {
  /** Conversions that finished (stored) and failed, by class (health counters). */
  readonly counts = { submitted: 0, succeeded: 0, failed_fatal: 0, failed_retryable: 0, failed_daily_limit: 0 };

  constructor(private readonly deps: ConverterDeps) {}

  /** Converts `request.id`'s stored PDF; throws `JobFailure` (stage `convert`). */
  async convert(request: ConversionRequest): Promise<ConversionResult> {
    const { deps } = this;
    const release = await deps.slots.acquire(request.ticket, deps.signal);
    const slotAt = deps.clock.now();
    request.observer.onSlot();
    try {
      const result = await this.convertHoldingSlot(request);
      deps.durations.push((deps.clock.now() - slotAt) / 1000);
      this.counts.succeeded++;
      return result;
    } catch (err) {
      // Stopped by shutdown: not a conversion failure.
      if (deps.signal?.aborted) throw err;
      const failure = err instanceof JobFailure ? err : retryable(`conversion failed: ${(err as Error).message}`);
      if (failure.kind === 'fatal') this.counts.failed_fatal++;
      else if (failure.kind === 'daily_limit') this.counts.failed_daily_limit++;
      else this.counts.failed_retryable++;
      throw failure;
    } finally {
      release();
    }
  }

  private async convertHoldingSlot(request: ConversionRequest): Promise<ConversionResult> {
    const { deps } = this;
    let presigned;
    try {
      presigned = await deps.papers.presignPdf(request.id, PRESIGN_TTL_SECONDS);
    } catch (err) {
      throw retryable(storeErrorText(err));
    }
    if (presigned === null) throw fatal(`conversion failed: no PDF stored for ${request.id.id}`);
    const url = presigned.url ?? deps.preprintPdfUrl(request.id);
    for (let submissions = 1; ; submissions++) {
      const outcome = await this.submission(request, url, submissions);
      if (outcome.ok) return { ...outcome.result, submissions };
      if (outcome.failure.kind !== 'retryable' || submissions >= MAX_SUBMISSIONS) throw outcome.failure;
      deps.logger.info(
        { preprint_id: request.id.id, err: outcome.failure.message },
        'parser submission failed (retryable); resubmitting once',
      );
      await deps.clock.sleep(deps.resubmitDelayMs ?? RESUBMIT_DELAY_MS, deps.signal);
    }
  }

  /** The daily-limit failure once no token is free (§11.6). */
  private allTokensExhausted(): JobFailure {
    const { ring } = this.deps;
    const retryAt = ring.earliestRecovery() ?? this.deps.clock.now();
    return new JobFailure(
      'daily_limit',
      'convert',
      `server quota exhausted: all ${ring.size} parser API tokens have reached today's daily limit; ` +
        `service resumes at ${rfc3339Local(retryAt)}`,
      { retryAt },
    );
  }

  /**
   * One submission: create a task with the next free token and poll it to the end. A daily-limit answer (on
   * create or while polling) cools that token down and starts over with the next one, within this submission.
   */
  private async submission(request: ConversionRequest, url: string, submissions: number): Promise<SubmissionOutcome> {
    const { deps } = this;
    const { parser } = deps;
    const report = (progress: Omit<ConvertProgress, 'submissions'>) =>
      request.observer.onProgress({ ...progress, submissions });
    for (;;) {
      const token = deps.ring.next();
      if (token === null) return { ok: false, failure: this.allTokensExhausted() };
      report({ stage: 'submitting', parserTaskId: null, polledCount: 0, extractedPages: null, totalPages: null });
      let taskId: string;
      try {
        this.counts.submitted++;
        taskId = await deps.client.submitTask(
          token,
          { url, data_id: request.id.stem },
          {
            model_version: parser.modelVersion,
            language: parser.language,
            enable_formula: parser.enableFormula,
            enable_table: parser.enableTable,
            is_ocr: parser.isOcr,
            no_cache: request.noCache,
          },
          deps.signal,
        );
      } catch (err) {
        if (!(err instanceof ParserCallError)) throw err;
        if (err.errorClass === 'daily_limit') {
          deps.ring.coolDown(token);
          continue;
        }
        const failure = `conversion failed: ${err.message}`;
        return { ok: false, failure: err.errorClass === 'fatal' ? fatal(failure) : retryable(failure) };
      }
      const polled = await this.pollUntilDone(token, taskId, report);
      if (polled === 'daily_limit') {
        deps.ring.coolDown(token);
        continue;
      }
      if (!polled.ok) return polled;
      report({
        stage: 'downloading_zip',
        parserTaskId: taskId,
        polledCount: polled.polledCount,
        extractedPages: null,
        totalPages: null,
      });
      return this.storeResult(request, taskId, polled.zipUrl, () =>
        report({
          stage: 'storing',
          parserTaskId: taskId,
          polledCount: polled.polledCount,
          extractedPages: null,
          totalPages: null,
        }),
      );
    }
  }

  /** Polls immediately and then every `PARSER_POLL_INTERVAL` s until `done`, `failed` or `PARSER_TIMEOUT`. */
  private async pollUntilDone(
    token: string,
    taskId: string,
    report: (progress: Omit<ConvertProgress, 'submissions'>) => void,
  ): Promise<
    | { readonly ok: true; readonly zipUrl: string; readonly polledCount: number }
    | { readonly ok: false; readonly failure: JobFailure }
    | 'daily_limit'
  > {
    const { deps } = this;
    const deadline = deps.clock.now() + deps.parser.timeoutSeconds * 1000;
    let polledCount = 0;
    let errorsInARow = 0;
    for (;;) {
      if (deps.clock.now() >= deadline) {
        return {
          ok: false,
          failure: retryable(
            `conversion failed: timeout after ${deps.parser.timeoutSeconds} s (parser task ${taskId})`,
          ),
        };
      }
      let status: ParserTask | null = null;
      try {
        status = await deps.client.getTask(token, taskId, deps.signal);
        errorsInARow = 0;
      } catch (err) {
        if (!(err instanceof ParserCallError)) throw err;
        if (err.errorClass === 'daily_limit') return 'daily_limit';
        if (err.errorClass === 'fatal') return { ok: false, failure: fatal(`conversion failed: ${err.message}`) };
        if (++errorsInARow >= MAX_POLL_ERRORS) {
          return { ok: false, failure: retryable(`conversion failed: ${err.message}`) };
        }
      }
      if (status !== null) {
        polledCount++;
        const stage: ConvertStage =
          status.state === 'running' ? 'running' : status.state === 'converting' ? 'converting' : 'pending';
        report({
          stage,
          parserTaskId: taskId,
          polledCount,
          extractedPages: status.extractedPages,
          totalPages: status.totalPages,
        });
        if (status.state === 'done') {
          if (status.fullZipUrl === '') {
            return { ok: false, failure: retryable('conversion failed: parser reported done without a result URL') };
          }
          return { ok: true, zipUrl: status.fullZipUrl, polledCount };
        }
        if (status.state === 'failed') {
          const errorClass = classifyParserText(status.errMsg);
          if (errorClass === 'daily_limit') return 'daily_limit';
          const message = `conversion failed: ${status.errMsg || 'parser task failed'}`;
          return { ok: false, failure: errorClass === 'fatal' ? fatal(message) : retryable(message) };
        }
      }
      await deps.clock.sleep(
        Math.min(deps.parser.pollIntervalSeconds * 1000, Math.max(0, deadline - deps.clock.now())),
        deps.signal,
      );
    }
  }

  /** Downloads the result zip and stores it exactly as `upload-parser` does (images, then markdown). */
  private async storeResult(
    request: ConversionRequest,
    parserTaskId: string,
    zipUrl: string,
    storing: () => void,
  ): Promise<SubmissionOutcome> {
    const { papers } = this.deps;
    let staged;
    try {
      staged = await this.deps.client.downloadZip(zipUrl, (body) => stageZip(papers, body), this.deps.signal);
    } catch (err) {
      if (err instanceof ParserCallError) return { ok: false, failure: retryable(`conversion failed: ${err.message}`) };
      throw err;
    }
    storing();
    try {
      const stored = await papers.uploadParser({
        id: request.id,
        expectedSha256: null,
        pdfSha256: null,
        overwrite: request.overwrite,
        source: 'server-parse',
        uploadedBy: null,
        staged,
      });
      const body = stored.record;
      return {
        ok: true,
        result: {
          markdownKey: body.markdown_path,
          markdownSha256: body.markdown_sha256,
          imageCount: body.image_count,
          parserTaskId,
        },
      };
    } catch (err) {
      switch (classifyPapersError(err)) {
        case 'rejected':
          return { ok: false, failure: fatal(`conversion failed: result zip rejected: ${(err as Error).message}`) };
        case 'no_pdf':
          return { ok: false, failure: fatal(`conversion failed: ${(err as Error).message}`) };
        case 'conflict':
          // Another writer stored different markdown meanwhile: it won, and the paper has markdown.
          return this.alreadyStored(request, parserTaskId);
        case 'store':
          return { ok: false, failure: retryable(`conversion failed: ${storeErrorText(err)}`) };
      }
    }
  }

  private async alreadyStored(request: ConversionRequest, parserTaskId: string): Promise<SubmissionOutcome> {
    const { papers } = this.deps;
    try {
      const md = await papers.findMarkdown(request.id);
      const images = await papers.listImages(request.id);
      if (md === null) return { ok: false, failure: retryable('conversion failed: stored markdown vanished') };
      return {
        ok: true,
        result: {
          markdownKey: md.key,
          markdownSha256: md.metadata['sha256'] ?? '',
          imageCount: images.length,
          parserTaskId,
        },
      };
    } catch (err) {
      return { ok: false, failure: retryable(`conversion failed: ${storeErrorText(err)}`) };
    }
  }
}

/** The result zip staged like an upload; a broken download (not a store failure) is the parser's retryable error. */
async function stageZip(stager: DownloadStager, body: Readable): Promise<StagedFile> {
  try {
    return await stager.stageDownload(body, RESULT_ZIP_LIMIT, 'parser_zip');
  } catch (err) {
    if (err instanceof SourceStreamError) throw new ZipStreamError(err.message);
    throw err;
  }
}
