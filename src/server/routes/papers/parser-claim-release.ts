/** `DELETE /api/papers/{preprint_id}/parser-claim/{claim_id}` (CONTRACT §9.5): release a claim. */
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../http/context.js';
import { paramsSchema } from '../../http/query-schema.js';
import { ErrorBody } from '../schemas.js';
import { claimIdParam, definePaperAction, versionedIdParam, type PaperAction } from './action.js';
import { claimStoreDown } from './upload-answers.js';

export function parserClaimReleaseAction(ctx: AppContext): PaperAction {
  return definePaperAction({
    method: 'DELETE',
    path: '/api/papers/{preprint_id}/parser-claim/{claim_id}',
    params: paramsSchema({ preprint_id: versionedIdParam, claim_id: claimIdParam }),
    schema: {
      summary: 'Release a claim',
      tags: ['papers'],
      response: {
        204: Type.Null({ description: 'released, or no active claim' }),
        409: { ...ErrorBody, description: 'claim_id does not match the active claim' },
        503: claimStoreDown,
      },
    },
    handle: async (_request, reply, { preprint_id: id, claim_id: claimId }) => {
      await ctx.papers.releaseClaim(id, claimId);
      return reply.code(204).send();
    },
  });
}
