/**
 * Response compression (`@fastify/compress`): brotli or gzip, as the client's `Accept-Encoding` prefers, for
 * textual answers of at least 1 KiB (JSON above all). Stored objects pass as stored: an `/api/` body sent with a
 * declared length (a stream, or a small markdown as one buffer) is a PDF, zip or image (compressed already) or a
 * paper's markdown, which keeps the `Content-Length` CONTRACT §11.4 promises (pks shows download progress from it).
 * The web front end's own files are compressed at build time (web/precompress.ts, routes/spa.ts).
 */
import fastifyCompress from '@fastify/compress';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { Stream } from 'node:stream';

/**
 * Marks a stored object (`apiPath`: the request's path is an `/api` path; a stream, or a small markdown read whole,
 * with its declared length) with the plugin's per-request opt-out. Run by the application's `onSend` hook
 * (http/request-hooks.ts), which runs ahead of the plugin's own: application hooks run before route hooks.
 */
export function keepStoredObject(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  apiPath: boolean,
): void {
  if (apiPath && (payload instanceof Stream || Buffer.isBuffer(payload)) && reply.hasHeader('content-length')) {
    request.headers['x-no-compression'] = 'stored object';
  }
}

type OnSend = (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: HookDone) => void;
type HookDone = (error?: Error | null, payload?: unknown) => void;

const onSendHooksOf = (route: RouteOptions): readonly unknown[] =>
  route.onSend === undefined ? [] : [route.onSend].flat();

/**
 * The plugin's `onSend` for a request that sends no `Accept-Encoding`: such a request asks for no encoding, and with
 * the options given here (no `onUnsupportedEncoding`, no `inflateIfDeflated`; no route answers with a fetch
 * `Response`) the plugin passes its payload on untouched — after three header reads, a content-type test and the
 * negotiation, ~0.2 µs a request that is skipped here. A request that sends the header goes to the plugin as before.
 */
function negotiatedOnly(onSend: OnSend): OnSend {
  return function onSendIfNegotiated(this: unknown, request, reply, payload, done) {
    if (request.headers['accept-encoding'] === undefined) done(null, payload);
    else onSend.call(this, request, reply, payload, done);
  };
}

/**
 * Registers compression for every route added after it (the plugin attaches itself to each route as it is added: the
 * `onSend` it appends is wrapped by `negotiatedOnly`).
 */
export async function registerCompression(app: FastifyInstance): Promise<void> {
  const hooksBefore = new WeakMap<RouteOptions, number>();
  app.addHook('onRoute', (route) => {
    hooksBefore.set(route, onSendHooksOf(route).length);
  });
  await app.register(fastifyCompress, {
    encodings: ['br', 'gzip'],
    threshold: 1024,
    // Request bodies are taken as sent (uploads stream, with their own size limits).
    globalDecompression: false,
  });
  app.addHook('onRoute', (route) => {
    const hooks = route.onSend;
    // The plugin appends its hook to an array (none on a route declared `compress: false`).
    if (!Array.isArray(hooks) || hooks.length !== (hooksBefore.get(route) ?? 0) + 1) return;
    hooks[hooks.length - 1] = negotiatedOnly(hooks[hooks.length - 1] as OnSend);
  });
}
