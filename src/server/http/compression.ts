/**
 * Response compression (`@fastify/compress`): brotli or gzip, as the client's `Accept-Encoding` prefers, for
 * textual answers of at least 1 KiB (JSON above all). Stored objects pass as stored: an `/api/` body sent with a
 * declared length (a stream, or a small markdown as one buffer) is a PDF, zip or image (compressed already) or a
 * paper's markdown, which keeps the `Content-Length` CONTRACT §11.4 promises (pks shows download progress from it).
 * The web front end's own files are compressed at build time (web/precompress.ts, routes/spa.ts).
 */
import fastifyCompress from '@fastify/compress';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
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

/** Registers compression for every route added after it (the plugin attaches itself to each route as it is added). */
export async function registerCompression(app: FastifyInstance): Promise<void> {
  await app.register(fastifyCompress, {
    encodings: ['br', 'gzip'],
    threshold: 1024,
    // Request bodies are taken as sent (uploads stream, with their own size limits).
    globalDecompression: false,
  });
}
