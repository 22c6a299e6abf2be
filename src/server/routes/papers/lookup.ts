/**
 * `GET /api/papers/lookup?ids=arxiv:…,doi:…,openalex:…` (CONTRACT §18.2): what the corpus knows of each ref, in
 * request order. At most 200 refs are answered (more are cut silently); none → 400. `corpus_available` says whether
 * the graph is configured.
 */
import { Type } from '@sinclair/typebox';
import { BATCH_MAX_IDS, Lookup } from '../../../shared/api/registry.js';
import { InvalidInputError } from '../../../shared/domain-errors.js';
import type { AppContext } from '../../http/context.js';
import { PaperLookup } from '../../papers/metadata/lookup.js';
import { lookupCaller } from '../access.js';
import type { PaperAction } from '../papers.js';
import { ErrorBody } from '../schemas.js';

/** The refs of `ids`: comma-separated, trimmed, empty ones dropped, the first 200 kept. */
export function lookupRefs(raw: unknown): string[] {
  const refs = typeof raw === 'string' ? raw.split(',').map((r) => r.trim()) : [];
  return refs.filter((r) => r !== '').slice(0, BATCH_MAX_IDS);
}

export function lookupAction(ctx: AppContext): PaperAction {
  const lookup =
    ctx.metadata?.lookup ??
    new PaperLookup({ index: ctx.papers.catalog.index, metadata: null, openalex: null, logger: ctx.logger });
  return {
    method: 'GET',
    path: '/api/papers/lookup',
    schema: {
      summary: 'What the corpus knows of references (arxiv:, doi:, openalex:), from the graph and the metadata cache',
      tags: ['papers'],
      querystring: Type.Object({
        ids: Type.Optional(
          Type.String({
            description: `comma-separated refs \`arxiv:<id>\`, \`doi:<doi>\`, \`openalex:<W id>\`; the first ${BATCH_MAX_IDS} are answered`,
          }),
        ),
      }),
      response: {
        200: Lookup,
        400: { ...ErrorBody, description: 'no refs given' },
      },
    },
    handle: async (request, reply) => {
      const refs = lookupRefs((request.query as Record<string, unknown> | undefined)?.['ids']);
      if (refs.length === 0) {
        throw new InvalidInputError('ids: no refs given (comma-separated arxiv:<id>, doi:<doi> or openalex:<W id>)');
      }
      const body: Lookup = {
        results: await lookup.lookup(refs, lookupCaller(request)),
        corpus_available: ctx.metadata?.service.graphConfigured ?? false,
      };
      return reply.code(200).send(body);
    },
  };
}
