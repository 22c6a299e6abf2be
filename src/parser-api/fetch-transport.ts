/** The server's transport to the parser provider: `fetch` with a deadline per call (CONTRACT §12.4). */
import { Readable } from 'node:stream';
import { ParserNetworkError, type ParserTransport } from './client.js';

/** A call's own time bound, ended early by the caller's `signal`. */
const withDeadline = (ms: number, signal: AbortSignal | undefined): AbortSignal =>
  signal ? AbortSignal.any([AbortSignal.timeout(ms), signal]) : AbortSignal.timeout(ms);

/** `timeout`, or the error's message with its system code (`fetch failed (ECONNREFUSED)`). */
function networkError(err: unknown): ParserNetworkError {
  const e = err as Error & { cause?: { code?: string } };
  return new ParserNetworkError(
    e.name === 'TimeoutError' ? 'timeout' : `${e.message}${e.cause?.code ? ` (${e.cause.code})` : ''}`,
  );
}

async function readCapped(res: Response, cap: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (res.body) {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= cap) break;
    }
  }
  return Buffer.concat(chunks).subarray(0, cap).toString('utf8');
}

export const fetchTransport: ParserTransport = {
  async call({ url, method, headers, body, timeoutMs, limit, signal }) {
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        headers,
        ...(body === undefined ? {} : { body }),
        signal: withDeadline(timeoutMs, signal),
      });
    } catch (err) {
      signal?.throwIfAborted();
      throw networkError(err);
    }
    try {
      return { status: res.status, text: await readCapped(res, limit) };
    } catch (err) {
      signal?.throwIfAborted();
      throw networkError(err);
    }
  },

  async open(url, timeoutMs, signal) {
    let res: Response;
    try {
      res = await fetch(url, { signal: withDeadline(timeoutMs, signal) });
    } catch (err) {
      signal?.throwIfAborted();
      throw networkError(err);
    }
    const body = res.body ? Readable.fromWeb(res.body as never) : Readable.from([]);
    // Destroying the Node stream cancels the web stream under it (which the adapter now holds locked).
    return { status: res.status, body, discard: () => void body.destroy() };
  },
};
