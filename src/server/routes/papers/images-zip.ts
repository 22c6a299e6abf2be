/** `GET /api/papers/{preprint_id}/images/zip` (CONTRACT §18.2): the stored images of a paper as one zip, streamed. */
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../http/context.js';
import { imagesZip } from '../../papers/images-zip.js';
import { definePaperAction, ReadParams, type PaperAction } from './action.js';
import { readErrors, requireRead } from './read-id.js';

export function imagesZipAction(ctx: AppContext): PaperAction {
  return definePaperAction({
    method: 'GET',
    path: '/api/papers/{preprint_id}/images/zip',
    params: ReadParams,
    schema: {
      summary: 'The stored images of the paper as one zip (members images/<name>, the same bytes every time)',
      tags: ['papers'],
      response: {
        200: Type.String({ description: 'the zip (application/zip)' }),
        ...readErrors('no images stored for <id>, or a resolution 404'),
      },
    },
    handle: async (request, reply, { preprint_id: requested }) => {
      const id = await requireRead(ctx, requested, request, reply, `no images stored for ${requested}`);
      const zip = await imagesZip(ctx.papers, id);
      reply
        .header('Content-Type', 'application/zip')
        .header('Content-Length', String(zip.size))
        .header('Content-Disposition', `attachment; filename="${id.stem}-images.zip"`);
      return reply.code(200).send(zip.body);
    },
  });
}
