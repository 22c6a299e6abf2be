/**
 * The one place that turns an error into an HTTP answer (CONTRACT §0.2). Domain errors map by kind; Fastify's own
 * errors (bad JSON, schema violations, bad URLs, oversized bodies) get the same shapes; anything else is a 500.
 * Every answer of 500 or more is logged exactly once, with the error and its causes (stacks included).
 *
 * Shapes: `{"detail": <message>, ...fields}`; PocketBase's `{"status","message","data":{}}` under
 * `/api/collections/` and `/api/admin/` (the PocketBase-compatible and admin routes).
 */
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError, FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, UpstreamError, type DomainErrorKind } from '../../shared/domain-errors.js';
import { API_HEADERS, isApiPath, pathOf, requestPath, setApiHeaders } from './headers.js';
import { HttpError } from './http-error.js';
import { SECURITY_HEADERS, setSecurityHeaders } from './security-headers.js';

const STATUS: Readonly<Record<DomainErrorKind, number>> = {
  invalid_input: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  gone: 410,
  too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  upstream_failure: 502,
  unavailable: 503,
};

/** The HTTP status of a domain error: a failing object store is a 500 (SPEC "Errors"), other upstreams 502. */
export function statusOf(err: DomainError): number {
  if (err instanceof UpstreamError && err.upstream === 'object_store') return 500;
  return STATUS[err.kind];
}

export type ErrorShape = 'detail' | 'pocketbase';

export const errorShapeOf = (path: string): ErrorShape =>
  path.startsWith('/api/collections/') || path.startsWith('/api/admin/') ? 'pocketbase' : 'detail';

interface Answer {
  readonly status: number;
  readonly detail: string;
  readonly fields: Readonly<Record<string, unknown>>;
  readonly headers: Readonly<Record<string, string>>;
}

/** Paths the error chain names (Node's file-system errors carry `path` and `dest`), longest first. */
function namedPaths(err: unknown): string[] {
  const paths = new Set<string>();
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 10; e = e.cause, depth++) {
    for (const field of ['path', 'dest'] as const) {
      const value: unknown = (e as unknown as Record<string, unknown>)[field];
      if (typeof value === 'string' && value.length > 1) paths.add(value);
    }
  }
  return [...paths].sort((a, b) => b.length - a.length);
}

const SERVER_PATH = '<server path>';

/**
 * A message without the server's file-system paths: those the error chain names, and in a 5xx answer (a store or
 * library message) any quoted absolute path as Node's file-system errors write them (`open '/srv/…'`).
 */
function withoutServerPaths(detail: string, err: unknown, status: number): string {
  let out = detail;
  for (const p of namedPaths(err)) out = out.split(p).join(SERVER_PATH);
  return status >= 500 ? out.replace(/'\/[^']*'/g, `'${SERVER_PATH}'`) : out;
}

function answerFor(err: unknown): Answer {
  const answer = rawAnswerFor(err);
  return { ...answer, detail: withoutServerPaths(answer.detail, err, answer.status) };
}

function rawAnswerFor(error: unknown): Answer {
  if (error instanceof DomainError) {
    const status = statusOf(error);
    const headers: Record<string, string> = {};
    if (error.retryAfterSeconds !== undefined) headers['Retry-After'] = String(error.retryAfterSeconds);
    if (status === 401) headers['WWW-Authenticate'] = 'Bearer';
    return { status, detail: error.message, fields: error.fields, headers };
  }
  if (error instanceof HttpError) return { status: error.status, detail: error.message, fields: {}, headers: {} };
  if (error instanceof SyntaxError || (error instanceof Error && ('code' in error || 'validation' in error))) {
    return { ...describeFrameworkError(error as FastifyError), fields: {} };
  }
  return { status: 500, detail: 'internal server error', fields: {}, headers: {} };
}

/** Fastify's own errors in CONTRACT §0.2 wording. */
function describeFrameworkError(error: FastifyError): {
  status: number;
  detail: string;
  headers: Record<string, string>;
} {
  const plain = (status: number, detail: string) => ({ status, detail, headers: {} });
  if (error.validation && error.validation.length > 0) {
    const v = error.validation[0]!;
    if (v.keyword === 'additionalProperties') {
      const name = (v.params as { additionalProperty?: string }).additionalProperty ?? '?';
      return plain(400, `unknown field '${name}'`);
    }
    const field =
      (v.params as { missingProperty?: string }).missingProperty ??
      (v.instancePath.replace(/^\//, '').replace(/\//g, '.') || error.validationContext || 'body');
    return plain(400, `${field}: ${v.message ?? 'invalid'}`);
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return plain(400, `parse body: ${error.message}`);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return plain(413, 'request body too large');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return plain(415, error.message);
    case 'FST_ERR_BAD_URL':
      return plain(400, `malformed URL: ${error.message}`);
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return plain(414, 'a path parameter is too long');
  }
  if (error instanceof SyntaxError) return plain(400, `parse body: ${error.message}`);
  const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
  return plain(status, status >= 500 ? 'internal server error' : error.message);
}

function body(shape: ErrorShape, answer: Answer): Record<string, unknown> {
  if (shape === 'pocketbase') return { status: answer.status, message: answer.detail, data: {} };
  return { detail: answer.detail, ...answer.fields };
}

/** Answers `err` on `reply` in the shape of the request's path; 5xx answers are logged (once) here. */
export function sendError(request: FastifyRequest, reply: FastifyReply, err: unknown): FastifyReply {
  const answer = answerFor(err);
  if (answer.status >= 500) request.log.error({ err }, 'request failed');
  const path = requestPath(request);
  setApiHeaders(path, reply);
  return reply
    .code(answer.status)
    .headers(answer.headers)
    .type('application/json; charset=utf-8')
    .send(body(errorShapeOf(path), answer));
}

/** Errors the router raises before a route is chosen (bad percent-encoding, over-long parameters). */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  // Answered before a route context exists: the application's onSend hook does not run for it.
  setSecurityHeaders(reply, isApiPath(requestPath(request)));
  sendError(request, reply, error);
}

/**
 * Requests Node's HTTP parser refuses (an unknown method, a broken request line or header) never reach Fastify:
 * the answer is written to the socket in the same shapes, with the API headers when the target is an API path.
 */
export function clientErrorHandler(err: ConnectionError, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const status = err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : err.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
  const detail =
    status === 408 ? 'request timeout' : status === 431 ? 'request headers too large' : 'malformed HTTP request';
  // Typed as the JSON form of a Buffer; at run time it is the Buffer (or absent).
  const packet: unknown = err.rawPacket;
  const requestLine = Buffer.isBuffer(packet) ? packet.toString('latin1').split('\r\n', 1)[0]! : '';
  const target = requestLine.split(' ')[1] ?? '';
  const path = pathOf(target);
  const payload = JSON.stringify(body(errorShapeOf(path), { status, detail, fields: {}, headers: {} }));
  const headers = [
    ...(isApiPath(path) ? API_HEADERS : []),
    ...SECURITY_HEADERS,
    ['Content-Type', 'application/json; charset=utf-8'],
    ['Content-Length', String(Buffer.byteLength(payload))],
    ['Connection', 'close'],
  ];
  if (socket.writable) {
    const head = headers.map(([name, value]) => `${name}: ${value}\r\n`).join('');
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head}\r\n${payload}`);
  }
  socket.destroy(err);
}
