/**
 * Connection timeouts. Node bounds the time to receive the headers; the body is bounded by progress, not by total
 * time, so a 100 MiB upload over a slow link still completes while a client that stops sending is cut off.
 */
import { Socket } from 'node:net';
import type { FastifyRequest } from 'fastify';

export interface Timeouts {
  /** Time to receive a request's complete headers (Node `headersTimeout`). */
  readonly headersMs: number;
  /** A request body that makes no progress for this long closes the connection. */
  readonly bodyIdleMs: number;
  /** Upper bound for receiving a whole request (Node `requestTimeout`); generous, for slow uploads. */
  readonly requestMs: number;
  /** Idle keep-alive connections close after this long. */
  readonly keepAliveMs: number;
}

export const DEFAULT_TIMEOUTS: Timeouts = {
  headersMs: 30_000,
  bodyIdleMs: 60_000,
  requestMs: 3_600_000,
  keepAliveMs: 72_000,
};

/** The Node server options that enforce the header and request timeouts (checked every `headersMs / 6`). */
export function serverTimeoutOptions(t: Timeouts) {
  return {
    headersTimeout: t.headersMs,
    requestTimeout: t.requestMs,
    connectionsCheckingInterval: Math.max(100, Math.floor(Math.min(t.headersMs, t.requestMs) / 6)),
  };
}

/**
 * Whether a request announces a body (RFC 9112 §6.3: `Transfer-Encoding`, or a `Content-Length` other than 0); a
 * request without one (every GET of a client) has nothing to watch.
 */
const announcesBody = (request: FastifyRequest): boolean => {
  const { headers } = request;
  const length = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
};

/**
 * Run as a request starts (the `onRequest` hook of http/request-hooks.ts): while the body of a request is still
 * arriving, closes the connection once the socket has read nothing for `idleMs`. Progress is the socket's byte count,
 * which also counts bytes the parser consumes directly. It runs on every request, and most have no body.
 */
export function bodyIdleWatch(idleMs: number): (request: FastifyRequest) => void {
  const tick = Math.max(50, Math.floor(idleMs / 10));
  return (request: FastifyRequest): void => {
    const raw = request.raw;
    const socket = raw.socket;
    // Injected requests (tests) have no network socket to watch.
    if (!announcesBody(request) || raw.complete || !(socket instanceof Socket)) return;
    let seen = socket.bytesRead;
    let lastProgress = Date.now();
    const timer = setInterval(() => {
      if (raw.complete || socket.destroyed) return stop();
      if (socket.bytesRead !== seen || socket.isPaused()) {
        // A socket this server paused (back-pressure) is not the client's silence.
        seen = socket.bytesRead;
        lastProgress = Date.now();
      } else if (Date.now() - lastProgress >= idleMs) {
        request.log.info({ idle_ms: idleMs }, 'request body made no progress; closing the connection');
        stop();
        socket.destroy();
      }
    }, tick);
    timer.unref();
    const stop = () => clearInterval(timer);
    raw.once('end', stop);
    raw.once('close', stop);
  };
}
