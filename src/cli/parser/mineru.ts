/** The MinerU cloud API as the contributor uses it (CONTRACT §12.4): single tasks, batches, result zips. */
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { TransportError } from '../errors.js';
import { send, type TransportResponse } from '../http/transport.js';
import { classifyParserError, classifyParserText, type ParserErrorClass } from '../../shared/parser-errors.js';

export class ParserError extends Error {
  override readonly name = 'ParserError';
  constructor(
    message: string,
    readonly kind: ParserErrorClass,
  ) {
    super(message);
  }
}

export interface ParserSettings {
  readonly baseUrl: string;
  readonly modelVersion: string;
  readonly language: string;
  readonly enableFormula: boolean;
  readonly enableTable: boolean;
  readonly isOcr: boolean;
  readonly noCache: boolean;
  readonly insecure: boolean;
}

export interface ExtractProgress {
  readonly extracted_pages?: number;
  readonly total_pages?: number;
}

export interface TaskResult {
  readonly task_id?: string;
  readonly data_id?: string;
  readonly file_name?: string;
  readonly state: string;
  readonly full_zip_url?: string;
  readonly err_msg?: string;
  readonly extract_progress?: ExtractProgress;
}

export const IN_FLIGHT_STATES = new Set(['waiting-file', 'pending', 'running', 'converting']);

const TIMEOUT_MS = 120_000;
const ZIP_TIMEOUT_MS = 300_000;
const BODY_LIMIT = 1024 * 1024;

export class MineruClient {
  constructor(private readonly settings: ParserSettings) {}

  private async call(token: string, method: 'GET' | 'POST', path: string, body?: unknown, signal?: AbortSignal) {
    let res: TransportResponse;
    let text: string;
    try {
      res = await send({
        url: new URL(this.settings.baseUrl.replace(/\/+$/, '') + path),
        method,
        headers: {
          authorization: `Bearer ${token}`,
          accept: '*/*',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        timeoutMs: TIMEOUT_MS,
        insecure: this.settings.insecure,
        ...(signal ? { signal } : {}),
      });
      text = (await res.buffer(BODY_LIMIT)).toString('utf8');
    } catch (err) {
      if (!(err instanceof TransportError)) throw err;
      throw new ParserError(
        `parser: ${err.message}`,
        classifyParserError({ httpStatus: null, message: err.message, network: true }),
      );
    }
    let envelope: { code?: unknown; msg?: unknown; data?: unknown } = {};
    try {
      envelope = JSON.parse(text) as typeof envelope;
    } catch {
      envelope = { code: 'invalid-json' };
    }
    const code = envelope.code;
    const ok = res.status >= 200 && res.status < 300 && (code === undefined || code === 0 || code === '0');
    if (ok) return (envelope.data ?? {}) as Record<string, unknown>;
    const msg = typeof envelope.msg === 'string' && envelope.msg !== '' ? envelope.msg : text.slice(0, 200);
    const codeText = code === undefined ? '' : String(code);
    throw new ParserError(
      `parser: HTTP ${res.status} code ${codeText} ${msg}`.replace(/\s+$/, ''),
      classifyParserError({
        httpStatus: res.status,
        code: typeof code === 'number' || typeof code === 'string' ? code : null,
        message: msg,
      }),
    );
  }

  private options() {
    const s = this.settings;
    return {
      model_version: s.modelVersion,
      language: s.language,
      enable_formula: s.enableFormula,
      enable_table: s.enableTable,
      no_cache: s.noCache,
    };
  }

  async submitTask(token: string, file: { url: string; dataId: string }, signal?: AbortSignal): Promise<string> {
    const data = await this.call(
      token,
      'POST',
      '/api/v4/extract/task',
      { url: file.url, ...this.options(), is_ocr: this.settings.isOcr, data_id: file.dataId },
      signal,
    );
    if (typeof data['task_id'] !== 'string')
      throw new ParserError('parser: task creation returned no task_id', 'retryable');
    return data['task_id'];
  }

  async getTask(token: string, taskId: string, signal?: AbortSignal): Promise<TaskResult> {
    return (await this.call(
      token,
      'GET',
      `/api/v4/extract/task/${encodeURIComponent(taskId)}`,
      undefined,
      signal,
    )) as unknown as TaskResult;
  }

  async submitBatch(
    token: string,
    files: readonly { url: string; dataId: string }[],
    signal?: AbortSignal,
  ): Promise<string> {
    const data = await this.call(
      token,
      'POST',
      '/api/v4/extract/task/batch',
      { files: files.map((f) => ({ url: f.url, is_ocr: this.settings.isOcr, data_id: f.dataId })), ...this.options() },
      signal,
    );
    if (typeof data['batch_id'] !== 'string')
      throw new ParserError('parser: batch creation returned no batch_id', 'retryable');
    return data['batch_id'];
  }

  /** The batch's results; `null` while the parser has nothing yet. */
  async getBatch(token: string, batchId: string, signal?: AbortSignal): Promise<TaskResult[] | null> {
    const data = await this.call(
      token,
      'GET',
      `/api/v4/extract-results/batch/${encodeURIComponent(batchId)}`,
      undefined,
      signal,
    );
    const list = data['extract_result'];
    return Array.isArray(list) ? (list as TaskResult[]) : null;
  }

  /** Downloads a result zip (no auth; must answer 200) to `dest`. */
  async downloadZip(url: string, dest: string, signal?: AbortSignal): Promise<void> {
    let res: TransportResponse;
    try {
      res = await send({
        url: new URL(url),
        method: 'GET',
        timeoutMs: ZIP_TIMEOUT_MS,
        maxRedirects: 5,
        insecure: this.settings.insecure,
        ...(signal ? { signal } : {}),
      });
      if (res.status !== 200) {
        res.discard();
        throw new ParserError(
          `parser: zip download HTTP ${res.status} from ${url}`,
          classifyParserText('', res.status),
        );
      }
      await pipeline(res.stream, createWriteStream(dest));
    } catch (err) {
      if (signal?.aborted || err instanceof ParserError) throw err;
      throw new ParserError(`parser: zip download failed: ${(err as Error).message}`, 'retryable');
    }
  }
}

/** Whether a task result is a failure of the given class. */
export const failureKind = (result: TaskResult): ParserErrorClass => classifyParserText(result.err_msg ?? '');
