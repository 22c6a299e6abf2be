/** `DELETE /api/papers/{preprint_id}/parser-claim/{claim_id}` (CONTRACT §9.5): release a claim. */
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../http/context.js';
import { ErrorBody } from '../schemas.js';
import { uploadTarget, type PaperAction, type UploadTarget } from './action.js';
import { claimStoreDown } from './upload-answers.js';

export function parserClaimReleaseAction(ctx: AppContext): PaperAction {
  const action: PaperAction<unknown, UploadTarget> = {
    method: 'DELETE',
    path: '/api/papers/{preprint_id}/parser-claim/{claim_id}',
    target: uploadTarget,
    schema: {
      summary: 'Release a claim',
      tags: ['papers'],
      response: {
        204: Type.Null({ description: 'released, or no active claim' }),
        409: { ...ErrorBody, description: 'claim_id does not match the active claim' },
        503: claimStoreDown,
      },
    },
    handle: async (_request, reply, { versionedId, claimId }) => {
      await ctx.papers.releaseClaim(versionedId, claimId!);
      return reply.code(204).send();
    },
  };
  return action;
}
