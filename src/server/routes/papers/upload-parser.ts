/** `POST /api/papers/{preprint_id}/upload-parser` (CONTRACT §9.3): store a parser result zip (full.md, images/). */
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../http/context.js';
import { booleanField, mapField, querySchema, sha256Field, textField } from '../../http/query-schema.js';
import { PARSER_ZIP_LIMIT } from '../../papers/upload-parser.js';
import { headerUser, receiveFilePart, requireMultipart } from '../papers-http.js';
import { ErrorBody, Nullable, Sha256 } from '../schemas.js';
import { definePaperAction, sendUploaded, UploadParams, type PaperAction } from './action.js';
import { catalogSync, Collision, storeError } from './upload-answers.js';

const ParserUploaded = Type.Object(
  {
    preprint_id: Type.String(),
    key: Type.String(),
    markdown_path: Type.String(),
    markdown_bytes: Type.Integer(),
    markdown_sha256: Sha256(),
    markdown_unchanged: Type.Boolean(),
    image_count: Type.Integer(),
    images_path: Type.String(),
    images_written: Type.Integer(),
    images_unchanged: Type.Integer(),
    zip_bytes: Type.Integer(),
    zip_sha256: Sha256(),
    source: Nullable(Type.String()),
    uploaded_by: Nullable(Type.String()),
    overwritten: Type.Boolean(),
    unchanged: Type.Boolean(),
  },
  catalogSync,
);

/** The zip's multipart part: `parser_zip`, or `mineru_zip` as the original clients send it (CONTRACT §19). */
const PARSER_ZIP_PARTS = ['parser_zip', 'mineru_zip'] as const;

const Query = querySchema({
  expected_sha256: sha256Field('sha256 of the zip'),
  pdf_sha256: sha256Field('sha256 of the PDF the contributor parsed'),
  overwrite: booleanField('replace different existing content and delete stored images not in the bundle'),
  // An audit label: empty counts as none; at most 64 characters are kept.
  source: mapField(textField('free audit label (first 64 characters kept)'), (label) =>
    label === null || label === '' ? null : [...label].slice(0, 64).join(''),
  ),
});

export function uploadParserAction(ctx: AppContext): PaperAction {
  return definePaperAction({
    method: 'POST',
    path: '/api/papers/{preprint_id}/upload-parser',
    params: UploadParams,
    schema: {
      summary: 'Upload a parser result zip (full.md and images/)',
      tags: ['papers'],
      querystring: Query,
      files: [
        {
          name: 'parser_zip',
          description: `the complete parser result zip, at most ${PARSER_ZIP_LIMIT} bytes (also accepted as part 'mineru_zip')`,
        },
      ],
      response: {
        201: { ...ParserUploaded, description: 'written' },
        200: { ...ParserUploaded, description: 'markdown and every image unchanged' },
        400: { ...ErrorBody, description: 'invalid id, query, multipart or zip; a hash mismatch' },
        404: { ...ErrorBody, description: 'no stored PDF' },
        409: Collision,
        413: { ...ErrorBody, description: 'zip over its cap, or full.md / an image over 26214400 bytes' },
        500: storeError,
      },
    },
    handle: async (request, reply, { preprint_id: id }, query) => {
      requireMultipart(request, 'parser_zip');
      const staged = await receiveFilePart(request, PARSER_ZIP_PARTS, PARSER_ZIP_LIMIT, (file) =>
        ctx.papers.stage('parser_zip', file),
      );
      const result = await ctx.papers.uploadParser({
        id,
        expectedSha256: query.expected_sha256,
        pdfSha256: query.pdf_sha256,
        overwrite: query.overwrite,
        source: query.source,
        uploadedBy: headerUser(request, ctx.config.userHeader),
        staged,
      });
      return sendUploaded(reply, result);
    },
  });
}
