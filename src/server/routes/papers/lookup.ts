/**
 * `GET /api/papers/lookup?ids=arxiv:…,doi:…,openalex:…` (CONTRACT §18.2): what the corpus knows of each ref, in
 * request order. At most 200 refs are answered (more are cut silently); none → 400. `corpus_available` says whether
 * the graph is configured.
 */
import { Type } from '@sinclair/typebox';
import { BATCH_MAX_IDS, Lookup } from '../../../shared/api/registry.js';
import { InvalidInputError } from '../../../shared/domain-errors.js';
import type { AppContext } from '../../http/context.js';
import { querySchema } from '../../http/query-schema.js';
import { PaperLookup } from '../../papers/metadata/lookup.js';
import { lookupCaller } from './resolution.js';
import { definePaperAction, type PaperAction } from './action.js';
import { ErrorBody } from '../schemas.js';

/**
 * The refs of `ids` (a repeated parameter adds its lists, as status/batch's does): comma-separated, trimmed, empty
 * ones dropped, the first 200 kept; none → 400.
 */
export function lookupRefs(raw: unknown): string[] {
  const lists = [raw].flat().filter((v): v is string => typeof v === 'string');
  const refs = lists.flatMap((list) => list.split(',').map((r) => r.trim())).filter((r) => r !== '');
  if (refs.length === 0) {
    throw new InvalidInputError('ids: no refs given (comma-separated arxiv:<id>, doi:<doi> or openalex:<W id>)');
  }
  return refs.slice(0, BATCH_MAX_IDS);
}

const Query = querySchema({
  ids: {
    schema: Type.String({
      description: `comma-separated refs \`arxiv:<id>\`, \`doi:<doi>\`, \`openalex:<W id>\`; the first ${BATCH_MAX_IDS} are answered`,
    }),
    decode: lookupRefs,
  },
});

export function lookupAction(ctx: AppContext): PaperAction {
  const lookup =
    ctx.metadata?.lookup ??
    new PaperLookup({ index: ctx.papers.index, metadata: null, openalex: null, logger: ctx.logger });
  return definePaperAction({
    method: 'GET',
    path: '/api/papers/lookup',
    schema: {
      summary: 'What the corpus knows of references (arxiv:, doi:, openalex:), from the graph and the metadata cache',
      tags: ['papers'],
      querystring: Query,
      response: {
        200: Lookup,
        400: { ...ErrorBody, description: 'no refs given' },
      },
    },
    handle: async (request, reply, _params, { ids: refs }) => {
      const body: Lookup = {
        results: await lookup.lookup(refs, lookupCaller(request)),
        corpus_available: ctx.metadata?.service.graphConfigured ?? false,
      };
      return reply.code(200).send(body);
    },
  });
}
