import fastifyMultipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../../shared/errors.js';
import { requireUploadId } from '../../shared/ids.js';
import type { AppContext } from '../app.js';
import { normaliseTtl } from '../papers/claims.js';
import { PDF_UPLOAD_LIMIT } from '../papers/upload-pdf.js';
import { PARSER_ZIP_LIMIT } from '../papers/upload-parser.js';
import { scope } from './guard.js';
import {
  headerUser,
  queryBoolean,
  queryInteger,
  queryOf,
  querySha256,
  queryString,
  receiveFilePart,
  requireMultipart,
} from './papers-http.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Routes that count against the per-user write limit (CONTRACT §7.7: 60 per minute per user) carry
     * `rateLimitClass: 'write'`; the app's `rateLimitClassHook` (a preValidation hook after the guard) applies it.
     */
    rateLimitClass?: 'write';
  }
}

/** Actions of the papers dispatcher (§9.1), in peeling order. */
type Action =
  | 'markdown/status'
  | 'pdf/status'
  | 'markdown'
  | 'pdf'
  | 'upload-pdf'
  | 'upload-parser'
  | 'parser-claim/id'
  | 'parser-claim';

export interface Dispatch {
  readonly action: Action;
  /** The id part (everything before the action suffix; may contain `/`), percent-decoded once. */
  readonly id: string;
  readonly claimId: string | null;
}

const SUFFIXES: readonly Action[] = ['markdown/status', 'pdf/status', 'markdown', 'pdf', 'upload-pdf', 'upload-parser'];

/** Peels the action suffix off `rest` (the decoded path after `/api/papers/`); `null` when none matches. */
export function peelAction(rest: string): Dispatch | null {
  for (const action of SUFFIXES) {
    const suffix = `/${action}`;
    if (rest.endsWith(suffix) && rest.length > suffix.length) {
      return { action, id: rest.slice(0, -suffix.length), claimId: null };
    }
  }
  const m = /^(.+)\/parser-claim\/([^/]+)$/.exec(rest);
  if (m) return { action: 'parser-claim/id', id: m[1]!, claimId: m[2]! };
  if (rest.endsWith('/parser-claim') && rest.length > '/parser-claim'.length) {
    return { action: 'parser-claim', id: rest.slice(0, -'/parser-claim'.length), claimId: null };
  }
  return null;
}

type Handler = (request: FastifyRequest, reply: FastifyReply, d: Dispatch) => Promise<unknown>;

const PREFIX = '/api/papers/';

function restOf(url: string): string {
  const raw = (url.split('?')[0] ?? '').slice(PREFIX.length);
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** Paper endpoints: stats, needs-parser, uploads and claims (CONTRACT §9). */
export async function paperRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }): Promise<void> {
  // Upload bodies are streamed by the handlers, never parsed up front: this also keeps authentication ahead of
  // any body handling. Multipart requests are marked by the plugin and read with `request.parts()`.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
  // Size caps are enforced per part by the stager (busboy truncates one byte past the cap and drains the rest).
  await app.register(fastifyMultipart, { throwFileSizeLimit: false });

  const papers = ctx.papers;
  const uploader = (request: FastifyRequest) => headerUser(request, ctx.config.userHeader);

  /** The handler table of the dispatcher. Paper access (GET markdown/pdf/status) adds its actions here when on. */
  const handlers: Record<'GET' | 'POST' | 'DELETE', Partial<Record<Action, Handler>>> = {
    GET: {},
    POST: {
      'upload-pdf': async (request, reply, d) => {
        const id = requireUploadId(d.id);
        const query = queryOf(request);
        const expectedSha256 = querySha256(query, 'expected_sha256');
        const overwrite = queryBoolean(query, 'overwrite');
        requireMultipart(request, 'pdf');
        const staged = await receiveFilePart(request, 'pdf', PDF_UPLOAD_LIMIT, (file) => papers.stage('pdf', file));
        const result = await papers.uploadPdf({ id, expectedSha256, overwrite, uploadedBy: uploader(request), staged });
        if (result.catalogDeferred) reply.header('X-Catalog-Sync', 'deferred');
        return reply.code(result.status).send(result.body);
      },
      'upload-parser': async (request, reply, d) => {
        const id = requireUploadId(d.id);
        const query = queryOf(request);
        const expectedSha256 = querySha256(query, 'expected_sha256');
        const pdfSha256 = querySha256(query, 'pdf_sha256');
        const overwrite = queryBoolean(query, 'overwrite');
        const sourceRaw = queryString(query, 'source');
        const source = sourceRaw === null || sourceRaw === '' ? null : [...sourceRaw].slice(0, 64).join('');
        requireMultipart(request, 'parser_zip');
        const staged = await receiveFilePart(request, 'parser_zip', PARSER_ZIP_LIMIT, (file) =>
          papers.stage('parser_zip', file),
        );
        const result = await papers.uploadParser({
          id,
          expectedSha256,
          pdfSha256,
          overwrite,
          source,
          uploadedBy: uploader(request),
          staged,
        });
        if (result.catalogDeferred) reply.header('X-Catalog-Sync', 'deferred');
        return reply.code(result.status).send(result.body);
      },
      'parser-claim': async (request, reply, d) => {
        const id = requireUploadId(d.id);
        const ttl = normaliseTtl(queryOf(request)['ttl_seconds']);
        const requester = uploader(request) ?? request.principal?.login ?? 'system-pat';
        const result = await papers.claim(id, requester, ttl);
        return reply.code(result.status).send(result.body);
      },
    },
    DELETE: {
      'parser-claim/id': async (_request, reply, d) => {
        const id = requireUploadId(d.id);
        await papers.releaseClaim(id, d.claimId!);
        return reply.code(204).send();
      },
    },
  };

  const dispatches = new WeakMap<FastifyRequest, { dispatch: Dispatch; handler: Handler }>();

  for (const method of ['GET', 'POST', 'DELETE'] as const) {
    app.route({
      method,
      url: '/api/papers/*',
      config:
        method === 'GET'
          ? { guard: scope('papers', 'read') }
          : { guard: scope('papers', 'write'), rateLimitClass: 'write' },
      schema: { hide: true },
      // Unknown actions answer 404 before any authentication (§9.1): this runs ahead of the guard's preHandler.
      onRequest: async (request, reply) => {
        const rest = restOf(request.url);
        const dispatch = peelAction(rest);
        const verb = request.method === 'HEAD' ? 'GET' : (request.method as 'GET' | 'POST' | 'DELETE');
        const handler = dispatch ? handlers[verb]?.[dispatch.action] : undefined;
        if (!dispatch || !handler) {
          return reply.code(404).send({ detail: `no ${request.method} handler for ${PREFIX}${rest}` });
        }
        dispatches.set(request, { dispatch, handler });
      },
      handler: async (request, reply) => {
        const entry = dispatches.get(request);
        if (!entry) throw new HttpError(404, 'not found');
        return entry.handler(request, reply, entry.dispatch);
      },
    });
  }

  documentActions(app);

  app.get(
    '/api/papers/stats',
    {
      config: { guard: scope('papers', 'read') },
      schema: { summary: 'Paper asset statistics', tags: ['papers'] },
    },
    async () => papers.stats(),
  );

  app.get(
    '/api/papers/needs-parser',
    {
      config: { guard: scope('papers', 'read') },
      schema: { summary: 'Papers waiting for a parser result', tags: ['papers'] },
    },
    async (request) => {
      const query = queryOf(request);
      const limit = Math.min(100, Math.max(1, queryInteger(query, 'limit', 10)));
      const includeClaimed = queryBoolean(query, 'include_claimed');
      return papers.needsParser(limit, includeClaimed);
    },
  );
}

const idParam = (description: string) => ({
  name: 'preprint_id',
  in: 'path',
  required: true,
  type: 'string',
  description,
});
const shaQuery = (name: string, description: string) => ({
  name,
  in: 'query',
  required: false,
  type: 'string',
  pattern: '^[0-9a-fA-F]{64}$',
  description,
});
const boolQuery = (name: string, description: string) => ({
  name,
  in: 'query',
  required: false,
  type: 'boolean',
  description,
});
const errors = {
  400: { description: 'invalid id, query or body (`{detail}`; hash mismatches add the hashes)' },
  401: { description: 'no or invalid credential' },
  403: { description: 'the credential lacks papers:write (`{detail, obj, act}`)' },
  500: { description: 'object store error' },
};
const VERSIONED_ID =
  'canonical id or bare old-style number, with version vN (old-style ids may contain an encoded or raw /)';

/** The dispatcher's actions as their own paths in the OpenAPI document (CONTRACT §8.4). */
function documentActions(app: FastifyInstance): void {
  app.documentOperation('post', '/api/papers/{preprint_id}/upload-pdf', {
    summary: 'Upload a PDF (create-if-absent; overwrite keeps the prior version)',
    tags: ['papers'],
    consumes: ['multipart/form-data'],
    security: [{ Bearer: [] }],
    parameters: [
      idParam(VERSIONED_ID),
      shaQuery('expected_sha256', 'sha256 of the PDF; checked before any write'),
      boolQuery('overwrite', 'replace different existing content'),
      {
        name: 'pdf',
        in: 'formData',
        type: 'file',
        required: true,
        description: 'the PDF (must start with %PDF-), at most 104857600 bytes',
      },
    ],
    responses: {
      201: { description: 'written' },
      200: { description: 'unchanged: the stored object already has this sha256' },
      ...errors,
      404: { description: 'unknown action' },
      409: {
        description: 'different content exists (`{detail, existing_sha256, new_sha256, existing_path, hint[, note]}`)',
      },
      413: { description: 'over 104857600 bytes' },
      415: { description: 'not multipart/form-data' },
    },
  });
  app.documentOperation('post', '/api/papers/{preprint_id}/upload-parser', {
    summary: 'Upload a parser result zip (full.md and images/)',
    tags: ['papers'],
    consumes: ['multipart/form-data'],
    security: [{ Bearer: [] }],
    parameters: [
      idParam(VERSIONED_ID),
      shaQuery('expected_sha256', 'sha256 of the zip'),
      shaQuery('pdf_sha256', 'sha256 of the PDF the contributor parsed'),
      boolQuery('overwrite', 'replace different existing content and delete stored images not in the bundle'),
      { name: 'source', in: 'query', required: false, type: 'string', maxLength: 64, description: 'free audit label' },
      {
        name: 'parser_zip',
        in: 'formData',
        type: 'file',
        required: true,
        description: 'the complete parser result zip, at most 209715200 bytes',
      },
    ],
    responses: {
      201: { description: 'written' },
      200: { description: 'markdown and every image unchanged' },
      ...errors,
      404: { description: 'no stored PDF' },
      409: { description: 'a target exists with different content' },
      413: { description: 'zip over 209715200 bytes, or full.md / an image over 26214400 bytes' },
      415: { description: 'not multipart/form-data' },
    },
  });
  app.documentOperation('post', '/api/papers/{preprint_id}/parser-claim', {
    summary: 'Claim a paper for parsing (a lease)',
    tags: ['papers'],
    security: [{ Bearer: [] }],
    parameters: [
      idParam(VERSIONED_ID),
      {
        name: 'ttl_seconds',
        in: 'query',
        required: false,
        type: 'integer',
        description: 'lease length; default 1800, clamped to 60..7200',
      },
    ],
    responses: {
      201: {
        description:
          'the lease `{claim_id, preprint_id, key, requester, created_at, expires_at, ttl_seconds, pdf_url[, pdf_sha256]}`',
      },
      ...errors,
      404: { description: 'no PDF stored, or markdown already exists' },
      409: { description: 'already claimed (`{detail, claim_id, claim_expires_at, claim_requester}`)' },
      503: { description: 'claim store unavailable (graph unreachable)' },
    },
  });
  app.documentOperation('delete', '/api/papers/{preprint_id}/parser-claim/{claim_id}', {
    summary: 'Release a claim',
    tags: ['papers'],
    security: [{ Bearer: [] }],
    parameters: [idParam(VERSIONED_ID), { name: 'claim_id', in: 'path', required: true, type: 'string' }],
    responses: {
      204: { description: 'released, or no active claim' },
      ...errors,
      409: { description: 'claim_id does not match the active claim' },
      503: { description: 'claim store unavailable (graph unreachable)' },
    },
  });
}
