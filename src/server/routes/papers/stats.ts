/** `GET /api/papers/stats` (CONTRACT §9): paper asset statistics from the metadata index. */
import { PaperStats } from '../../../shared/api/parser-claims.js';
import type { AppContext } from '../../http/context.js';
import type { PaperAction } from './action.js';

export function statsAction(ctx: AppContext): PaperAction {
  return {
    method: 'GET',
    path: '/api/papers/stats',
    schema: { summary: 'Paper asset statistics (the metadata index)', tags: ['papers'], response: { 200: PaperStats } },
    handle: async (_request, reply) => reply.code(200).send(ctx.papers.stats()),
  };
}
