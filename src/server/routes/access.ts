/**
 * Paper access over HTTP (CONTRACT §11.4): `GET /api/papers/{id_or_doi}/markdown`, `/pdf`, `/markdown/status`,
 * `/pdf/status` as actions of the papers dispatcher, registered only with `SVC_PAPER_ACCESS_ENABLED=true`.
 * Resolution runs first; its defaults are reported in `X-Svc-*` headers on every answer of the request.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccessKind } from '../access/engine.js';
import type { Resolution, ResolutionFailure } from '../access/resolver.js';
import type { PaperAccess, TriggerSnapshot } from '../access/service.js';
import { statusPath } from '../access/snapshot.js';
import { requestClientKey } from '../http/client.js';
import { metadataValue as headerSafe } from '../storage/write.js';
import { ID_OR_DOI, type PaperAction } from './papers.js';
import { JobSnapshot as Snapshot } from '../../shared/api/jobs.js';
import { ErrorBody } from './schemas.js';

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

const resolutionErrors = {
  400: { ...ErrorBody, description: 'invalid id or DOI (`{detail, requested_id[, doi]}`)' },
  404: { ...ErrorBody, description: 'DOI unknown to OpenAlex, or no such paper on arXiv' },
  502: { ...ErrorBody, description: 'OpenAlex or arXiv version lookup failed' },
  503: { ...ErrorBody, description: 'DOI resolution unavailable, or the version lookup is rate-limited' },
  429: { ...ErrorBody, description: 'too many DOI lookups through OpenAlex for this credential; see Retry-After' },
};

const STATUS_OF: Readonly<Record<TriggerSnapshot['outcome'], number>> = {
  accepted: 202,
  not_found: 404,
  failed: 502,
  cooldown: 503,
  unavailable: 503,
};

/** The four paper-access actions for the papers dispatcher. */
export function accessActions(access: PaperAccess): PaperAction[] {
  /** Resolves the id (answering its error with the `X-Svc-*` headers of the defaults applied so far). */
  const resolve = async (raw: string, request: FastifyRequest, reply: FastifyReply): Promise<Resolution> => {
    const outcome = await access.resolver.resolve(raw, lookupCaller(request));
    if (!outcome.ok) {
      defaultsHeaders(reply, outcome.failure);
      throw outcome.failure.error;
    }
    defaultsHeaders(reply, outcome.resolution);
    return outcome.resolution;
  };

  const trigger = (kind: AccessKind, path: string): PaperAction => ({
    method: 'GET',
    path,
    schema: {
      params: Type.Object({ preprint_id: ID_OR_DOI }),
      summary:
        kind === 'markdown'
          ? 'The paper as markdown; starts a fetch and conversion when it is not stored (202)'
          : 'The paper as PDF; starts a fetch from arXiv when it is not stored (202)',
      tags: ['paper-access'],
      response: {
        200: Type.String({
          description:
            kind === 'markdown' ? 'the markdown (text/markdown; charset=utf-8)' : 'the PDF (application/pdf)',
        }),
        202: { ...Snapshot, description: 'a job runs: poll Operation-Location after Retry-After seconds' },
        ...resolutionErrors,
        404: { ...Snapshot, description: 'arXiv does not have the paper (failed snapshot), or a resolution 404' },
        502: { ...Snapshot, description: 'the job failed (failed snapshot), or a resolution upstream error' },
        503: {
          ...Snapshot,
          description:
            kind === 'markdown'
              ? 'conversion disabled (unavailable snapshot) or every parser token at its daily limit (cooldown)'
              : 'a resolution 503',
        },
      },
    },
    handle: async (request, reply, d) => {
      const resolution = await resolve(d.id, request, reply);
      const result = await access.trigger(resolution, kind);
      if (result.type === 'content') {
        reply.header('Content-Type', result.contentType).header('Content-Length', String(result.size));
        if (kind === 'pdf') reply.header('Content-Disposition', `inline; filename="${resolution.id.stem}.pdf"`);
        return reply.code(200).send(result.body);
      }
      if (result.outcome === 'accepted') reply.header('Operation-Location', statusPath(resolution.id, kind));
      if (result.retryAfterSeconds !== null) reply.header('Retry-After', String(result.retryAfterSeconds));
      return reply.code(STATUS_OF[result.outcome]).send(result.snapshot);
    },
  });

  const status = (kind: AccessKind, path: string): PaperAction => ({
    method: 'GET',
    path,
    schema: {
      params: Type.Object({ preprint_id: ID_OR_DOI }),
      summary: `The state of the paper's ${kind === 'markdown' ? 'markdown' : 'PDF'} (no side effects)`,
      tags: ['paper-access'],
      response: {
        200: { ...Snapshot, description: 'a snapshot for every state, failed and cooldown included' },
        ...resolutionErrors,
      },
    },
    handle: async (request, reply, d) => {
      const resolution = await resolve(d.id, request, reply);
      return reply.code(200).send(await access.status(resolution, kind));
    },
  });

  /** `GET /api/papers/{id_or_doi}/images/{name}` (CONTRACT §11.4 ★): a stored figure, so readers see them. */
  const image: PaperAction = {
    method: 'GET',
    path: '/api/papers/{preprint_id}/images/{name}',
    schema: {
      params: Type.Object({ preprint_id: ID_OR_DOI, name: Type.String({ minLength: 1 }) }),
      summary: 'A stored image of the paper (a figure referenced by its markdown)',
      tags: ['paper-access'],
      response: {
        200: Type.String({ description: 'the image bytes, with the stored content type' }),
        ...resolutionErrors,
        404: { ...ErrorBody, description: 'no such image, or a resolution 404' },
      },
    },
    handle: async (request, reply, d) => {
      const resolution = await resolve(d.id, request, reply);
      const content = await access.image(resolution.id, d.name ?? '');
      // Stored bytes of a versioned id never change; nosniff and a sandboxing CSP keep an SVG from running script.
      reply
        .header('Content-Type', content.contentType)
        .header('Content-Length', String(content.size))
        .header('Cache-Control', 'private, max-age=31536000, immutable')
        .header('X-Content-Type-Options', 'nosniff')
        .header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox");
      return reply.code(200).send(content.body);
    },
  };

  return [
    trigger('markdown', '/api/papers/{preprint_id}/markdown'),
    trigger('pdf', '/api/papers/{preprint_id}/pdf'),
    status('markdown', '/api/papers/{preprint_id}/markdown/status'),
    status('pdf', '/api/papers/{preprint_id}/pdf/status'),
    image,
  ];
}
