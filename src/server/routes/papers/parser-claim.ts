/** `POST /api/papers/{preprint_id}/parser-claim` (CONTRACT §9.5): claim a paper for parsing (a lease). */
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../http/context.js';
import { querySchema, type QueryField } from '../../http/query-schema.js';
import { normaliseTtl } from '../../papers/claims.js';
import { headerUser } from '../papers-http.js';
import { AlreadyClaimed, ParserClaim } from '../../../shared/api/parser-claims.js';
import { ErrorBody } from '../schemas.js';
import { definePaperAction, UploadParams, type PaperAction } from './action.js';
import { claimStoreDown, storeError } from './upload-answers.js';

/** The §5.2 lease length: never refused, normalised. */
const ttlField: QueryField<number> = {
  schema: Type.String({
    description: 'lease length in seconds: absent, unparseable or ≤ 0 → 1800; clamped to 60..7200',
  }),
  decode: normaliseTtl,
};

const Query = querySchema({ ttl_seconds: ttlField });

export function parserClaimAction(ctx: AppContext): PaperAction {
  return definePaperAction({
    method: 'POST',
    path: '/api/papers/{preprint_id}/parser-claim',
    params: UploadParams,
    schema: {
      summary: 'Claim a paper for parsing (a lease)',
      tags: ['papers'],
      querystring: Query,
      response: {
        201: { ...ParserClaim, description: 'the lease' },
        404: { ...ErrorBody, description: 'no PDF stored, or markdown already exists' },
        409: AlreadyClaimed,
        500: storeError,
        503: claimStoreDown,
      },
    },
    handle: async (request, reply, { preprint_id: id }, query) => {
      const requester = headerUser(request, ctx.config.userHeader) ?? request.principal?.login ?? 'system-pat';
      const claim = await ctx.papers.claim(id, requester, query.ttl_seconds);
      return reply.code(201).send({ ...claim, lease_id: claim.claim_id });
    },
  });
}
