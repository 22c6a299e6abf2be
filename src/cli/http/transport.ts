/**
 * One HTTP exchange over `node:http`/`node:https`: streamed request bodies with upload progress, an idle timeout,
 * TLS verification that can be switched off, optional redirects, and a response whose body is read or streamed
 * by the caller. Errors before a status line arrive are `TransportError`s.
 */
import type { ClientRequest, IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { RequestOptions } from 'node:https';
import { TransportError } from '../errors.js';
import { fileChunks } from '../file-chunks.js';

/** The first `size` bytes of a file, read from disk each time the body is sent. */
export interface FilePart {
  readonly path: string;
  readonly size: number;
}

/** Bytes in memory and files, sent in this order; `length` is their total size. Every send (a retry) reads anew. */
export interface PartsBody {
  readonly length: number;
  readonly parts: readonly (Buffer | FilePart)[];
}

export type RequestBody = Buffer | string | PartsBody;

export interface TransportRequest {
  readonly url: URL;
  readonly method: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: RequestBody;
  /** Idle timeout: no bytes either way for this long ends the exchange. */
  readonly timeoutMs: number;
  /** Skip TLS certificate verification. */
  readonly insecure?: boolean;
  /** Follow up to this many redirects (GET only). */
  readonly maxRedirects?: number;
  readonly signal?: AbortSignal;
  /** Bytes of the body sent so far. */
  readonly onUploadProgress?: (sent: number) => void;
}

export interface TransportResponse {
  readonly url: URL;
  readonly status: number;
  readonly statusText: string;
  readonly headers: IncomingHttpHeaders;
  header(name: string): string | undefined;
  /** The whole body (up to `limit` bytes; the rest is discarded). */
  buffer(limit?: number): Promise<Buffer>;
  text(): Promise<string>;
  /** The body as a stream (read it once, or call `discard`). */
  readonly stream: IncomingMessage;
  discard(): void;
}

const DEFAULT_BODY_LIMIT = 64 * 1024 * 1024;

/** Headers that carry credentials: never sent on to another origin by a redirect. */
const CREDENTIAL_HEADERS = ['authorization', 'proxy-authorization', 'cookie'];

/**
 * Sends `req`, following redirects when allowed. A redirect to another origin (scheme, host and port) is followed
 * without the credential headers — and they stay dropped for the rest of the chain, as `fetch` does.
 */
export async function send(req: TransportRequest): Promise<TransportResponse> {
  let url = req.url;
  let headers = req.headers;
  for (let hop = 0; ; hop++) {
    const res = await exchange({ ...req, url, ...(headers ? { headers } : {}) });
    const location = res.header('location');
    if (res.status >= 300 && res.status < 400 && location && hop < (req.maxRedirects ?? 0) && req.method === 'GET') {
      res.discard();
      url = redirectTarget(location, url);
      if (headers && url.origin !== req.url.origin) headers = withoutCredentials(headers);
      continue;
    }
    return res;
  }
}

function redirectTarget(location: string, from: URL): URL {
  try {
    return new URL(location, from);
  } catch {
    throw new TransportError(`${from.host} redirected to an invalid URL`);
  }
}

function withoutCredentials(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).filter(([name]) => !CREDENTIAL_HEADERS.includes(name.toLowerCase())),
  );
}

function exchange(req: TransportRequest): Promise<TransportResponse> {
  return new Promise((resolve, reject) => {
    const { url } = req;
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      return reject(new TransportError(`unsupported URL scheme in ${url.href}`));
    }
    if (req.signal?.aborted) return reject(req.signal.reason as Error);
    const body = req.body;
    const headers: Record<string, string> = { ...req.headers };
    if (body !== undefined) {
      headers['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.length);
    }
    const options: RequestOptions = {
      method: req.method,
      headers,
      ...(url.protocol === 'https:' ? { rejectUnauthorized: req.insecure !== true } : {}),
    };
    // Not `import 'node:http'`: its ES module namespace reads the lazy WebSocket getters, which load undici
    // (~25 ms of every run's start-up); the CommonJS module object leaves them lazy. TLS loads only for https.
    const request =
      url.protocol === 'https:'
        ? process.getBuiltinModule('node:https').request(url, options)
        : process.getBuiltinModule('node:http').request(url, options);
    let settled = false;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      request.destroy();
      reject(err instanceof TransportError || isAbort(err, req.signal) ? err : new TransportError(err.message));
    };
    let response: IncomingMessage | null = null;
    // Before the answer an abort fails the request; after it, it ends the body stream.
    const onAbort = () =>
      response ? response.destroy(req.signal!.reason as Error) : fail(req.signal!.reason as Error);
    req.signal?.addEventListener('abort', onAbort, { once: true });
    request.setTimeout(req.timeoutMs, () =>
      fail(new TransportError(`no response from ${url.host} within ${Math.round(req.timeoutMs / 1000)}s`)),
    );
    request.on('error', fail);
    request.on('response', (res) => {
      settled = true;
      response = res;
      res.on('close', () => req.signal?.removeEventListener('abort', onAbort));
      // The idle timeout keeps guarding the body; an abort destroys it.
      res.setTimeout(req.timeoutMs, () =>
        res.destroy(new TransportError(`${url.host} stopped sending for ${Math.round(req.timeoutMs / 1000)}s`)),
      );
      resolve(wrap(url, res));
    });
    if (body === undefined || typeof body === 'string' || Buffer.isBuffer(body)) {
      request.end(body);
      return;
    }
    writeParts(request, body.parts, req.onUploadProgress).catch((err: Error) => fail(err));
  });
}

async function writeParts(
  request: ClientRequest,
  parts: PartsBody['parts'],
  progress: ((sent: number) => void) | undefined,
): Promise<void> {
  let sent = 0;
  const write = async (chunk: Buffer) => {
    await writeChunk(request, chunk);
    sent += chunk.length;
    progress?.(sent);
  };
  for (const part of parts) {
    if (Buffer.isBuffer(part)) {
      await write(part);
      continue;
    }
    // Each chunk is taken by the socket before the next is asked for, so its buffer can be refilled (while the
    // next one is already being read).
    let fileBytes = 0;
    for await (const chunk of fileChunks(part.path, part.size)) {
      await write(chunk);
      fileBytes += chunk.length;
    }
    if (fileBytes < part.size) throw new TransportError(`${part.path} became shorter while it was being sent`);
  }
  request.end();
}

/** Resolves once the socket has taken `chunk` (the buffer may then be reused); the request closing first fails. */
function writeChunk(request: ClientRequest, chunk: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const onClose = () => reject(new TransportError('the connection closed while the request body was being sent'));
    request.once('close', onClose);
    request.write(chunk, (err) => {
      request.off('close', onClose);
      if (err) reject(err);
      else resolve();
    });
  });
}

function wrap(url: URL, res: IncomingMessage): TransportResponse {
  const header = (name: string) => {
    const value = res.headers[name.toLowerCase()];
    return Array.isArray(value) ? value.join(', ') : value;
  };
  const buffer = async (limit = DEFAULT_BODY_LIMIT) => {
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of res as AsyncIterable<Buffer>) {
        if (size < limit) chunks.push(chunk.subarray(0, limit - size));
        size += chunk.length;
      }
    } catch (err) {
      throw err instanceof TransportError ? err : new TransportError((err as Error).message);
    }
    return Buffer.concat(chunks);
  };
  return {
    url,
    status: res.statusCode ?? 0,
    statusText: res.statusMessage ?? '',
    headers: res.headers,
    header,
    buffer,
    text: async () => (await buffer()).toString('utf8'),
    stream: res,
    discard: () => {
      res.resume();
    },
  };
}

function isAbort(err: Error, signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true && err === signal.reason;
}
