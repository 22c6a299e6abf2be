/**
 * When an outgoing `fetch` request was written to its socket. Node's `fetch` (undici) publishes its documented
 * diagnostics channels: `undici:request:create` when a request is dispatched — inside the async context of the
 * `fetch` call, so `AsyncLocalStorage` names the caller's record — and `undici:client:sendHeaders` once its headers
 * are written. Between a call and that write lie the client's lazy set-up on first use, the connection (TCP, TLS),
 * and any event-loop stall of a busy process: measured up to ~0.8 s on a fresh instance (docs/decisions.md, H24-REST).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import diagnosticsChannel from 'node:diagnostics_channel';

/** One send being watched: `onSent` runs once, when its first request's headers are written. */
interface Watch {
  onSent: ((at: number) => void) | null;
  readonly now: () => number;
}

const watching = new AsyncLocalStorage<Watch>();
const byRequest = new WeakMap<object, Watch>();

diagnosticsChannel.subscribe('undici:request:create', (message) => {
  const watch = watching.getStore();
  if (watch) byRequest.set((message as { request: object }).request, watch);
});
diagnosticsChannel.subscribe('undici:client:sendHeaders', (message) => {
  const watch = byRequest.get((message as { request: object }).request);
  const onSent = watch?.onSent;
  if (!watch || !onSent) return;
  watch.onSent = null;
  onSent(watch.now());
});

/**
 * Runs `send` (one `fetch`) and calls `onSent` with the time (`now()`) its request's headers were written — or,
 * when they never were (refused, aborted) or the client published nothing, when `send` settled: never earlier than
 * the write, so a caller counting from it never undercounts.
 */
export async function watchSent<T>(
  now: () => number,
  send: () => Promise<T>,
  onSent: (at: number) => void,
): Promise<T> {
  const watch: Watch = { onSent, now };
  try {
    return await watching.run(watch, send);
  } finally {
    const pending = watch.onSent;
    watch.onSent = null;
    pending?.(now());
  }
}
