/**
 * Audit bindings on a request's log lines (docs/decisions.md "Audit labels"): the reverse proxy's user header on
 * every request, the credential kind and user once a guard has resolved them.
 */
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';

/**
 * Adds bindings to every later log line of a request (including its `request completed` line). The request
 * logger is already a per-request child, so its bindings are set in place rather than by another child.
 */
function bindLog(request: FastifyRequest, bindings: Record<string, string>): void {
  (request.log as FastifyBaseLogger & { setBindings(b: Record<string, string>): void }).setBindings(bindings);
}

/**
 * The reverse proxy's user header, recorded as metadata on every request (run by the `onRequest` hook of
 * http/request-hooks.ts); it never authenticates.
 */
export function userHeaderBinding(userHeader: string | null): (request: FastifyRequest) => void {
  const header = userHeader?.toLowerCase() ?? null;
  return (request: FastifyRequest): void => {
    const value = header ? request.headers[header] : undefined;
    if (typeof value === 'string' && value !== '') bindLog(request, { user_header: value });
  };
}

/** The audit label of an authenticated request: `system-pat`, `pat`, `session` or `superuser`, and who. */
export function bindPrincipal(request: FastifyRequest): void {
  if (request.superuser) {
    bindLog(request, { auth: 'superuser', superuser_id: request.superuser.id });
    return;
  }
  const principal = request.principal;
  if (!principal) return;
  bindLog(
    request,
    principal.userId ? { auth: principal.source, user_id: principal.userId } : { auth: principal.source },
  );
}
