import { Writable } from 'node:stream';
import Fastify from 'fastify';
import type { Logger } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { lazyRequestLogger } from '../../../src/server/http/request-logger.js';
import { createLogger } from '../../../src/server/logger.js';

/** pksd's logger writing into an array, its `time` field fixed so two runs compare byte for byte. */
function capture(level: 'info' | 'error' | 'debug'): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const logger = createLogger(level, sink);
  return { logger, lines: lines as string[] };
}
const untimed = (lines: string[]) => lines.map((l) => l.replace(/"time":\d+/, '"time":0'));

/** The same request's log calls against a request logger: audit bindings before and after the first line. */
function scenario(log: Logger): void {
  log.setBindings({ user_header: 'alice' });
  log.setBindings({ auth: 'pat', user_id: 'u1' });
  log.info({ req: { method: 'GET', headers: { authorization: 'Bearer x' } } }, 'incoming request');
  log.setBindings({ auth: 'superuser', superuser_id: 's1' });
  log.warn({ err: { message: 'boom', token: 'secret-token' } }, 'warned');
  log.child({ sub: 1 }).error('from a child');
  log.info({ res: { statusCode: 200 }, responseTime: 1.5 }, 'request completed');
}

describe('lazily bound request logger', () => {
  it('writes byte for byte the lines of an eager pino child (bindings in order, redaction kept)', () => {
    for (const level of ['info', 'debug'] as const) {
      const eager = capture(level);
      scenario(eager.logger.child({ reqId: 'req-1' }, {}));
      const lazy = capture(level);
      scenario(lazyRequestLogger.call(null, lazy.logger, { reqId: 'req-1' }, {}) as unknown as Logger);
      expect(untimed(lazy.lines)).toEqual(untimed(eager.lines));
      expect(lazy.lines).toHaveLength(4);
      expect(lazy.lines[1]).toContain('"token":"[redacted]"');
      expect(lazy.lines[1]).toContain('"user_header":"alice","auth":"pat","user_id":"u1","auth":"superuser"');
    }
  });

  it('builds no child for a request that writes nothing at its level, and writes what is enabled', () => {
    const { logger, lines } = capture('error');
    const child = vi.spyOn(logger, 'child');
    const log = lazyRequestLogger.call(null, logger, { reqId: 'req-2' }, {}) as unknown as Logger;
    log.setBindings({ user_header: 'alice' });
    log.info('incoming request');
    log.warn('not at error level');
    expect(child).not.toHaveBeenCalled();
    expect(log.isLevelEnabled('info')).toBe(false);
    expect(log.level).toBe('error');
    log.error('failed');
    expect(child).toHaveBeenCalledTimes(1);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 50, reqId: 'req-2', user_header: 'alice', msg: 'failed' });
  });

  it('serves as Fastify’s child logger factory, a route’s own log level still honoured', async () => {
    const { logger, lines } = capture('info');
    const app = Fastify({ loggerInstance: logger, childLoggerFactory: lazyRequestLogger });
    app.get('/quiet', { logLevel: 'error' }, async () => ({ ok: true }));
    app.get('/loud', async (request) => {
      (request.log as unknown as Logger).setBindings({ auth: 'system-pat' });
      return { ok: true };
    });
    try {
      expect((await app.inject('/quiet')).statusCode).toBe(200);
      expect(lines).toHaveLength(0);
      expect((await app.inject('/loud')).statusCode).toBe(200);
      const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(parsed.map((l) => l['msg'])).toEqual(['incoming request', 'request completed']);
      expect(parsed[0]).not.toHaveProperty('auth');
      expect(parsed[1]).toMatchObject({ reqId: parsed[0]!['reqId'], auth: 'system-pat' });
    } finally {
      await app.close();
    }
  });
});
