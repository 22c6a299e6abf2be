/**
 * The MinerU cloud API (CONTRACT §12.4), one client for the server's conversions and `pks contrib parser`: create
 * and poll single tasks and batches, download a result zip into the caller's sink. Every failure becomes a
 * `ParserCallError` carrying its class (§12.4) — except the caller's own cancellation: when the `signal` a call was
 * given aborts, the call rejects with the signal's reason. Each side brings its own HTTP transport.
 */
import type { Readable } from 'node:stream';
import { classifyParserError, type ParserErrorClass } from './classify.js';

const CALL_TIMEOUT_MS = 120_000;
const ZIP_TIMEOUT_MS = 300_000;
const BODY_CAP = 1024 * 1024;
/** The largest result zip the server stages (§9.4). */
export const RESULT_ZIP_LIMIT = 209_715_200;

/** The states of a task still being worked on. */
export const IN_FLIGHT_STATES: ReadonlySet<string> = new Set(['waiting-file', 'pending', 'running', 'converting']);

export class ParserCallError extends Error {
  constructor(
    readonly errorClass: ParserErrorClass,
    message: string,
  ) {
    super(message);
    this.name = 'ParserCallError';
  }
}

/** A transport could not get an answer (connection error, timeout); `message` is the text the error reports. */
export class ParserNetworkError extends Error {
  override readonly name = 'ParserNetworkError';
}

/** A zip sink's reading of the download failed (not its own writing): the download is retryable. */
export class ZipStreamError extends Error {
  override readonly name = 'ZipStreamError';
}

export interface ParserApiRequest {
  readonly url: string;
  readonly method: 'GET' | 'POST';
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly timeoutMs: number;
  /** Read at most this many bytes of the answer. */
  readonly limit: number;
  readonly signal?: AbortSignal;
}

/** HTTP as one side does it; a failure to get an answer rejects with `ParserNetworkError`. */
export interface ParserTransport {
  call(request: ParserApiRequest): Promise<{ readonly status: number; readonly text: string }>;
  /** `GET url` without auth; the body is read by the caller or discarded. */
  open(
    url: string,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<{ readonly status: number; readonly body: Readable; discard(): Promise<void> | void }>;
}

/** The conversion settings every task and batch carries (values from `PARSER_*` / `parser_*`). */
export interface ParserOptions {
  readonly model_version: string;
  readonly language: string;
  readonly enable_formula: boolean;
  readonly enable_table: boolean;
  readonly is_ocr: boolean;
  readonly no_cache: boolean;
}

/** One PDF to convert; `data_id` comes back on the task (the paper's stem). */
export interface ParserFile {
  readonly url: string;
  readonly data_id?: string;
}

/** A task as `GET …/task/{id}` or one entry of `GET …/batch/{id}` reports it. */
export interface ParserTask {
  readonly dataId: string;
  readonly state: string;
  readonly fullZipUrl: string;
  readonly errMsg: string;
  readonly extractedPages: number | null;
  readonly totalPages: number | null;
}

const isSuccessCode = (code: unknown) => code === undefined || code === 0 || code === '0';

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

const networkCallError = (text: string) =>
  new ParserCallError(classifyParserError({ httpStatus: null, message: text, network: true }), `parser: ${text}`);

const zipFailure = (text: string) => new ParserCallError('retryable', `result zip download failed: ${text}`);

function taskOf(value: unknown): ParserTask {
  const data = (value ?? null) as Record<string, unknown> | null;
  const progress = (data?.['extract_progress'] ?? null) as Record<string, unknown> | null;
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  return {
    dataId: text(data?.['data_id']),
    state: text(data?.['state']),
    fullZipUrl: text(data?.['full_zip_url']),
    errMsg: text(data?.['err_msg']),
    extractedPages: num(progress?.['extracted_pages']),
    totalPages: num(progress?.['total_pages']),
  };
}

export class ParserApiClient {
  readonly baseUrl: string;

  constructor(
    baseUrl: string,
    private readonly transport: ParserTransport,
  ) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
  }

  /** `POST /api/v4/extract/task` → the provider's task id. */
  async submitTask(token: string, file: ParserFile, options: ParserOptions, signal?: AbortSignal): Promise<string> {
    const data = await this.call(token, 'POST', '/api/v4/extract/task', signal, {
      url: file.url,
      ...options,
      ...dataId(file),
    });
    return idOf(data, 'task_id', 'task creation');
  }

  /** `GET /api/v4/extract/task/{task_id}`. */
  async getTask(token: string, taskId: string, signal?: AbortSignal): Promise<ParserTask> {
    return taskOf(await this.call(token, 'GET', `/api/v4/extract/task/${encodeURIComponent(taskId)}`, signal));
  }

  /** `POST /api/v4/extract/task/batch` (1..50 files) → the batch id. */
  async submitBatch(
    token: string,
    files: readonly ParserFile[],
    options: ParserOptions,
    signal?: AbortSignal,
  ): Promise<string> {
    const { is_ocr, ...shared } = options;
    const body = { files: files.map((f) => ({ url: f.url, is_ocr, ...dataId(f) })), ...shared };
    return idOf(
      await this.call(token, 'POST', '/api/v4/extract/task/batch', signal, body),
      'batch_id',
      'batch creation',
    );
  }

  /** `GET /api/v4/extract-results/batch/{batch_id}`: its tasks, `null` while the parser has nothing yet. */
  async getBatch(token: string, batchId: string, signal?: AbortSignal): Promise<ParserTask[] | null> {
    const path = `/api/v4/extract-results/batch/${encodeURIComponent(batchId)}`;
    const data = (await this.call(token, 'GET', path, signal)) as Record<string, unknown> | null;
    const list = data?.['extract_result'];
    return Array.isArray(list) ? list.map(taskOf) : null;
  }

  /**
   * `GET <full_zip_url>` without auth (300 s, must be 200), the body handed to `sink`; failures to download are
   * retryable. A sink rejects with `ZipStreamError` when reading the body failed; its other errors pass through.
   */
  async downloadZip<T>(url: string, sink: (body: Readable) => Promise<T>, signal?: AbortSignal): Promise<T> {
    let res;
    try {
      res = await this.transport.open(url, ZIP_TIMEOUT_MS, signal);
    } catch (err) {
      signal?.throwIfAborted();
      if (err instanceof ParserNetworkError) throw zipFailure(`parser: ${err.message}`);
      throw err;
    }
    if (res.status !== 200) {
      await res.discard();
      throw zipFailure(`HTTP ${res.status}`);
    }
    try {
      return await sink(res.body);
    } catch (err) {
      signal?.throwIfAborted();
      if (err instanceof ZipStreamError) throw zipFailure(err.message);
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
    let answer;
    try {
      answer = await this.transport.call({
        url: `${this.baseUrl}${path}`,
        method,
        headers: {
          authorization: `Bearer ${token}`,
          accept: '*/*',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        timeoutMs: CALL_TIMEOUT_MS,
        limit: BODY_CAP,
        ...(signal ? { signal } : {}),
      });
    } catch (err) {
      signal?.throwIfAborted();
      if (err instanceof ParserNetworkError) throw networkCallError(err.message);
      throw err;
    }
    const { status, text } = answer;
    const envelope = parseEnvelope(text);
    const ok = status >= 200 && status < 300 && envelope !== null && isSuccessCode(envelope.code);
    if (ok) return envelope!.data ?? null;
    const code = envelope?.code === undefined || envelope.code === null ? null : (envelope.code as string | number);
    const msg = typeof envelope?.msg === 'string' && envelope.msg !== '' ? envelope.msg : text.slice(0, 200);
    const errorClass = classifyParserError({ httpStatus: status, code, message: msg });
    throw new ParserCallError(errorClass, `parser: HTTP ${status} code ${code ?? ''} ${msg}`.replace(/ {2,}/g, ' '));
  }
}

const dataId = (file: ParserFile) => (file.data_id === undefined ? {} : { data_id: file.data_id });

/** The id a creation answered with; missing → an unclassified error. */
function idOf(data: unknown, field: 'task_id' | 'batch_id', what: string): string {
  const id = (data as Record<string, unknown> | null)?.[field];
  if (typeof id !== 'string' || id === '')
    throw new ParserCallError('unclassified', `parser: ${what} answered without a ${field}`);
  return id;
}
