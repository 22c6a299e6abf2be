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

/**
 * `SECURITY_HEADERS` with the names in lower case, as Fastify keeps and sends a reply's headers (`reply.header`
 * lower-cases every name; a lower-case name is not copied), as are the names `setSecurityHeaders` sets.
 */
const SECURITY_REPLY_HEADERS = SECURITY_HEADERS.map(([name, value]) => [name.toLowerCase(), value] as const);

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
  for (const [name, value] of SECURITY_REPLY_HEADERS) reply.header(name, value);
  if (isHtml(reply.getHeader('content-type'))) {
    if (!reply.hasHeader('content-security-policy')) reply.header('content-security-policy', HTML_CSP);
    reply.header('x-frame-options', 'DENY');
  }
  if (apiPath && !reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
}
