/**
 * The application's hooks every request passes, one plain (callback) hook per phase: Fastify runs each hook through
 * its hook runner, so one hook doing each concern in turn costs less per request than one hook per concern; whether the
 * request is an `/api` request is read off its target once per phase (`isApiRequest`).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { userHeaderBinding } from './audit.js';
import type { ShutdownState } from './context.js';
import { keepStoredObject } from './compression.js';
import { addApiHeaders, isApiRequest } from './headers.js';
import { setSecurityHeaders } from './security-headers.js';
import { bodyIdleWatch } from './timeouts.js';

export interface RequestHookOptions {
  /** A request body that makes no progress for this long closes the connection (http/timeouts.ts). */
  readonly bodyIdleMs: number;
  /** The reverse proxy's user header, bound to the request's log lines (http/audit.ts). */
  readonly userHeader: string | null;
}

/**
 * `onRequest`: the body-idle watchdog, the user-header binding and the `/api` headers; then a request no route serves
 * is answered by `unrouted` (before any body is read or judged: an unrouted request's body is never parsed), which
 * returns the reply (a thenable), as Fastify expects of a hook that answers.
 */
export function onRequestHook(
  options: RequestHookOptions,
  unrouted: (request: FastifyRequest, reply: FastifyReply) => FastifyReply,
) {
  const watch = bodyIdleWatch(options.bodyIdleMs);
  const bindUserHeader = userHeaderBinding(options.userHeader);
  return (request: FastifyRequest, reply: FastifyReply, done: () => void): FastifyReply | void => {
    watch(request);
    bindUserHeader(request);
    if (isApiRequest(request)) addApiHeaders(reply);
    if (request.is404) return unrouted(request, reply);
    done();
  };
}

/**
 * `onSend`: the security headers, the compression opt-out of a stored object, and — once `shutdown` has started —
 * `Connection: close`, so that requests in flight on keep-alive connections let the server end.
 */
export function onSendHook(shutdown: ShutdownState) {
  return (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: () => void): void => {
    const apiPath = isApiRequest(request);
    setSecurityHeaders(reply, apiPath);
    keepStoredObject(request, reply, payload, apiPath);
    if (shutdown.started) reply.header('connection', 'close');
    done();
  };
}
