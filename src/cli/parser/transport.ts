/**
 * `pks contrib parser`'s transport to the parser provider (CONTRACT §12.4): the client's own HTTP (`send`), so the
 * `insecure` setting and its idle timeout apply as to every other request of `pks`.
 */
import { ParserNetworkError, type ParserTransport } from '../../parser-api/client.js';
import { send } from '../http/transport.js';

/** Any failure that is not the caller's cancellation is a network error of the parser. */
function networkError(err: unknown, signal: AbortSignal | undefined): unknown {
  return signal?.aborted ? err : new ParserNetworkError((err as Error).message);
}

export function cliParserTransport(insecure: boolean): ParserTransport {
  return {
    async call({ url, method, headers, body, timeoutMs, limit, signal }) {
      try {
        const res = await send({
          url: new URL(url),
          method,
          headers,
          ...(body === undefined ? {} : { body }),
          timeoutMs,
          insecure,
          ...(signal ? { signal } : {}),
        });
        return { status: res.status, text: (await res.buffer(limit)).toString('utf8') };
      } catch (err) {
        throw networkError(err, signal);
      }
    },

    async open(url, timeoutMs, signal) {
      try {
        const res = await send({
          url: new URL(url),
          method: 'GET',
          timeoutMs,
          maxRedirects: 5,
          insecure,
          ...(signal ? { signal } : {}),
        });
        return { status: res.status, body: res.stream, discard: () => res.discard() };
      } catch (err) {
        throw networkError(err, signal);
      }
    },
  };
}
