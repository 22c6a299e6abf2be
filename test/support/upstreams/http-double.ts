import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
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
export async function startHttpDouble(handle: DoubleHandler): Promise<HttpDouble> {
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
      };
      requests.push(recorded);
      Promise.resolve(handle(recorded, res)).catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(String(err));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
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
