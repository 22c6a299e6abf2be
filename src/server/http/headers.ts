/**
 * The headers every `/api/*` response carries (CONTRACT §0.2), and the request path they are decided on.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { VERSION } from '../../shared/version.js';

export const ATTRIBUTION = 'OpenAlex (CC0), Crossref (CC0), arXiv';

/**
 * `X-Svc-Server-Version` (also as `X-Qatlas-Server-Version`, which the original clients read, CONTRACT §19) and
 * `X-Attribution`, as `[name, value]` pairs (also written on raw sockets).
 */
export const API_HEADERS: readonly (readonly [string, string])[] = [
  ['X-Svc-Server-Version', VERSION],
  ['X-Qatlas-Server-Version', VERSION],
  ['X-Attribution', ATTRIBUTION],
];

/**
 * The path of a request target without its query: an absolute-form target (`GET http://host/api/x HTTP/1.1`)
 * is reduced to its path, as the router does.
 */
export function pathOf(rawUrl: string): string {
  // The usual origin-form target (`/api/x?y`, every request of a browser or client): no scheme to strip.
  if (rawUrl.startsWith('/')) {
    const end = rawUrl.search(/[?#]/);
    return end === -1 ? rawUrl : rawUrl.slice(0, end);
  }
  const absolute = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(rawUrl);
  const target = absolute ? rawUrl.slice(absolute[0].length) || '/' : rawUrl;
  return target.split(/[?#]/, 1)[0] ?? '/';
}

export const isApiPath = (path: string): boolean => path === '/api' || path.startsWith('/api/');

/** The request's path (see `pathOf`). */
export const requestPath = (request: FastifyRequest): string => pathOf(request.raw.url ?? '/');

/**
 * Whether the request's path (see `requestPath`) is an API path. The usual origin-form target is judged on its first
 * characters, without taking its path apart: `/api` followed by the end, `/`, `?` or `#`.
 */
export function isApiRequest(request: FastifyRequest): boolean {
  const url = request.raw.url ?? '/';
  if (!url.startsWith('/')) return isApiPath(pathOf(url));
  if (!url.startsWith('/api')) return false;
  const next = url.charCodeAt(4); // NaN past the end
  return url.length === 4 || next === 0x2f || next === 0x3f || next === 0x23;
}

/**
 * `API_HEADERS` with the names in lower case, as Fastify keeps and sends a reply's headers: `reply.header` lower-cases
 * every name it is given, and a name that is lower case already is returned as is, not copied.
 */
const API_REPLY_HEADERS = API_HEADERS.map(([name, value]) => [name.toLowerCase(), value] as const);

/** Adds the `/api/*` headers to a reply. */
export function addApiHeaders(reply: FastifyReply): void {
  for (const [name, value] of API_REPLY_HEADERS) reply.header(name, value);
}

/** Adds the `/api/*` headers to a reply when the request's path (see `requestPath`) is an API path. */
export function setApiHeaders(path: string, reply: FastifyReply): void {
  if (isApiPath(path)) addApiHeaders(reply);
}
