/** The status reads of paper access (CONTRACT §11.4): the §11.2 snapshot of a paper's markdown or PDF, no side effects. */
import { Type } from '@sinclair/typebox';
import type { AccessKind } from '../../access/engine.js';
import type { PaperAccess } from '../../access/service.js';
import { JobSnapshot as Snapshot } from '../../../shared/api/jobs.js';
import { ID_OR_DOI, type PaperAction } from './action.js';
import { resolutionErrors, resolveRequested } from './resolution.js';

/** The status read of `kind` at `path` (each path is declared by its own module). */
export function statusAction(access: PaperAccess, kind: AccessKind, path: string): PaperAction {
  return {
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
      const resolution = await resolveRequested(access, d.id, request, reply);
      return reply.code(200).send(await access.status(resolution, kind));
    },
  };
}
