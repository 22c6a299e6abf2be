/**
 * Response headers every answer carries: no MIME sniffing, no referrer; HTML pages also a Content-Security-Policy
 * that forbids framing; `/api/*` answers are not stored by caches unless a route says otherwise (they are
 * per-credential, and some carry tokens or PAT plaintexts).
 */
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isApiPath, requestPath } from './headers.js';

/** Headers on every response, also those written on raw sockets. */
export const SECURITY_HEADERS: readonly (readonly [string, string])[] = [
  ['X-Content-Type-Options', 'nosniff'],
  ['Referrer-Policy', 'no-referrer'],
];

/** The policy of HTML pages (the web front end): same-origin scripts, inline styles, data/blob images, no framing. */
export const HTML_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; " +
  "object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

/** The `'sha256-…'` sources of a page's inline elements of one kind (`script`, `style`). */
function inlineHashes(html: string, tag: 'script' | 'style'): string {
  const pattern = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g');
  const hashes = [...html.matchAll(pattern)].map(
    (m) => `'sha256-${createHash('sha256').update(m[1]!).digest('base64')}'`,
  );
  return hashes.length > 0 ? hashes.join(' ') : "'none'";
}

/**
 * The policy of a self-contained page (the admin UI): its own inline script and style elements, by hash, and
 * nothing else but same-origin requests.
 */
export function selfContainedPageCsp(html: string): string {
  return (
    `default-src 'none'; script-src ${inlineHashes(html, 'script')}; style-src ${inlineHashes(html, 'style')}; ` +
    "connect-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
  );
}

const isHtml = (contentType: unknown): boolean =>
  typeof contentType === 'string' && contentType.toLowerCase().startsWith('text/html');

/** `onSend`: adds the headers; a page that brings its own policy (the admin UI) keeps it. */
export async function securityHeaders(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  for (const [name, value] of SECURITY_HEADERS) reply.header(name, value);
  if (isHtml(reply.getHeader('content-type'))) {
    if (!reply.hasHeader('content-security-policy')) reply.header('Content-Security-Policy', HTML_CSP);
    reply.header('X-Frame-Options', 'DENY');
  }
  if (isApiPath(requestPath(request)) && !reply.hasHeader('cache-control')) reply.header('Cache-Control', 'no-store');
}
