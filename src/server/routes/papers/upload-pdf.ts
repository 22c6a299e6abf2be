/** `POST /api/papers/{preprint_id}/upload-pdf` (CONTRACT §9.3): store a PDF, create-if-absent or overwrite. */
import { Type } from '@sinclair/typebox';
import { InvalidInputError } from '../../../shared/domain-errors.js';
import type { AppContext } from '../../http/context.js';
import { booleanField, querySchema, sha256Field } from '../../http/query-schema.js';
import { PDF_UPLOAD_LIMIT } from '../../papers/upload-pdf.js';
import { headerUser, receiveFilePart, requireMultipart } from '../papers-http.js';
import { ErrorBody, Sha256 } from '../schemas.js';
import { filePartSize } from './pdf-part-size.js';
import { definePaperAction, sendUploaded, UploadParams, type PaperAction } from './action.js';
import { catalogSync, Collision, storeError } from './upload-answers.js';

// @fastify/multipart's words for a request closed mid-body.
const CLOSED_EARLY = 'the request was closed before the multipart data was fully parsed';

const PdfUploaded = Type.Object(
  {
    preprint_id: Type.String(),
    key: Type.String(),
    pdf_path: Type.String(),
    pdf_bytes: Type.Integer(),
    pdf_sha256: Sha256(),
    pdf_unchanged: Type.Boolean(),
    overwritten: Type.Boolean(),
    unchanged: Type.Boolean(),
    uploaded_by: Type.Optional(Type.String()),
  },
  catalogSync,
);

const Query = querySchema({
  expected_sha256: sha256Field('sha256 of the PDF; checked before any write'),
  overwrite: booleanField('replace different existing content'),
});

export function uploadPdfAction(ctx: AppContext): PaperAction {
  return definePaperAction({
    method: 'POST',
    path: '/api/papers/{preprint_id}/upload-pdf',
    params: UploadParams,
    schema: {
      summary: 'Upload a PDF (create-if-absent; overwrite keeps the prior version)',
      tags: ['papers'],
      querystring: Query,
      files: [{ name: 'pdf', description: `the PDF (must start with %PDF-), at most ${PDF_UPLOAD_LIMIT} bytes` }],
      response: {
        201: { ...PdfUploaded, description: 'written' },
        200: { ...PdfUploaded, description: 'unchanged: the stored object already has this sha256' },
        400: { ...ErrorBody, description: 'invalid id or query, broken multipart, not a PDF, hash mismatch' },
        409: Collision,
        413: { ...ErrorBody, description: `over ${PDF_UPLOAD_LIMIT} bytes` },
        500: storeError,
      },
    },
    handle: async (request, reply, { preprint_id: id }, query) => {
      requireMultipart(request, 'pdf');
      const uploadedBy = headerUser(request, ctx.config.userHeader);
      // With the sha256 and the size known before the bytes, they also stream into the store as they are staged.
      const sha256 = query.expected_sha256;
      const size = sha256 === null ? null : await filePartSize(request, 'pdf');
      const stream =
        sha256 === null || size === null || size > PDF_UPLOAD_LIMIT
          ? null
          : await ctx.papers.streamPdf(id, { size, sha256 }, uploadedBy);
      // A client gone while the size was read or the store asked: the parser would wait for a 'close' already past.
      if (request.raw.destroyed) {
        await stream?.abort();
        throw new InvalidInputError(`parse multipart: ${CLOSED_EARLY}`);
      }
      let staged;
      try {
        staged = await receiveFilePart(request, 'pdf', PDF_UPLOAD_LIMIT, (file) =>
          ctx.papers.stage('pdf', file, stream ?? undefined),
        );
      } catch (err) {
        await stream?.abort();
        throw err;
      }
      const result = await ctx.papers.uploadPdf({
        id,
        expectedSha256: query.expected_sha256,
        overwrite: query.overwrite,
        uploadedBy,
        staged,
        ...(stream !== null ? { stream } : {}),
      });
      return sendUploaded(reply, result);
    },
  });
}
