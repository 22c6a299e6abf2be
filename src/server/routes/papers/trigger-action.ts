/**
 * The trigger reads of paper access (CONTRACT §11.4): `GET …/markdown` and `GET …/pdf` answer the stored content,
 * or start (or join) a job and answer its §11.2 snapshot.
 */
import { Type } from '@sinclair/typebox';
import type { AccessKind } from '../../access/engine.js';
import type { PaperAccess, TriggerSnapshot } from '../../access/service.js';
import { statusPath } from '../../access/snapshot.js';
import { JobSnapshot as Snapshot } from '../../../shared/api/jobs.js';
import { definePaperAction, ReadParams, type PaperAction } from './action.js';
import { resolutionErrors, resolveRequested } from './resolution.js';

const STATUS_OF: Readonly<Record<TriggerSnapshot['outcome'], number>> = {
  accepted: 202,
  not_found: 404,
  failed: 502,
  cooldown: 503,
  unavailable: 503,
};

/** The trigger read of `kind` at `path` (each path is declared by its own module). */
export function triggerAction(access: PaperAccess, kind: AccessKind, path: string): PaperAction {
  return definePaperAction({
    method: 'GET',
    path,
    params: ReadParams,
    schema: {
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
    handle: async (request, reply, { preprint_id: requested }) => {
      const resolution = await resolveRequested(access, requested, request, reply);
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
}
