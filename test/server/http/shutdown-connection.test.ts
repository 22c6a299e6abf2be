/**
 * Shutdown and keep-alive: a request in flight when `close()` begins is answered with `Connection: close` (the
 * application's `onSend` hook, http/request-hooks.ts, reading the runtime's shutdown state), so its keep-alive
 * connection ends and the server can stop; before shutdown, answers keep the connection open.
 */
import net from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../support/server.js';

let s: TestServer;
let closed = false;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  if (!closed) await s.close();
});

/** A raw keep-alive connection and everything it has received. */
function connect(url: string) {
  const { hostname, port } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  let received = '';
  socket.on('data', (d: Buffer) => (received += d.toString('latin1')));
  socket.on('error', () => undefined);
  const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  return { socket, ended, received: () => received };
}

/** The status line and lower-cased header block of the first answer in `text`, once it is complete. */
function head(text: string): { status: string; headers: string } | null {
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const [status = '', ...lines] = text.slice(0, end).split('\r\n');
  return { status, headers: lines.join('\n').toLowerCase() };
}

it('answers keep the connection open before shutdown, and close it once shutdown has begun', async () => {
  const before = await s.fetch('/api/health');
  expect(before.status).toBe(200);
  expect(before.headers.get('connection')).not.toBe('close');

  // A JSON body is read whole before the request goes on: the request is routed and waits for its last byte.
  const c = connect(s.url);
  const routed = new Promise<void>((resolve) => s.server.app.server.once('request', () => resolve()));
  c.socket.write('POST /api/pat HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{');
  await routed;
  const stopping = s.close();
  closed = true;
  c.socket.write('}');
  await c.ended;
  await stopping;

  const answer = head(c.received());
  // Answered by the route (the guard: no credential), not by Fastify's 503 for requests that arrive while closing.
  expect(answer?.status).toBe('HTTP/1.1 401 Unauthorized');
  expect(answer?.headers).toMatch(/^connection: close$/m);
});
