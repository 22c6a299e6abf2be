/** `GET /api/papers/{preprint_id}/figures` (CONTRACT §18.2): the figures of a paper's markdown. */
import { Figures } from '../../../shared/api/registry.js';
import type { AppContext } from '../../http/context.js';
import { paperFigures } from '../../papers/paper-figures.js';
import { definePaperAction, ReadParams, type PaperAction } from './action.js';
import { readErrors, requireRead } from './read-id.js';

export function figuresAction(ctx: AppContext): PaperAction {
  return definePaperAction({
    method: 'GET',
    path: '/api/papers/{preprint_id}/figures',
    params: ReadParams,
    schema: {
      summary: "The figures of the paper's markdown: images grouped, with caption, number and context",
      tags: ['papers'],
      response: { 200: Figures, ...readErrors('not hosted (paper access off), or a resolution 404') },
    },
    handle: async (request, reply, { preprint_id: requested }) => {
      const id = await requireRead(ctx, requested, request, reply, `not hosted: ${requested}`);
      return reply.code(200).send(await paperFigures(ctx.papers, id));
    },
  });
}
