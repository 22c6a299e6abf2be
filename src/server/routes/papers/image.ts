/** `GET /api/papers/{id_or_doi}/images/{name}` (CONTRACT §11.4 ★): a stored figure, so readers see them. */
import { Type } from '@sinclair/typebox';
import type { PaperAccess } from '../../access/service.js';
import { paramsSchema } from '../../http/query-schema.js';
import { ErrorBody } from '../schemas.js';
import { definePaperAction, idOrDoiParam, imageNameParam, type PaperAction } from './action.js';
import { resolutionErrors, resolveRequested } from './resolution.js';

const ImageParams = paramsSchema({ preprint_id: idOrDoiParam, name: imageNameParam });

export function imageAction(access: PaperAccess): PaperAction {
  return definePaperAction({
    method: 'GET',
    path: '/api/papers/{preprint_id}/images/{name}',
    params: ImageParams,
    schema: {
      summary: 'A stored image of the paper (a figure referenced by its markdown)',
      tags: ['paper-access'],
      response: {
        200: Type.String({ description: 'the image bytes, with the stored content type' }),
        ...resolutionErrors,
        404: { ...ErrorBody, description: 'no such image, or a resolution 404' },
      },
    },
    handle: async (request, reply, { preprint_id: requested, name }) => {
      const resolution = await resolveRequested(access, requested, request, reply);
      const content = await access.image(resolution.id, name);
      // Stored bytes of a versioned id never change; nosniff and a sandboxing CSP keep an SVG from running script.
      reply
        .header('Content-Type', content.contentType)
        .header('Content-Length', String(content.size))
        .header('Cache-Control', 'private, max-age=31536000, immutable')
        .header('X-Content-Type-Options', 'nosniff')
        .header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox");
      return reply.code(200).send(content.body);
    },
  });
}
