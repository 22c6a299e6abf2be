/**
 * Resolving a requested id over HTTP (CONTRACT §11.1): the caller whose DOI lookups count together, and the
 * `X-Svc-*` headers reporting the defaults applied, set on every answer of the request (errors included).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Resolution, ResolutionFailure } from '../../access/resolver.js';
import type { PaperAccess } from '../../access/service.js';
import { requestClientKey } from '../../http/client.js';
import { metadataValue as headerSafe } from '../../storage/write.js';
import { ErrorBody } from '../schemas.js';

/**
 * `X-Svc-Requested-Id`, `X-Svc-Resolved-Id`, `X-Svc-Defaults-Applied` when a default was applied (§11.1), each also
 * under the `X-QAtlas-` prefix the original clients read (§19).
 */
export function defaultsHeaders(reply: FastifyReply, r: Resolution | ResolutionFailure): void {
  if (r.defaults.length === 0) return;
  const resolvedId = 'id' in r ? r.id.id : r.resolvedId;
  for (const prefix of ['X-Svc', 'X-QAtlas']) {
    reply.header(`${prefix}-Requested-Id`, headerSafe(r.requestedId));
    if (resolvedId !== null) reply.header(`${prefix}-Resolved-Id`, headerSafe(resolvedId));
    reply.header(`${prefix}-Defaults-Applied`, r.defaults.join('; '));
  }
}

/**
 * Whose DOI lookups count together (issue 20): a user's PATs and sessions share one budget, the system PAT has its
 * own, and a request without a principal counts by client address.
 */
export function lookupCaller(request: FastifyRequest): string {
  const principal = request.principal;
  if (principal?.userId) return `user:${principal.userId}`;
  if (principal?.source === 'system-pat') return 'system-pat';
  return `ip:${requestClientKey(request)}`;
}

/** Resolves `raw` (answering its error with the `X-Svc-*` headers of the defaults applied so far). */
export async function resolveRequested(
  access: PaperAccess,
  raw: string,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<Resolution> {
  const outcome = await access.resolver.resolve(raw, lookupCaller(request));
  if (!outcome.ok) {
    defaultsHeaders(reply, outcome.failure);
    throw outcome.failure.error;
  }
  defaultsHeaders(reply, outcome.resolution);
  return outcome.resolution;
}

/** The answers of a failed resolution (paper access on). */
export const resolutionErrors = {
  400: { ...ErrorBody, description: 'invalid id or DOI (`{detail, requested_id[, doi]}`)' },
  404: { ...ErrorBody, description: 'DOI unknown to OpenAlex, or no such paper on arXiv' },
  502: { ...ErrorBody, description: 'OpenAlex or arXiv version lookup failed' },
  503: { ...ErrorBody, description: 'DOI resolution unavailable, or the version lookup is rate-limited' },
  429: { ...ErrorBody, description: 'too many DOI lookups through OpenAlex for this credential; see Retry-After' },
};
