/**
 * `registerCompression` (src/server/http/compression.ts) answers exactly as `@fastify/compress` registered plainly with
 * the same options: status, headers and body bytes, for every kind of payload a route sends (JSON above and below the
 * threshold, text, a buffer, a stream, an answer encoded already, a partial answer, no body), with and without
 * `Accept-Encoding` — the skip for requests without the header changes nothing.
 */
import fastifyCompress from '@fastify/compress';
import Fastify, { type FastifyInstance, type onSendHookHandler } from 'fastify';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { registerCompression } from '../../../src/server/http/compression.js';

const LONG = 'a line of text that compresses well; '.repeat(100);

/** A route's own `onSend` hook, ahead of the plugin's. */
const routeOwnHook: onSendHookHandler = (_request, _reply, payload, done) => done(null, payload);

function routes(app: FastifyInstance): void {
  app.get('/json', async () => ({ text: LONG }));
  app.get('/small', async () => ({ ok: true }));
  app.get('/text', async (_request, reply) => reply.type('text/plain; charset=utf-8').send(LONG));
  app.get('/buffer', async (_request, reply) => reply.type('application/octet-stream').send(Buffer.from(LONG)));
  app.get('/stream', async (_request, reply) => reply.type('text/plain').send(Readable.from([LONG, LONG])));
  app.get('/encoded', async (_request, reply) =>
    reply.header('content-encoding', 'gzip').type('text/plain').send(LONG),
  );
  app.get('/partial', async (_request, reply) => reply.code(206).header('content-range', 'bytes 0-9/20').send(LONG));
  app.get('/none', async (_request, reply) => reply.code(204).send());
  app.get('/off', { compress: false }, async () => ({ text: LONG }));
  app.get('/own', { onSend: routeOwnHook }, async () => ({ text: LONG }));
}

let wrapped: FastifyInstance;
let plain: FastifyInstance;
beforeAll(async () => {
  wrapped = Fastify();
  await registerCompression(wrapped);
  routes(wrapped);
  plain = Fastify();
  await plain.register(fastifyCompress, { encodings: ['br', 'gzip'], threshold: 1024, globalDecompression: false });
  routes(plain);
  await Promise.all([wrapped.ready(), plain.ready()]);
});
afterAll(async () => {
  await Promise.all([wrapped?.close(), plain?.close()]);
});

const PATHS = ['/json', '/small', '/text', '/buffer', '/stream', '/encoded', '/partial', '/none', '/off', '/own'];
const ACCEPT = [undefined, '', 'identity', 'br', 'gzip', 'br, gzip', 'deflate', 'x-gzip', '*', 'GZIP;q=0.5'];

it.each(PATHS.flatMap((path) => ACCEPT.map((accept) => [path, accept] as const)))(
  'GET/HEAD %s with Accept-Encoding %j: the same answer as the plain plugin',
  async (path, accept) => {
    for (const method of ['GET', 'HEAD'] as const) {
      const headers = accept === undefined ? {} : { 'accept-encoding': accept };
      const [a, b] = await Promise.all([
        wrapped.inject({ method, url: path, headers }),
        plain.inject({ method, url: path, headers }),
      ]);
      const { date: _a, ...headersA } = a.headers;
      const { date: _b, ...headersB } = b.headers;
      expect([a.statusCode, headersA]).toEqual([b.statusCode, headersB]);
      expect(a.rawPayload.equals(b.rawPayload)).toBe(true);
    }
  },
);

it('a request without Accept-Encoding gets JSON as it is; one that asks gets it compressed', async () => {
  const asIs = await wrapped.inject({ url: '/json' });
  expect(asIs.headers['content-encoding']).toBeUndefined();
  expect(asIs.json()).toEqual({ text: LONG });
  const compressed = await wrapped.inject({ url: '/json', headers: { 'accept-encoding': 'gzip' } });
  expect(compressed.headers['content-encoding']).toBe('gzip');
  expect(compressed.rawPayload.length).toBeLessThan(asIs.rawPayload.length / 3);
});

it("the plugin's onSend of every route that compresses is the wrapped one", () => {
  const hooks = wrapped.printRoutes({ includeHooks: true, commonPrefix: false });
  expect(hooks).not.toContain('"onSend()"');
  // GET and HEAD of every route but the one declared `compress: false`.
  expect(hooks.match(/"onSendIfNegotiated\(\)"/g)).toHaveLength(2 * (PATHS.length - 1));
});
