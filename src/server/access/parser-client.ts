/**
 * The MinerU cloud API as the server uses it (CONTRACT §12.4): create an extraction task, poll it, download the
 * result zip. Every error becomes a `ParserCallError` carrying its class from the classifier — except the caller's
 * own cancellation: when the `signal` a call was given aborts (the server stops), the call rejects with its reason.
 */
import { Readable } from 'node:stream';
import { SourceStreamError, type Stager, type StagedFile } from '../papers/staging.js';
import { classifyParserError, type ParserErrorClass } from '../../shared/parser-errors.js';

const CALL_TIMEOUT_MS = 120_000;
const ZIP_TIMEOUT_MS = 300_000;
const BODY_CAP = 1024 * 1024;
export const RESULT_ZIP_LIMIT = 209_715_200;

export class ParserCallError extends Error {
  constructor(
    readonly errorClass: ParserErrorClass,
    message: string,
  ) {
    super(message);
    this.name = 'ParserCallError';
  }
}

export type ParserTaskState = 'waiting-file' | 'pending' | 'running' | 'converting' | 'done' | 'failed';

export interface ParserTaskStatus {
  readonly state: ParserTaskState | string;
  readonly fullZipUrl: string;
  readonly errMsg: string;
  readonly extractedPages: number | null;
  readonly totalPages: number | null;
}

export interface SubmitRequest {
  readonly url: string;
  readonly model_version: 'vlm' | 'pipeline';
  readonly language: string;
  readonly enable_formula: boolean;
  readonly enable_table: boolean;
  readonly is_ocr: boolean;
  readonly no_cache: boolean;
  readonly data_id?: string;
}

/** A call's own time bound, ended early by the caller's `signal`. */
const withDeadline = (ms: number, signal: AbortSignal | undefined): AbortSignal =>
  signal ? AbortSignal.any([AbortSignal.timeout(ms), signal]) : AbortSignal.timeout(ms);

const isSuccessCode = (code: unknown) => code === undefined || code === 0 || code === '0';

async function readCapped(res: Response): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (res.body) {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= BODY_CAP) break;
    }
  }
  return Buffer.concat(chunks).subarray(0, BODY_CAP).toString('utf8');
}

function networkError(err: unknown): ParserCallError {
  const e = err as Error & { cause?: { code?: string } };
  const text = e.name === 'TimeoutError' ? 'timeout' : `${e.message}${e.cause?.code ? ` (${e.cause.code})` : ''}`;
  return new ParserCallError(
    classifyParserError({ httpStatus: null, message: text, network: true }),
    `parser: ${text}`,
  );
}

interface Envelope {
  readonly code?: unknown;
  readonly msg?: unknown;
  readonly data?: unknown;
}

function parseEnvelope(text: string): Envelope | null {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' ? (parsed as Envelope) : null;
  } catch {
    return null;
  }
}

export class ParserClient {
  readonly baseUrl: string;

  constructor(baseUrl: string) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
  }

  /** `POST /api/v4/extract/task` → the provider's task id. */
  async submit(token: string, request: SubmitRequest, signal?: AbortSignal): Promise<string> {
    const data = await this.call(token, 'POST', '/api/v4/extract/task', signal, request);
    const taskId = (data as { task_id?: unknown } | null)?.task_id;
    if (typeof taskId !== 'string' || taskId === '') {
      throw new ParserCallError('unclassified', 'parser: task creation answered without a task_id');
    }
    return taskId;
  }

  /** `GET /api/v4/extract/task/{task_id}`. */
  async poll(token: string, taskId: string, signal?: AbortSignal): Promise<ParserTaskStatus> {
    const path = `/api/v4/extract/task/${encodeURIComponent(taskId)}`;
    const data = (await this.call(token, 'GET', path, signal)) as Record<string, unknown> | null;
    const progress = (data?.['extract_progress'] ?? null) as Record<string, unknown> | null;
    const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
    return {
      state: typeof data?.['state'] === 'string' ? data['state'] : '',
      fullZipUrl: typeof data?.['full_zip_url'] === 'string' ? data['full_zip_url'] : '',
      errMsg: typeof data?.['err_msg'] === 'string' ? data['err_msg'] : '',
      extractedPages: num(progress?.['extracted_pages']),
      totalPages: num(progress?.['total_pages']),
    };
  }

  /** `GET <full_zip_url>` without auth (300 s, must be 200) into a staged file; failures are retryable. */
  async downloadZip(url: string, stager: Stager, signal?: AbortSignal): Promise<StagedFile> {
    let res: Response;
    try {
      res = await fetch(url, { signal: withDeadline(ZIP_TIMEOUT_MS, signal) });
    } catch (err) {
      signal?.throwIfAborted();
      throw new ParserCallError('retryable', `result zip download failed: ${networkError(err).message}`);
    }
    if (res.status !== 200) {
      await res.body?.cancel();
      throw new ParserCallError('retryable', `result zip download failed: HTTP ${res.status}`);
    }
    try {
      return await stager.stage(
        res.body ? Readable.fromWeb(res.body as never) : Readable.from([]),
        RESULT_ZIP_LIMIT,
        'parser_zip',
      );
    } catch (err) {
      signal?.throwIfAborted();
      if (err instanceof SourceStreamError) {
        throw new ParserCallError('retryable', `result zip download failed: ${err.message}`);
      }
      throw err;
    }
  }

  private async call(
    token: string,
    method: 'GET' | 'POST',
    path: string,
    signal: AbortSignal | undefined,
    body?: unknown,
  ): Promise<unknown> {
    let res: Response;
    try {
      res = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers: {
          Authorization: `Bearer ${token}`,
          Accept: '*/*',
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: withDeadline(CALL_TIMEOUT_MS, signal),
      });
    } catch (err) {
      signal?.throwIfAborted();
      throw networkError(err);
    }
    let text: string;
    try {
      text = await readCapped(res);
    } catch (err) {
      signal?.throwIfAborted();
      throw networkError(err);
    }
    const envelope = parseEnvelope(text);
    const ok = res.status >= 200 && res.status < 300 && envelope !== null && isSuccessCode(envelope.code);
    if (ok) return envelope!.data ?? null;
    const code = envelope?.code === undefined || envelope.code === null ? null : (envelope.code as string | number);
    const msg = typeof envelope?.msg === 'string' && envelope.msg !== '' ? envelope.msg : text.slice(0, 200);
    const errorClass = classifyParserError({ httpStatus: res.status, code, message: msg });
    throw new ParserCallError(
      errorClass,
      `parser: HTTP ${res.status} code ${code ?? ''} ${msg}`.replace(/ {2,}/g, ' '),
    );
  }
}
