/**
 * The client of the pks server (CONTRACT §16.2): every call carries `User-Agent: pks/<version>`,
 * `X-Svc-Client-Version` and the stored bearer token; writes pass the version gate first; a 429 with a short
 * `Retry-After` is retried; `insecure` disables TLS verification with a one-time warning. The token goes to the
 * configured server's origin only: an absolute URL of another origin (a status URL, `Operation-Location`) is
 * refused, and a redirect to another origin is followed without it.
 */
import { VERSION } from '../../shared/version.js';
import { HttpStatusError, TransportError } from '../errors.js';
import { jsonObject } from './json-body.js';
import { send, type RequestBody, type TransportResponse } from './transport.js';
import type { VersionGate } from './version-gate.js';

export interface ApiClientOptions {
  /** Server base URL without trailing `/` (may carry a path prefix). */
  readonly baseUrl: string;
  readonly token: string | undefined;
  readonly insecure: boolean;
  /** Default idle timeout per call. */
  readonly timeoutMs: number;
  readonly gate: VersionGate;
  /** Prints a warning once per run per key. */
  readonly warnOnce: (key: string, text: string) => void;
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export interface ApiCall {
  /** CONTRACT §16.2: writes are upload-pdf, upload-parser, claim POST/DELETE and the ingest POSTs. */
  readonly kind: 'read' | 'write';
  readonly query?: Readonly<Record<string, string | undefined>>;
  readonly json?: unknown;
  readonly body?: RequestBody;
  readonly headers?: Readonly<Record<string, string>>;
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  readonly onUploadProgress?: (sent: number) => void;
}

/** A call whose answer is a JSON object (`ApiClient.json`). */
export interface JsonCall extends Omit<ApiCall, 'kind' | 'json' | 'body'> {
  /** The statuses whose body is the answer; any other is an `HttpStatusError` (`Request failed: …`, exit 1). */
  readonly ok: readonly number[];
  /** Sent as the JSON request body. */
  readonly body?: unknown;
  /** Default `read`: CONTRACT §16.2 names the writes. */
  readonly kind?: ApiCall['kind'];
}

/** The parsed answer of `ApiClient.json`. */
export interface JsonAnswer<T> {
  readonly status: number;
  readonly body: T;
  header(name: string): string | undefined;
}

export const MAX_429_RETRIES = 3;
export const MAX_RETRY_AFTER_S = 120;
/** Redirects a GET follows (a server behind a proxy, an asset served elsewhere). */
export const MAX_REDIRECTS = 5;

/** `Retry-After` in seconds (delta-seconds or an HTTP date), `null` when absent or unparseable. */
export function retryAfterSeconds(value: string | undefined, now = Date.now()): number | null {
  if (value === undefined || value.trim() === '') return null;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, (date - now) / 1000);
}

export class ApiClient {
  /** The server-version probe of this client, once started. */
  private probe: Promise<void> | null = null;

  constructor(readonly options: ApiClientOptions) {}

  /**
   * Starts learning the server version for a write to come, so that the probe's round trip overlaps the caller's
   * own preparation (hashing the file to upload); the write waits for it and fails with its error.
   */
  prepareWrite(signal?: AbortSignal): void {
    if (this.options.gate.serverVersion !== null) return;
    this.probeVersion(signal).catch(() => undefined); // observed by the write
  }

  /** The probe in flight or done; a failed one is forgotten, so the next write probes again. */
  private probeVersion(signal: AbortSignal | undefined): Promise<void> {
    this.probe ??= this.learnServerVersion(signal).catch((err: unknown) => {
      this.probe = null;
      throw err;
    });
    return this.probe;
  }

  get baseUrl(): string {
    return this.options.baseUrl;
  }

  /** The origin (scheme, host, port) of the configured server: the only one that gets the token. */
  get origin(): string {
    return parseUrl(this.options.baseUrl, this.options.baseUrl).origin;
  }

  /**
   * An absolute URL for a server path (`/api/...`, prefixed with the base URL) or an absolute URL given by the
   * server, which must be on the server's origin; anything else is refused with a one-line `TransportError`.
   */
  url(pathOrUrl: string, query: ApiCall['query'] = {}): URL {
    const url = this.resolve(pathOrUrl);
    for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, value);
    return url;
  }

  private resolve(pathOrUrl: string): URL {
    if (pathOrUrl.startsWith('/')) return parseUrl(this.options.baseUrl + pathOrUrl, pathOrUrl);
    if (!/^https?:\/\//i.test(pathOrUrl)) throw new TransportError(`not a server path or http(s) URL: ${pathOrUrl}`);
    const url = parseUrl(pathOrUrl, pathOrUrl);
    if (url.origin !== this.origin) {
      throw new TransportError(
        `refusing to follow ${url.origin} (not the configured server ${this.origin}); the token is sent to the server only`,
      );
    }
    return url;
  }

  /** The headers of every call: client identification and the stored token. */
  private commonHeaders(): Record<string, string> {
    return {
      'user-agent': `pks/${VERSION}`,
      'x-svc-client-version': VERSION,
      ...(this.options.token ? { authorization: `Bearer ${this.options.token}` } : {}),
    };
  }

  async request(method: string, pathOrUrl: string, call: ApiCall): Promise<TransportResponse> {
    const { gate } = this.options;
    if (call.kind === 'write') {
      if (gate.serverVersion === null) await this.probeVersion(call.signal);
      gate.checkWrite();
    }
    const url = this.url(pathOrUrl, call.query);
    if (this.options.insecure && url.protocol === 'https:') {
      this.options.warnOnce('insecure', 'Warning: TLS certificate verification is disabled.\n');
    }
    const headers: Record<string, string> = {
      ...this.commonHeaders(),
      accept: 'application/json, */*;q=0.5',
      ...call.headers,
    };
    let body = call.body;
    if (call.json !== undefined) {
      body = JSON.stringify(call.json);
      headers['content-type'] = 'application/json';
    }
    for (let attempt = 0; ; attempt++) {
      const res = await send({
        url,
        method,
        headers,
        ...(body !== undefined ? { body } : {}),
        timeoutMs: call.timeoutMs ?? this.options.timeoutMs,
        insecure: this.options.insecure,
        maxRedirects: MAX_REDIRECTS,
        ...(call.signal ? { signal: call.signal } : {}),
        ...(call.onUploadProgress ? { onUploadProgress: call.onUploadProgress } : {}),
      });
      // Only the server's own answers tell its version (not those of where a redirect led).
      if (res.url.origin === this.origin) gate.observe(res.header('x-svc-server-version'), call.kind);
      const wait = res.status === 429 ? retryAfterSeconds(res.header('retry-after')) : null;
      if (wait !== null && wait <= MAX_RETRY_AFTER_S && attempt < MAX_429_RETRIES) {
        res.discard();
        await this.options.sleep(wait * 1000, call.signal);
        continue;
      }
      return res;
    }
  }

  /**
   * Request → status check → JSON object: an answer with a status outside `call.ok` is an `HttpStatusError`
   * carrying the server's detail, a body that is not a JSON object an `UnexpectedBodyError` (both exit 1).
   */
  async json<T extends object>(method: string, pathOrUrl: string, call: JsonCall): Promise<JsonAnswer<T>> {
    const { ok, body, kind = 'read', ...rest } = call;
    const res = await this.request(method, pathOrUrl, { ...rest, kind, ...(body !== undefined ? { json: body } : {}) });
    const text = await res.text();
    if (!ok.includes(res.status)) {
      throw new HttpStatusError(res.status, res.statusText, text, res.header('content-type'));
    }
    return { status: res.status, body: jsonObject<T>(res, text), header: (name) => res.header(name) };
  }

  /** `GET /api/server/info` (with the token, like every call) to learn the server version before the first write. */
  private async learnServerVersion(signal: AbortSignal | undefined): Promise<void> {
    const res = await send({
      url: this.url('/api/server/info'),
      method: 'GET',
      headers: { ...this.commonHeaders(), accept: 'application/json' },
      timeoutMs: this.options.timeoutMs,
      insecure: this.options.insecure,
      ...(signal ? { signal } : {}),
    });
    const body = await res.text();
    let version = res.header('x-svc-server-version');
    if (!version && res.status === 200) {
      try {
        const parsed = JSON.parse(body) as { version?: unknown };
        if (typeof parsed.version === 'string') version = parsed.version;
      } catch {
        // no version known: the check stays disabled
      }
    }
    // Observed as a write: the refusal, not a read warning, is what this probe may lead to.
    this.options.gate.observe(version, 'write');
  }
}

function parseUrl(text: string, shown: string): URL {
  try {
    return new URL(text);
  } catch {
    throw new TransportError(`not a valid URL: ${shown}`);
  }
}
