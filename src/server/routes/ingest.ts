/**
 * Ingest tasks over HTTP (CONTRACT §10): submit, continue, task document, stage catalogue, task list. All five
 * need `papers:write` and are always registered; the writes count against the per-user write limit.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { FastifyRequest } from 'fastify';
import { InvalidInputError } from '../../shared/domain-errors.js';
import type { RoutePlugin } from '../http/context.js';
import { queryInteger } from '../http/query.js';
import { MAX_LIST, STAGE_CATALOGUE, type IngestService } from '../ingest/service.js';
import { scope } from './guard.js';
import { headerUser } from './papers-http.js';
import { IngestAccepted, IngestStageName, IngestTask } from '../../shared/api/ingest.js';
import { ErrorBody, OpenObject } from './schemas.js';

const optionFields = {
  parser: Type.Optional(
    Type.String({ description: "only 'pdfparser' (the default); 'mineru' is accepted for it (deprecated, §19)" }),
  ),
  stop_after: Type.Optional(IngestStageName),
  stages: Type.Optional(Type.Array(IngestStageName, { description: 'explicit stages; wins over stop_after' })),
  force_fetch: Type.Optional(Type.Boolean({ description: 're-download and overwrite even if a PDF is stored' })),
  force_parse: Type.Optional(Type.Boolean({ description: 're-convert and overwrite even if markdown is stored' })),
  no_cache: Type.Optional(Type.Boolean({ description: "bypass the parser provider's cache" })),
};

/**
 * The original clients' names (CONTRACT §19): `arxiv_id` for `preprint_id`, `mineru_no_cache` for `no_cache`. One of
 * `preprint_id` / `arxiv_id` is required, so neither is required by the schema; `submitInput` checks.
 */
const SubmitBody = Type.Object(
  {
    preprint_id: Type.Optional(
      Type.String({ description: 'canonical, versionless or bare old-style id (required unless arxiv_id is sent)' }),
    ),
    arxiv_id: Type.Optional(Type.String({ description: 'deprecated name of preprint_id (§19)' })),
    ...optionFields,
    mineru_no_cache: Type.Optional(Type.Boolean({ description: 'deprecated name of no_cache (§19)' })),
  },
  { additionalProperties: false },
);
type SubmitInput = Static<typeof SubmitBody>;

/** One of two names of a field: both sent → 400, so a conflicting request is never half-read. */
function eitherName<T>(body: SubmitInput, name: keyof SubmitInput, alias: keyof SubmitInput): T | undefined {
  if (body[name] !== undefined && body[alias] !== undefined) {
    throw new InvalidInputError(`send '${name}' or its deprecated name '${alias}', not both`);
  }
  return (body[name] ?? body[alias]) as T | undefined;
}

/** The submit body with the §19 names folded into the contract's. */
function submitInput(body: SubmitInput): { id: string; options: ContinueInput } {
  const { preprint_id: _p, arxiv_id: _a, mineru_no_cache: _m, no_cache: _n, parser, ...rest } = body;
  const id = eitherName<string>(body, 'preprint_id', 'arxiv_id');
  if (id === undefined) throw new InvalidInputError("preprint_id: must have required property 'preprint_id'");
  const noCache = eitherName<boolean>(body, 'no_cache', 'mineru_no_cache');
  return {
    id,
    options: {
      ...rest,
      ...(parser === undefined ? {} : { parser: parser === 'mineru' ? 'pdfparser' : parser }),
      ...(noCache === undefined ? {} : { no_cache: noCache }),
    },
  };
}

const ContinueBody = Type.Object(optionFields, { additionalProperties: false });
type ContinueInput = Static<typeof ContinueBody>;

const Catalogue = Type.Object({
  order: Type.Array(IngestStageName),
  stages: Type.Array(
    Type.Object({ name: IngestStageName, description: Type.String(), can_stop_after: Type.Boolean() }),
  ),
  parsers: Type.Array(Type.String()),
  default_parser: Type.String(),
  controls: OpenObject({}),
});

const TaskParams = Type.Object({ task_id: Type.String() });
const notFound = { ...ErrorBody, description: 'ingest task not found' };

/**
 * The continue body is optional (none, empty, or an object), so it is checked here rather than by a body schema
 * (which would refuse a request without a body); the answers are those of a schema violation (§0.2).
 */
function continueInput(body: unknown): ContinueInput {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw new InvalidInputError('body: must be object');
  const unknown = Object.keys(body).find((k) => !(k in ContinueBody.properties));
  if (unknown !== undefined) throw new InvalidInputError(`unknown field '${unknown}'`);
  const first = Value.Errors(ContinueBody, body).First();
  if (first)
    throw new InvalidInputError(`${first.path.replace(/^\//, '').replace(/\//g, '.') || 'body'}: ${first.message}`);
  return body as ContinueInput;
}

export const ingestRoutes: RoutePlugin<{ ingest: IngestService }> = async (app, { ctx, ingest }) => {
  const write = { guard: scope('papers', 'write'), rateLimitClass: 'write' as const };
  const read = { guard: scope('papers', 'write') };
  const tags = ['ingest'];
  const requester = (request: FastifyRequest) =>
    headerUser(request, ctx.config.userHeader) ?? request.principal?.login ?? 'system-pat';

  app.post(
    '/api/ingest/paper',
    {
      config: write,
      schema: {
        summary: 'Submit a server-side ingest task (fetch the PDF from arXiv, convert it with the parser)',
        tags,
        body: SubmitBody,
        response: {
          202: { ...IngestAccepted, description: 'queued; poll status_url (also in Location)' },
          400: { ...ErrorBody, description: 'invalid or missing preprint_id, parser or stages' },
        },
      },
    },
    async (request, reply) => {
      const { id, options } = submitInput(request.body);
      const accepted = await ingest.submit(id, options, requester(request));
      return reply.code(202).header('Location', accepted.status_url).send(accepted);
    },
  );

  app.post(
    '/api/ingest/:task_id/continue',
    {
      config: { ...write, openapi: { body: ContinueBody } },
      schema: {
        summary: 'Continue a finished task with its remaining stages, reusing stored artifacts (a new task)',
        tags,
        params: TaskParams,
        response: {
          202: { ...IngestAccepted, description: 'the continuation is queued' },
          400: { ...ErrorBody, description: 'invalid body, or no stages remaining' },
          404: notFound,
          409: { ...ErrorBody, description: 'the source task is still queued or running' },
        },
      },
    },
    async (request, reply) => {
      const accepted = await ingest.continueTask(
        request.params.task_id,
        continueInput(request.body),
        requester(request),
      );
      return reply.code(202).header('Location', accepted.status_url).send(accepted);
    },
  );

  for (const url of ['/api/ingest/stages', '/api/ingest/stages/']) {
    app.get(
      url,
      {
        config: read,
        schema: {
          summary: 'The ingest stages, parsers and controls',
          tags,
          response: { 200: Catalogue },
        },
      },
      async () => ({
        ...STAGE_CATALOGUE,
        order: [...STAGE_CATALOGUE.order],
        stages: STAGE_CATALOGUE.stages.map((stage) => ({ ...stage })),
        parsers: [...STAGE_CATALOGUE.parsers],
      }),
    );
  }

  for (const url of ['/api/ingest/:task_id', '/api/ingest/:task_id/']) {
    app.get(
      url,
      {
        config: read,
        schema: {
          summary: 'An ingest task: status, steps, progress and results',
          tags,
          params: TaskParams,
          response: { 200: IngestTask, 404: notFound },
        },
      },
      async (request) => ingest.get(request.params.task_id),
    );
  }

  app.get(
    '/api/ingests',
    {
      config: {
        ...read,
        openapi: {
          querystring: Type.Object({
            limit: Type.Optional(Type.Integer({ description: `default 50, clamped to 1..${MAX_LIST}` })),
          }),
        },
      },
      schema: {
        summary: 'Ingest tasks, newest first',
        tags,
        querystring: Type.Object({ limit: Type.Optional(Type.String()) }),
        response: { 200: Type.Object({ total: Type.Integer(), tasks: Type.Array(IngestTask) }) },
      },
    },
    async (request) => {
      const limit = Math.min(MAX_LIST, Math.max(1, queryInteger(request.query.limit, 'limit', 50)));
      return ingest.list(limit);
    },
  );
};
