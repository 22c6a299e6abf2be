/** `GET /api/papers/stats` (CONTRACT §9): paper asset statistics from the metadata index. */
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../http/context.js';
import { Nullable, Timestamp } from '../schemas.js';
import type { PaperAction } from './action.js';

const Stats = Type.Union([
  Type.Object({ available: Type.Literal(false) }),
  Type.Object({
    available: Type.Literal(true),
    total: Type.Integer(),
    has_pdf: Type.Integer(),
    has_md: Type.Integer(),
    has_json: Type.Integer(),
    needs_parser: Type.Integer(),
    total_images: Type.Integer(),
    loaded_at: Nullable(Timestamp()),
  }),
]);

export function statsAction(ctx: AppContext): PaperAction {
  return {
    method: 'GET',
    path: '/api/papers/stats',
    schema: { summary: 'Paper asset statistics (the metadata index)', tags: ['papers'], response: { 200: Stats } },
    handle: async (_request, reply) => reply.code(200).send(ctx.papers.stats()),
  };
}
