/** `GET /api/papers/{preprint_id}/images/zip` (CONTRACT §18.2): the stored images of a paper as one zip, streamed. */
import { Type } from '@sinclair/typebox';
import { NotFoundError } from '../../../shared/domain-errors.js';
import type { AppContext } from '../../http/context.js';
import { imagesZip } from '../../papers/images-zip.js';
import { ID_OR_DOI, type PaperAction } from './action.js';
import { ErrorBody } from '../schemas.js';
import { readId } from './read-id.js';

export function imagesZipAction(ctx: AppContext): PaperAction {
  return {
    method: 'GET',
    path: '/api/papers/{preprint_id}/images/zip',
    schema: {
      params: Type.Object({ preprint_id: ID_OR_DOI }),
      summary: 'The stored images of the paper as one zip (members images/<name>, the same bytes every time)',
      tags: ['papers'],
      response: {
        200: Type.String({ description: 'the zip (application/zip)' }),
        400: { ...ErrorBody, description: 'invalid id or DOI' },
        404: { ...ErrorBody, description: 'no images stored for <id>, or a resolution 404' },
        502: { ...ErrorBody, description: 'a resolution upstream error (paper access on)' },
        503: { ...ErrorBody, description: 'DOI resolution unavailable, or the version lookup is rate-limited' },
      },
    },
    handle: async (request, reply, d) => {
      const id = await readId(ctx, d.id, request, reply);
      if (id === null) throw new NotFoundError(`no images stored for ${d.id}`);
      const zip = await imagesZip(ctx.papers, id);
      reply
        .header('Content-Type', 'application/zip')
        .header('Content-Length', String(zip.size))
        .header('Content-Disposition', `attachment; filename="${id.stem}-images.zip"`);
      return reply.code(200).send(zip.body);
    },
  };
}
