/**
 * Response headers every answer carries: no MIME sniffing, no referrer; HTML pages also a Content-Security-Policy
 * that forbids framing; `/api/*` answers are not stored by caches unless a route says otherwise (they are
 * per-credential, and some carry tokens or PAT plaintexts).
 */
import type { FastifyReply } from 'fastify';

/** Headers on every response, also those written on raw sockets. */
export const SECURITY_HEADERS: readonly (readonly [string, string])[] = [
  ['X-Content-Type-Options', 'nosniff'],
  ['Referrer-Policy', 'no-referrer'],
];

/** The policy of HTML pages (the web front end): same-origin scripts, inline styles, data/blob images, no framing. */
export const HTML_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; " +
  "object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

/**
 * The policy of the admin UI (CONTRACT §7.9): its own script and style sheet (same-origin files, no inline code),
 * same-origin requests, nothing else.
 */
export const ADMIN_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; " +
  "form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

const isHtml = (contentType: unknown): boolean =>
  typeof contentType === 'string' && contentType.toLowerCase().startsWith('text/html');

/**
 * Adds the headers to an answer about to be sent (the `onSend` hook of http/request-hooks.ts; `apiPath`: the request's
 * path is an `/api` path); a page that brings its own policy (the admin UI) keeps it.
 */
export function setSecurityHeaders(reply: FastifyReply, apiPath: boolean): void {
  for (const [name, value] of SECURITY_HEADERS) reply.header(name, value);
  if (isHtml(reply.getHeader('content-type'))) {
    if (!reply.hasHeader('content-security-policy')) reply.header('Content-Security-Policy', HTML_CSP);
    reply.header('X-Frame-Options', 'DENY');
  }
  if (apiPath && !reply.hasHeader('cache-control')) reply.header('Cache-Control', 'no-store');
}
