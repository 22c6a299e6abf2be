/** `GET /api/papers/needs-parser` (CONTRACT §9.5): papers with a PDF and no markdown, for parser contributors. */
import type { AppContext } from '../../http/context.js';
import { booleanField, integerField, mapField, querySchema } from '../../http/query-schema.js';
import { NeedsParser } from '../../../shared/api/parser-claims.js';
import { definePaperAction, type PaperAction } from './action.js';
import { claimStoreDown } from './upload-answers.js';

const Query = querySchema({
  limit: mapField(integerField('default 10, clamped to 1..100', 10), (limit) => Math.min(100, Math.max(1, limit))),
  include_claimed: booleanField('also list claimed papers, with their lease'),
});

export function needsParserAction(ctx: AppContext): PaperAction {
  return definePaperAction({
    method: 'GET',
    path: '/api/papers/needs-parser',
    schema: {
      summary: 'Papers waiting for a parser result',
      tags: ['papers'],
      querystring: Query,
      response: { 200: NeedsParser, 503: claimStoreDown },
    },
    handle: async (_request, reply, _params, query) => {
      const answer = await ctx.papers.needsParser(query.limit, query.include_claimed);
      return reply.code(200).send({ ...answer, papers: answer.papers.map((p) => ({ ...p, arxiv_id: p.preprint_id })) });
    },
  });
}
