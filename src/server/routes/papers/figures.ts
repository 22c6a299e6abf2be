/** `GET /api/papers/{preprint_id}/figures` (CONTRACT §18.2): the figures of a paper's markdown. */
import { Type } from '@sinclair/typebox';
import { Figures } from '../../../shared/api/registry.js';
import { NotFoundError } from '../../../shared/domain-errors.js';
import type { AppContext } from '../../http/context.js';
import { paperFigures } from '../../papers/paper-figures.js';
import { ID_OR_DOI, type PaperAction } from './action.js';
import { ErrorBody } from '../schemas.js';
import { readId } from './read-id.js';

export function figuresAction(ctx: AppContext): PaperAction {
  return {
    method: 'GET',
    path: '/api/papers/{preprint_id}/figures',
    schema: {
      params: Type.Object({ preprint_id: ID_OR_DOI }),
      summary: "The figures of the paper's markdown: images grouped, with caption, number and context",
      tags: ['papers'],
      response: {
        200: Figures,
        400: { ...ErrorBody, description: 'invalid id or DOI' },
        404: { ...ErrorBody, description: 'not hosted (paper access off), or a resolution 404' },
        502: { ...ErrorBody, description: 'a resolution upstream error (paper access on)' },
        503: { ...ErrorBody, description: 'DOI resolution unavailable, or the version lookup is rate-limited' },
      },
    },
    handle: async (request, reply, d) => {
      const id = await readId(ctx, d.id, request, reply);
      if (id === null) throw new NotFoundError(`not hosted: ${d.id}`);
      return reply.code(200).send(await paperFigures(ctx.papers, id));
    },
  };
}
