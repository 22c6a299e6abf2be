import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
  /** When it arrived, by the double's clock (`Date.now` unless a test gives another). */
  readonly at: number;
}

export interface DoubleOptions {
  /** A fixed loopback port (the development upstreams); default: any free port. */
  readonly port?: number;
  /** The clock that stamps requests (`RecordedRequest.at`). */
  readonly now?: () => number;
}

export type DoubleHandler = (req: RecordedRequest, res: ServerResponse) => void | Promise<void>;

export interface HttpDouble {
  /** `http://127.0.0.1:<port>`: the base URL to put in the matching setting. */
  readonly baseUrl: string;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

/**
 * A loopback HTTP server that records requests and answers through `handle`. The upstream doubles (arXiv,
 * OpenAlex, MinerU, GitHub) are built on it and speak the wire protocol of CONTRACT §12.
 */
export async function startHttpDouble(handle: DoubleHandler, options: DoubleOptions = {}): Promise<HttpDouble> {
  const now = options.now ?? Date.now;
  const requests: RecordedRequest[] = [];
  const server = http.createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const recorded = {
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks),
        at: now(),
      };
      requests.push(recorded);
      Promise.resolve(handle(recorded, res)).catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(String(err));
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** A canned answer of a double (scripted failures, redirects, wrong content). */
export interface Answer {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Buffer;
}

export function sendAnswer(res: ServerResponse, answer: Answer): void {
  const body = answer.body === undefined ? Buffer.alloc(0) : Buffer.from(answer.body);
  res.writeHead(answer.status, { 'content-length': body.length, ...answer.headers });
  res.end(body);
}

/** A gate that holds requests until opened (to observe work in flight); open by default. */
export class Gate {
  private waiters: (() => void)[] = [];
  private closed = false;

  close(): void {
    this.closed = true;
  }

  open(): void {
    this.closed = false;
    for (const w of this.waiters.splice(0)) w();
  }

  /** Number of requests held right now. */
  get held(): number {
    return this.waiters.length;
  }

  pass(): Promise<void> {
    if (!this.closed) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}
