/**
 * Connection timeouts: headers must arrive in time; a body must keep making progress (a client that sends the
 * headers and part of the body and then goes silent is cut off), while a slow but steady upload still completes.
 * The limits are shortened here; production values are in `DEFAULT_TIMEOUTS`.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TIMEOUTS, type Timeouts } from '../../../src/server/http/timeouts.js';
import { authHarness, type AuthHarness } from '../auth/harness.js';

const SHORT: Timeouts = { headersMs: 600, bodyIdleMs: 600, requestMs: 60_000, keepAliveMs: 5_000 };

/** A raw connection: what it receives, and when it was closed (ms after opening). */
function connect(url: string) {
  const { hostname, port } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  const opened = Date.now();
  let received = '';
  socket.on('data', (d: Buffer) => (received += d.toString('latin1')));
  const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now() - opened)));
  socket.on('error', () => undefined);
  return { socket, closed, received: () => received };
}

describe('connection timeouts', () => {
  let h: AuthHarness;
  let url: string;
  beforeAll(async () => {
    h = await authHarness({}, { timeouts: SHORT });
    url = await h.listen();
  });
  afterAll(() => h.close());

  it('production values: headers 30 s, 60 s without body progress, 1 h for a whole request', () => {
    expect(DEFAULT_TIMEOUTS).toEqual({
      headersMs: 30_000,
      bodyIdleMs: 60_000,
      requestMs: 3_600_000,
      keepAliveMs: 72_000,
    });
  });

  it('a client that sends the headers and part of the body, then goes silent, is cut off', async () => {
    const c = connect(url);
    c.socket.write(
      'POST /api/oauth/device/code HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"name":',
    );
    const after = await c.closed;
    expect(after).toBeGreaterThanOrEqual(SHORT.bodyIdleMs - 50);
    expect(after).toBeLessThan(SHORT.bodyIdleMs * 10);
    expect(c.received()).toBe('');
  });

  it('a client that never finishes its headers gets 408 and is closed', async () => {
    const c = connect(url);
    c.socket.write('GET /api/health HTTP/1.1\r\nHost: x\r\n');
    await c.closed;
    expect(c.received()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('a slow but steady body (longer in total than the idle limit) completes', async () => {
    const body = Buffer.from(JSON.stringify({ name: 'slow laptop', expires_in_days: 30, scopes: ['wiki:read'] }));
    const c = connect(url);
    c.socket.write(
      `POST /api/oauth/device/code HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
    );
    const chunk = Math.ceil(body.length / 8);
    for (let offset = 0; offset < body.length; offset += chunk) {
      c.socket.write(body.subarray(offset, offset + chunk));
      // Pauses well under the idle limit, adding up to about twice it.
      await new Promise((resolve) => setTimeout(resolve, SHORT.bodyIdleMs / 4));
    }
    await c.closed;
    expect(c.received()).toMatch(/^HTTP\/1\.1 200 /);
    expect(c.received()).toContain('"user_code"');
  });
});
