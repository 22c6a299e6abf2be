/**
 * The one error mapping (src/server/http/errors.ts): domain error → status, body and headers, row for row; 5xx
 * answers logged exactly once with their causes; errors raised before a handler runs in the same shapes.
 */
import { rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import Fastify from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendError } from '../../../src/server/http/errors.js';
import { HttpError } from '../../../src/server/http/http-error.js';
import {
  ConflictError,
  ForbiddenError,
  GoneError,
  InvalidInputError,
  NotFoundError,
  RateLimitedError,
  TooLargeError,
  UnauthenticatedError,
  UnavailableError,
  UnsupportedMediaTypeError,
  UpstreamError,
} from '../../../src/shared/domain-errors.js';
import { VERSION } from '../../../src/shared/version.js';
import { multipart, pdfBytes } from '../papers/helpers.js';
import { LogCapture, startTestServer, type TestServer } from '../../support/server.js';

interface Row {
  readonly error: Error;
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly headers?: Record<string, string>;
}

const ROWS: Record<string, Row> = {
  invalid: {
    error: new InvalidInputError('invalid DOI: x', { fields: { doi: '10.1/x' } }),
    status: 400,
    body: { detail: 'invalid DOI: x', doi: '10.1/x' },
  },
  unauthenticated: {
    error: new UnauthenticatedError('invalid or expired credential'),
    status: 401,
    body: { detail: 'invalid or expired credential' },
    headers: { 'www-authenticate': 'Bearer' },
  },
  forbidden: {
    error: new ForbiddenError('insufficient scope', { fields: { obj: 'wiki', act: 'read' } }),
    status: 403,
    body: { detail: 'insufficient scope', obj: 'wiki', act: 'read' },
  },
  'not-found': { error: new NotFoundError(), status: 404, body: { detail: 'not found' } },
  conflict: { error: new ConflictError('taken'), status: 409, body: { detail: 'taken' } },
  gone: { error: new GoneError('device code expired'), status: 410, body: { detail: 'device code expired' } },
  'too-large': { error: new TooLargeError('too big'), status: 413, body: { detail: 'too big' } },
  'media-type': {
    error: new UnsupportedMediaTypeError("unsupported media type ''"),
    status: 415,
    body: { detail: "unsupported media type ''" },
  },
  'rate-limited': {
    error: new RateLimitedError('slow down', { retryAfterSeconds: 7 }),
    status: 429,
    body: { detail: 'slow down' },
    headers: { 'retry-after': '7' },
  },
  'object-store': {
    error: new UpstreamError('object_store', 'object store error: disk'),
    status: 500,
    body: { detail: 'object store error: disk' },
  },
  git: { error: new UpstreamError('git', 'git fetch failed: x'), status: 502, body: { detail: 'git fetch failed: x' } },
  scholarly: {
    error: new UpstreamError('scholarly', 'scholarly: HTTP 500'),
    status: 502,
    body: { detail: 'scholarly: HTTP 500' },
  },
  unavailable: {
    error: new UnavailableError('claim store unavailable', { retryAfterSeconds: 3 }),
    status: 503,
    body: { detail: 'claim store unavailable' },
    headers: { 'retry-after': '3' },
  },
  wiring: {
    error: new HttpError(500, 'scope guard: enforcer not configured'),
    status: 500,
    body: { detail: 'scope guard: enforcer not configured' },
  },
  unexpected: { error: new Error('secret internals'), status: 500, body: { detail: 'internal server error' } },
};

describe('the error mapping, row for row', () => {
  const logs = new LogCapture();
  const app = Fastify({ loggerInstance: pino({ level: 'info' }, logs) });
  beforeAll(async () => {
    app.setErrorHandler((error, request, reply) => sendError(request, reply, error));
    for (const prefix of ['/api/x', '/api/collections/x', '/api/admin/x', '/other']) {
      app.get(`${prefix}/:row`, async (request) => {
        throw ROWS[(request.params as { row: string }).row]!.error;
      });
    }
    await app.ready();
  });
  afterAll(() => app.close());

  it.each(Object.entries(ROWS))('%s → its status, `{detail, ...fields}` and headers', async (name, row) => {
    const res = await app.inject({ method: 'GET', url: `/api/x/${name}` });
    expect(res.statusCode).toBe(row.status);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.json()).toEqual(row.body);
    expect(res.headers).toMatchObject(row.headers ?? {});
    expect(res.headers['x-svc-server-version']).toBe(VERSION);
    expect(res.headers['x-attribution']).toBe('OpenAlex (CC0), Crossref (CC0), arXiv');
    if (row.status !== 429 && row.status !== 503) expect(res.headers['retry-after']).toBeUndefined();
  });

  it.each(Object.entries(ROWS))('%s under /api/collections/ and /api/admin/ → PocketBase shape', async (name, row) => {
    for (const prefix of ['/api/collections/x', '/api/admin/x']) {
      const res = await app.inject({ method: 'GET', url: `${prefix}/${name}` });
      expect(res.statusCode).toBe(row.status);
      expect(res.json()).toEqual({ status: row.status, message: row.body['detail'], data: {} });
    }
  });

  it('outside /api/ the body shape is the same and the API headers are absent', async () => {
    const res = await app.inject({ method: 'GET', url: '/other/conflict' });
    expect(res.json()).toEqual({ detail: 'taken' });
    expect(res.headers['x-svc-server-version']).toBeUndefined();
  });

  it('logs every 5xx exactly once with the cause and its stack, and no 4xx', async () => {
    logs.lines.length = 0;
    const cause = new Error('disk on fire');
    ROWS['caused'] = {
      error: new UpstreamError('object_store', 'object store error: disk on fire', { cause }),
      status: 500,
      body: {},
    };
    await app.inject({ method: 'GET', url: '/api/x/caused' });
    await app.inject({ method: 'GET', url: '/api/x/conflict' });
    const errors = logs.lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l['level'] === 50);
    expect(errors).toHaveLength(1);
    const err = errors[0]!['err'] as { stack: string; message: string };
    expect(err.message).toContain('object store error: disk on fire');
    expect(err.stack).toContain(cause.stack!.split('\n')[1]!.trim());
    expect(err.stack).toContain('caused by: Error: disk on fire');
  });
});

describe('a failing store call through the real server', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ SVC_SYSTEM_PAT: 'errors-test-system-pat-01' });
  });
  afterAll(() => srv.close());

  it('answers 500 `object store error: …` and logs exactly one error line with the cause and its stack', async () => {
    // The pdf tree cannot be created: a file stands where its directory belongs.
    await rm(path.join(srv.config.rawDir, 'pdf'), { recursive: true, force: true });
    await writeFile(path.join(srv.config.rawDir, 'pdf'), 'not a directory');
    const { body, contentType } = multipart([{ name: 'pdf', content: pdfBytes('x') }]);
    const before = srv.logs.lines.length;
    const res = await srv.fetch('/api/papers/2501.00010v1/upload-pdf', {
      method: 'POST',
      headers: { Authorization: 'Bearer errors-test-system-pat-01', 'Content-Type': contentType },
      body,
    });
    expect(res.status).toBe(500);
    expect((await res.json()).detail).toMatch(/^object store error: /);
    const errors = srv.logs.lines
      .slice(before)
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => (l['level'] as number) >= 50);
    expect(errors).toHaveLength(1);
    const err = errors[0]!['err'] as { stack: string };
    expect(err.stack).toMatch(/caused by: Error: (ENOTDIR|EEXIST)/);
    expect(err.stack).toMatch(/\n\s+at /);
  });
});

/** Sends raw bytes and resolves with the raw response. */
function rawRequest(url: string, text: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    let out = '';
    const socket = net.connect(Number(port), hostname, () => socket.write(text));
    socket.on('data', (d) => (out += d.toString('latin1')));
    socket.on('close', () => resolve(out));
    socket.on('error', reject);
  });
}

const headersOf = (raw: string) =>
  Object.fromEntries(
    raw
      .split('\r\n\r\n')[0]!
      .split('\r\n')
      .slice(1)
      .map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
  );
const bodyOf = (raw: string) => JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)) as unknown;

describe('errors raised before a handler runs', () => {
  const PAT = 'framework-errors-pat-000001';
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ SVC_SYSTEM_PAT: PAT });
  });
  afterAll(() => srv.close());
  const auth = { Authorization: `Bearer ${PAT}` };
  const apiHeaders = (res: Response) => {
    expect(res.headers.get('x-svc-server-version')).toBe(VERSION);
    expect(res.headers.get('x-attribution')).toBe('OpenAlex (CC0), Crossref (CC0), arXiv');
  };

  it('bad percent-encoding → 400 `{detail}`, PocketBase shape under /api/collections/', async () => {
    const res = await srv.fetch('/api/pages/%ZZ', { headers: auth });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ detail: "malformed URL: '/api/pages/%ZZ' is not a valid url component" });
    apiHeaders(res);
    const pb = await srv.fetch('/api/collections/users/records/%ZZ');
    expect(pb.status).toBe(400);
    expect(await pb.json()).toEqual({
      status: 400,
      message: "malformed URL: '/api/collections/users/records/%ZZ' is not a valid url component",
      data: {},
    });
    apiHeaders(pb);
  });

  it('an over-long path parameter → 414 `{detail}`', async () => {
    const res = await srv.fetch(`/api/pat/${'x'.repeat(1001)}`, { method: 'DELETE', headers: auth });
    expect(res.status).toBe(414);
    expect(await res.json()).toEqual({ detail: 'a path parameter is too long' });
    apiHeaders(res);
  });

  it('a request Node cannot parse (an unknown method with a body) → 400 `{detail}` with the API headers', async () => {
    const raw = await rawRequest(
      srv.url,
      'FOO /api/health HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc',
    );
    expect(raw.startsWith('HTTP/1.1 400 Bad Request\r\n')).toBe(true);
    expect(headersOf(raw)).toMatchObject({
      'content-type': 'application/json; charset=utf-8',
      'x-svc-server-version': VERSION,
      'x-attribution': 'OpenAlex (CC0), Crossref (CC0), arXiv',
    });
    expect(bodyOf(raw)).toEqual({ detail: 'malformed HTTP request' });
  });

  it('a full-URL request line is answered like its path, API headers included', async () => {
    const raw = await rawRequest(
      srv.url,
      'GET http://pks.example/api/pages HTTP/1.1\r\nHost: pks.example\r\nConnection: close\r\n\r\n',
    );
    expect(raw.startsWith('HTTP/1.1 401 ')).toBe(true);
    expect(headersOf(raw)).toMatchObject({ 'x-svc-server-version': VERSION, 'www-authenticate': 'Bearer' });
    const nope = await rawRequest(
      srv.url,
      'GET http://pks.example/api/nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    );
    expect(headersOf(nope)).toMatchObject({ 'x-svc-server-version': VERSION });
    expect(bodyOf(nope)).toEqual({ detail: 'not found' });
  });

  it('a preprint id with a CR or LF is a 400 like any other invalid id', async () => {
    for (const id of ['2501.00010v1%0A', '2501.00010v1%0D', '%0D%0A2501.00010v1']) {
      const res = await srv.fetch(`/api/papers/${id}/parser-claim`, { method: 'POST', headers: auth });
      expect(res.status).toBe(400);
      const raw = decodeURIComponent(id);
      expect(await res.json()).toEqual({
        detail: `invalid preprint_id: ${JSON.stringify(raw)} (version suffix vN required)`,
      });
    }
  });

  it('Allow lists only the methods the path supports', async () => {
    const allow = async (method: string, p: string) => {
      const res = await srv.fetch(p, { method, headers: auth });
      expect(res.status, `${method} ${p}`).toBe(405);
      expect(await res.json()).toEqual({ detail: 'method not allowed' });
      return res.headers.get('allow');
    };
    expect(await allow('PUT', '/api/papers/2501.00010v1/upload-pdf')).toBe('POST');
    expect(await allow('PATCH', '/api/papers/2501.00010v1/parser-claim/abc')).toBe('DELETE');
    expect(await allow('PUT', '/api/papers/stats')).toBe('GET, HEAD');
    expect(await allow('POST', '/api/health')).toBe('GET, HEAD');
    expect(await allow('PUT', '/api/pat/abc')).toBe('DELETE');
    expect(await allow('PUT', '/api/pat')).toBe('GET, HEAD, POST');
    expect(await allow('PUT', '/api/oauth/device/code')).toBe('GET, HEAD, POST');
  });
});
