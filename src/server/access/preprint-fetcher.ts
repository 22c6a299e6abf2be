/**
 * arXiv as the service uses it (CONTRACT §11.5, §12.1): PDF downloads and abstract-page version lookups, both
 * through the one token bucket, with the same User-Agent, redirects, retries and backoff.
 *
 * Every HTTP request that leaves (each redirect hop and each retry) takes one token. PDF downloads also hold a
 * fetch slot (the caller's job takes it) and stream to a staged file while hashing.
 */
import { isIP } from 'node:net';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { VERSION } from '../../shared/version.js';
import type { VersionedPreprintId, PreprintId } from '../../shared/ids.js';
import { SourceStreamError, type DownloadStager, type StagedFile } from '../papers/staging.js';
import type { Clock } from './clock.js';
import { parseRetryAfter } from './retry-after.js';
import type { TokenBucket } from './token-bucket.js';

export const PDF_FETCH_LIMIT = 104_857_600;
export const MAX_ATTEMPTS = 4;
const MAX_REDIRECTS = 5;
const ATTEMPT_TIMEOUT_MS = 60_000;
const BACKOFF_MS = [1_000, 2_000, 4_000];
const BACKOFF_CAP_MS = 30_000;
const RETRY_AFTER_GIVE_UP_MS = 300_000;
const ABS_READ_LIMIT = 64 * 1024;
const PROGRESS_STEP = 1024 * 1024;

/** Why a fetch failed; `kind` is the job failure class (§11.3). */
export type FetchFailureCode =
  'not_found' | 'not_pdf' | 'too_large' | 'rate_limited' | 'upstream' | 'http_status' | 'redirect_refused';

export class FetchFailure extends Error {
  constructor(
    readonly kind: 'fatal' | 'retryable',
    readonly code: FetchFailureCode,
    message: string,
    readonly attempts: number,
  ) {
    super(message);
    this.name = 'FetchFailure';
  }
}

export interface FetchProgress {
  readonly phase: 'waiting' | 'download';
  readonly attempt: number;
  readonly bytesReceived: number;
  readonly bytesTotal: number | null;
}

export interface PreprintFetcherOptions {
  readonly baseUrl: string;
  readonly mailto: string | null;
  readonly limiter: TokenBucket;
  readonly clock: Clock;
  readonly stager: DownloadStager;
  /** Per-attempt bound on the wait for response headers and on silence while the body streams. */
  readonly attemptTimeoutMs?: number;
  /** Aborted when the server stops: the attempt or backoff in progress ends at once with the signal's reason. */
  readonly signal?: AbortSignal;
}

/** `pksd/<version> (mailto:<mailto>)`, the parenthetical omitted without a mailto (§11.5). */
export function preprintUserAgent(mailto: string | null): string {
  return mailto ? `pksd/${VERSION} (mailto:${mailto})` : `pksd/${VERSION}`;
}

/** One attempt's result for the retry loop. */
type Attempt<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly fatal: true; readonly failure: FetchFailure }
  | {
      readonly ok: false;
      readonly fatal: false;
      readonly rateLimited: boolean;
      readonly retryAfterMs: number | null;
      readonly reason: string;
    };

const retry = (reason: string, rateLimited: boolean, retryAfterMs: number | null) =>
  ({ ok: false, fatal: false, rateLimited, retryAfterMs, reason }) as const;

/** Counts body bytes, reports progress at least every MiB, and fails past the cap. */
class ByteCounter extends Transform {
  received = 0;
  tooLarge = false;
  private reported = 0;

  constructor(
    private readonly cap: number,
    private readonly onBytes: (received: number) => void,
    private readonly onChunk: () => void,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.received += chunk.length;
    this.onChunk();
    if (this.received > this.cap) {
      this.tooLarge = true;
      return done(new Error(`more than ${this.cap} bytes`));
    }
    if (this.received - this.reported >= PROGRESS_STEP) {
      this.reported = this.received;
      this.onBytes(this.received);
    }
    done(null, chunk);
  }
}

export class PreprintFetcher {
  readonly baseUrl: string;
  readonly userAgent: string;
  private readonly attemptTimeoutMs: number;
  private readonly base: URL;

  constructor(private readonly options: PreprintFetcherOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.base = new URL(this.baseUrl);
    this.userAgent = preprintUserAgent(options.mailto);
    this.attemptTimeoutMs = options.attemptTimeoutMs ?? ATTEMPT_TIMEOUT_MS;
  }

  /** `<base>/pdf/<canonical id with version>` (old style with its category path). */
  pdfUrl(id: VersionedPreprintId): string {
    return `${this.baseUrl}/pdf/${id.id}`;
  }

  /**
   * Downloads the PDF of `id` into a staged file (the caller owns and removes it). Throws `FetchFailure`:
   * fatal `not_found` (404), `not_pdf`, `too_large`, `http_status`; retryable `rate_limited` / `upstream` once
   * the retries are spent.
   */
  async downloadPdf(id: VersionedPreprintId, progress: (p: FetchProgress) => void): Promise<StagedFile> {
    const url = this.pdfUrl(id);
    return this.withRetries<StagedFile>(async (attempt, signal, touch) => {
      progress({ phase: 'waiting', attempt, bytesReceived: 0, bytesTotal: null });
      const res = await this.request(url, 'application/pdf', signal);
      if (res.status === 404) {
        await res.body?.cancel();
        return {
          ok: false,
          fatal: true,
          failure: new FetchFailure('fatal', 'not_found', `arXiv has no paper ${id.id} (HTTP 404)`, attempt),
        };
      }
      const unusable = await this.unusableStatus(res, `arXiv answered HTTP ${res.status} for ${id.id}`, attempt);
      if (unusable) return unusable;
      const lengthHeader = res.headers.get('content-length');
      const bytesTotal = lengthHeader !== null && /^\d+$/.test(lengthHeader) ? Number(lengthHeader) : null;
      if (bytesTotal !== null && bytesTotal > PDF_FETCH_LIMIT) {
        await res.body?.cancel();
        return { ok: false, fatal: true, failure: tooLarge(attempt) };
      }
      progress({ phase: 'download', attempt, bytesReceived: 0, bytesTotal });
      const counter = new ByteCounter(
        PDF_FETCH_LIMIT,
        (bytesReceived) => progress({ phase: 'download', attempt, bytesReceived, bytesTotal }),
        touch,
      );
      const body = res.body ? Readable.fromWeb(res.body as never) : Readable.from([]);
      body.on('error', (err) => counter.destroy(err));
      let staged: StagedFile;
      try {
        staged = await this.options.stager.stageDownload(body.pipe(counter), PDF_FETCH_LIMIT, 'pdf');
      } catch (err) {
        body.destroy();
        if (counter.tooLarge) return { ok: false, fatal: true, failure: tooLarge(attempt) };
        if (err instanceof SourceStreamError) return retry(`download interrupted: ${err.message}`, false, null);
        throw err;
      }
      progress({ phase: 'download', attempt, bytesReceived: staged.size, bytesTotal });
      if (!staged.head.subarray(0, 5).equals(Buffer.from('%PDF-'))) {
        await staged.remove();
        const type = res.headers.get('content-type') ?? 'no content type';
        return {
          ok: false,
          fatal: true,
          failure: new FetchFailure(
            'fatal',
            'not_pdf',
            `arXiv did not return a PDF for ${id.id} (${type}; missing %PDF- header)`,
            attempt,
          ),
        };
      }
      return { ok: true, value: staged };
    });
  }

  /**
   * The latest version of a versionless id from its abstract page's `og:url` meta tag (§12.1). Throws
   * `FetchFailure`: `not_found` (404), `rate_limited` (429 after the retries), `upstream` (anything else).
   */
  async latestVersion(id: PreprintId): Promise<number> {
    const url = `${this.baseUrl}/abs/${id.versionless}`;
    return this.withRetries<number>(async (attempt, signal) => {
      const res = await this.request(url, 'text/html', signal);
      if (res.status === 404) {
        await res.body?.cancel();
        const failure = new FetchFailure('fatal', 'not_found', `arXiv has no paper ${id.versionless}`, attempt);
        return { ok: false, fatal: true, failure };
      }
      const unusable = await this.unusableStatus(res, `HTTP ${res.status}`, attempt);
      if (unusable) return unusable;
      const html = await readPrefix(res, ABS_READ_LIMIT);
      const version = ogUrlVersion(html, id.versionless);
      if (version === null) {
        const failure = new FetchFailure(
          'fatal',
          'upstream',
          `the abstract page names no version (no og:url meta tag)`,
          attempt,
        );
        return { ok: false, fatal: true, failure };
      }
      return { ok: true, value: version };
    });
  }

  /** Non-200 answers other than 404: 429 and ≥ 500 are retried, anything else is fatal. `null` for a 200. */
  private async unusableStatus(res: Response, fatalText: string, attempt: number): Promise<Attempt<never> | null> {
    if (res.status === 200) return null;
    await res.body?.cancel();
    const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'), this.options.clock.now());
    if (res.status === 429) return retry('HTTP 429', true, retryAfterMs);
    if (res.status >= 500) return retry(`HTTP ${res.status}`, false, retryAfterMs);
    return { ok: false, fatal: true, failure: new FetchFailure('fatal', 'http_status', fatalText, attempt) };
  }

  /**
   * Up to 4 attempts. Before a retry: `Retry-After` when given (over 300 s ends the retries), else 1 s, 2 s, 4 s
   * (capped at 30 s). Exhausted 429 → retryable `rate_limited`, other exhausted causes → retryable `upstream`;
   * their message is the last reason and the attempt count, for the caller to put in context.
   */
  private async withRetries<T>(
    attemptFn: (attempt: number, signal: AbortSignal, touch: () => void) => Promise<Attempt<T>>,
  ): Promise<T> {
    const { clock, signal: stop } = this.options;
    for (let attempt = 1; ; attempt++) {
      stop?.throwIfAborted();
      const controller = new AbortController();
      let timer: NodeJS.Timeout | undefined;
      const touch = () => {
        clearTimeout(timer);
        timer = setTimeout(
          () => controller.abort(new Error(`no answer within ${this.attemptTimeoutMs / 1000} s`)),
          this.attemptTimeoutMs,
        );
        timer.unref?.();
      };
      let result: Attempt<T>;
      try {
        touch();
        result = await attemptFn(attempt, stop ? AbortSignal.any([controller.signal, stop]) : controller.signal, touch);
      } catch (err) {
        if (err instanceof FetchFailure) throw err;
        stop?.throwIfAborted();
        const reason = controller.signal.aborted
          ? `timeout (${(controller.signal.reason as Error).message})`
          : describeNetworkError(err);
        result = retry(reason, false, null);
      } finally {
        clearTimeout(timer);
      }
      if (result.ok) return result.value;
      stop?.throwIfAborted();
      if (result.fatal) throw result.failure;
      const wait = result.retryAfterMs ?? Math.min(BACKOFF_MS[attempt - 1] ?? BACKOFF_CAP_MS, BACKOFF_CAP_MS);
      if (attempt >= MAX_ATTEMPTS || wait > RETRY_AFTER_GIVE_UP_MS) {
        const code = result.rateLimited ? 'rate_limited' : 'upstream';
        const text = `${result.reason} after ${attempt} attempt${attempt === 1 ? '' : 's'}`;
        throw new FetchFailure('retryable', code, text, attempt);
      }
      await clock.sleep(wait, stop);
    }
  }

  /** One logical request: follows up to 5 redirects (on the preprint host only), every hop taking a limiter token. */
  private async request(url: string, accept: string, signal: AbortSignal): Promise<Response> {
    let current = url;
    for (let hop = 0; ; hop++) {
      const sending = current;
      const res = await this.options.limiter.send(
        () => fetch(sending, { headers: { 'User-Agent': this.userAgent, Accept: accept }, redirect: 'manual', signal }),
        signal,
      );
      const location = res.headers.get('location');
      if (![301, 302, 303, 307, 308].includes(res.status) || location === null) return res;
      await res.body?.cancel();
      if (hop >= MAX_REDIRECTS) {
        throw new FetchFailure(
          'fatal',
          'http_status',
          `arXiv redirected more than ${MAX_REDIRECTS} times for ${url}`,
          1,
        );
      }
      const target = URL.canParse(location, current) ? new URL(location, current) : null;
      const refused = target ? redirectRefusal(this.base, target) : 'an unparseable Location';
      if (target === null || refused !== null) {
        throw new FetchFailure('fatal', 'redirect_refused', `arXiv redirect for ${url} not followed: ${refused}`, 1);
      }
      current = target.toString();
    }
  }
}

/**
 * Why a redirect target is not followed, or `null` (issue 20): only `https:` (or the base URL's own scheme, so a
 * loopback `http:` base works in tests) on the preprint host or one of its subdomains, on the base URL's port. A
 * redirect must not turn the server into a fetcher of `data:`/`file:` URLs, other hosts or local services.
 */
export function redirectRefusal(base: URL, target: URL): string | null {
  if (target.protocol !== 'https:' && target.protocol !== base.protocol) {
    const allowed = base.protocol === 'https:' ? 'https:' : `https: or ${base.protocol}`;
    return `a ${target.protocol} URL (only ${allowed} URLs are followed)`;
  }
  // `fetch` refuses a URL with credentials; refused here, it is fatal rather than retried as a network error.
  if (target.username !== '' || target.password !== '') return 'a URL with credentials';
  const host = target.hostname;
  const sameHost = host === base.hostname;
  const subdomain = isIP(base.hostname) === 0 && host.endsWith(`.${base.hostname}`);
  if (!sameHost && !subdomain) return `another host ${host} (only ${base.hostname} or its subdomains)`;
  // `URL` normalises a scheme's default port to '': an `http:` → `https:` upgrade on default ports is no change.
  if (target.port !== base.port) return `port ${portOf(target)} (the preprint host's port is ${portOf(base)})`;
  return null;
}

const portOf = (url: URL): string => url.port || (url.protocol === 'https:' ? '443' : '80');

function tooLarge(attempt: number): FetchFailure {
  return new FetchFailure('fatal', 'too_large', `the PDF from arXiv exceeds ${PDF_FETCH_LIMIT} bytes`, attempt);
}

function describeNetworkError(err: unknown): string {
  const e = err as Error & { cause?: { code?: string; message?: string } };
  const cause = e.cause?.code ?? e.cause?.message;
  return cause ? `${e.message} (${cause})` : e.message;
}

/** The first `limit` bytes of a body as latin1 text (only ASCII matters); the rest is not read. */
async function readPrefix(res: Response, limit: number): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.length;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).subarray(0, limit).toString('latin1');
}

const META_TAG = /<meta\b[^>]*>/gi;
const ATTRIBUTE = /([a-zA-Z_:][-a-zA-Z0-9_:.]*)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))/g;

/** The version `N` of `<meta property="og:url" content="http(s)://arxiv.org/abs/<id>vN">`, or `null`. */
export function ogUrlVersion(html: string, versionless: string): number | null {
  for (const tag of html.match(META_TAG) ?? []) {
    const attrs = new Map<string, string>();
    for (const m of tag.matchAll(ATTRIBUTE)) attrs.set(m[1]!.toLowerCase(), m[2] ?? m[3] ?? m[4] ?? '');
    if (attrs.get('property')?.toLowerCase() !== 'og:url') continue;
    const m = /^https?:\/\/(?:www\.)?arxiv\.org\/abs\/(.+)v(\d+)\/?$/.exec((attrs.get('content') ?? '').trim());
    if (m && m[1] === versionless && Number(m[2]) >= 1) return Number(m[2]);
  }
  return null;
}
