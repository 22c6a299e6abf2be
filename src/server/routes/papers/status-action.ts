/** The status reads of paper access (CONTRACT §11.4): the §11.2 snapshot of a paper's markdown or PDF, no side effects. */
import type { AccessKind } from '../../access/engine.js';
import type { PaperAccess } from '../../access/service.js';
import { JobSnapshot as Snapshot } from '../../../shared/api/jobs.js';
import { definePaperAction, ReadParams, type PaperAction } from './action.js';
import { resolutionErrors, resolveRequested } from './resolution.js';

/** The status read of `kind` at `path` (each path is declared by its own module). */
export function statusAction(access: PaperAccess, kind: AccessKind, path: string): PaperAction {
  return definePaperAction({
    method: 'GET',
    path,
    params: ReadParams,
    schema: {
      summary: `The state of the paper's ${kind === 'markdown' ? 'markdown' : 'PDF'} (no side effects)`,
      tags: ['paper-access'],
      response: {
        200: { ...Snapshot, description: 'a snapshot for every state, failed and cooldown included' },
        ...resolutionErrors,
      },
    },
    handle: async (request, reply, { preprint_id: requested }) => {
      const resolution = await resolveRequested(access, requested, request, reply);
      return reply.code(200).send(await access.status(resolution, kind));
    },
  });
}
