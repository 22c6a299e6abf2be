import fastifyMultipart from '@fastify/multipart';
import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { requireUploadId, VERSIONED_ID_PATTERN } from '../../shared/ids.js';
import type { RoutePlugin } from '../http/context.js';
import { requestPath } from '../http/headers.js';
import { HttpError } from '../http/http-error.js';
import type { ActionSchema } from '../http/openapi.js';
import { queryBoolean, queryInteger, querySha256, queryString } from '../http/query.js';
import { normaliseTtl } from '../papers/claims.js';
import { PDF_UPLOAD_LIMIT } from '../papers/upload-pdf.js';
import { PARSER_ZIP_LIMIT } from '../papers/upload-parser.js';
import { scope, type Guard } from './guard.js';
import { headerUser, receiveFilePart, requireMultipart } from './papers-http.js';
import { ErrorBody, Nullable, QueryBoolean, Sha256, Timestamp } from './schemas.js';

/** What the dispatcher took from the path for an action's handler. */
export interface Dispatch {
  /** The id part (may contain `/`), percent-decoded once. */
  readonly id: string;
  readonly claimId: string | null;
  /** The image name of `…/images/{name}` (may contain `/`). */
  readonly name?: string;
}

/**
 * One operation of the papers area: its method, its path as a literal in OpenAPI syntax, its documentation and its
 * handler. A path with `{preprint_id}` is an action of the dispatcher (`/api/papers/*`, `/api/v1/papers/*`): the id
 * may contain `/`, so the dispatcher peels the literal parts off the path. A path without is a route of its own.
 * The guard follows the method unless given: reads need `papers:read`; writes `papers:write` and count against the
 * write limit.
 */
export interface PaperAction {
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly path: string;
  readonly schema: Omit<ActionSchema, 'params'> & { readonly params?: ActionSchema['params'] };
  readonly guard?: Guard;
  /** A JSON body of a route of its own, for the document only: its handler reads and checks it (none is parsed here). */
  readonly body?: TSchema;
  /** For an action whose path is `{preprint_id}` alone: which ids it takes (others stay unknown paths, 404). */
  readonly takes?: (id: string) => boolean;
  handle(request: FastifyRequest, reply: FastifyReply, target: Dispatch): Promise<unknown>;
}

const PREFIXES = ['/api/papers/', '/api/v1/papers/'] as const;

/** An action's path as a matcher of the decoded rest after its prefix. */
interface Matcher {
  readonly prefix: string;
  readonly pattern: RegExp;
  /** Peeling order: `…/images/…` first (an image name may contain anything), the bare id last. */
  readonly rank: readonly [number, number];
}

const PARAM_PATTERN: Readonly<Record<string, string>> = {
  preprint_id: '(?<preprint_id>.+?)',
  claim_id: '(?<claim_id>[^/]+)',
  name: '(?<name>.+)',
};

const matchers = new Map<string, Matcher>();

/** The matcher of an action path (compiled once per path). */
function matcherOf(path: string): Matcher {
  let matcher = matchers.get(path);
  if (!matcher) {
    matcher = compileMatcher(path);
    matchers.set(path, matcher);
  }
  return matcher;
}

function compileMatcher(path: string): Matcher {
  const prefix = PREFIXES.find((p) => path.startsWith(`${p}{preprint_id}`));
  if (!prefix) throw new Error(`papers action path ${path} does not start with a papers prefix and {preprint_id}`);
  const rest = path.slice(prefix.length);
  const source = rest
    .split(/(\{[a-z_]+\})/)
    .map((part) => {
      const param = /^\{([a-z_]+)\}$/.exec(part)?.[1];
      if (param === undefined) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      const pattern = PARAM_PATTERN[param];
      if (!pattern) throw new Error(`papers action path ${path}: unknown parameter {${param}}`);
      return pattern;
    })
    .join('');
  const literal = rest.replace(/\{[a-z_]+\}/g, '');
  const rank = [rest.includes('/images/') ? 0 : literal === '' ? 2 : 1, -literal.length] as const;
  // `s`: an id or name with a line break still dispatches (and is refused by its action as invalid, 400).
  return { prefix, pattern: new RegExp(`^${source}$`, 's'), rank };
}

/** The dispatch of `rest` (the decoded path after `prefix`) to one of `actions`, tried in peeling order. */
export function dispatchOf(
  actions: readonly PaperAction[],
  prefix: string,
  rest: string,
): { action: PaperAction; dispatch: Dispatch } | null {
  for (const action of actions) {
    const matcher = matcherOf(action.path);
    if (matcher.prefix !== prefix) continue;
    const groups = matcher.pattern.exec(rest)?.groups;
    if (!groups) continue;
    const id = groups['preprint_id']!;
    if (action.takes && !action.takes(id)) continue;
    const dispatch = { id, claimId: groups['claim_id'] ?? null, ...(groups['name'] ? { name: groups['name'] } : {}) };
    return { action, dispatch };
  }
  return null;
}

/** Actions in peeling order (stable within a rank). */
export function peelingOrder(actions: readonly PaperAction[]): PaperAction[] {
  const ranked = actions.map((action, index) => ({ action, index, rank: matcherOf(action.path).rank }));
  ranked.sort((a, b) => a.rank[0] - b.rank[0] || a.rank[1] - b.rank[1] || a.index - b.index);
  return ranked.map((r) => r.action);
}

/** The decoded rest of a papers path (an undecodable one stays raw and matches no id). */
function restOf(path: string, prefix: string): string {
  const raw = path.slice(prefix.length);
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

const guardOf = (action: Pick<PaperAction, 'method' | 'guard'>): Guard =>
  action.guard ?? (action.method === 'GET' ? scope('papers', 'read') : scope('papers', 'write'));

/** The path parameter of uploads and claims: a versioned id. */
export const VERSIONED_ID = Type.String({
  pattern: VERSIONED_ID_PATTERN,
  description: 'canonical id or bare old-style number, with version vN (a `/` may be sent raw or as %2F)',
});

/** The path parameter of reads (CONTRACT §11.4, §18): any id form or a DOI. */
export const ID_OR_DOI = Type.String({
  minLength: 1,
  description: 'canonical id, versionless id, bare old-style number or DOI (a `/` may be sent raw or as %2F)',
});

/** An action's path parameters as documented: its own `params`, else a versioned id and the path's others. */
function paramsOf(action: PaperAction): ActionSchema['params'] {
  if (action.schema.params) return action.schema.params;
  return Type.Object({
    preprint_id: VERSIONED_ID,
    ...(action.path.includes('{claim_id}') ? { claim_id: Type.String({ pattern: '^[^/]+$' }) } : {}),
    ...(action.path.includes('{name}') ? { name: Type.String({ minLength: 1 }) } : {}),
  });
}

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

const NeedsParserPaper = Type.Object({
  preprint_id: Type.String(),
  arxiv_id: Type.String({ description: 'the same as preprint_id (the original clients read it, CONTRACT §19)' }),
  key: Type.String(),
  pdf_path: Type.String(),
  pdf_uploaded_at: Nullable(Timestamp()),
  claimed: Type.Boolean(),
  claim_expires_at: Nullable(Timestamp()),
  claim_requester: Nullable(Type.String()),
});

const NeedsParser = Type.Object({
  papers: Type.Array(NeedsParserPaper),
  returned: Type.Integer(),
  total_unclaimed: Type.Integer(),
  total_claimed: Type.Integer(),
  available: Type.Boolean(),
});

const catalogSync = {
  headers: {
    'X-Catalog-Sync': { type: 'string', enum: ['deferred'], description: 'the index or graph is updated later' },
  },
};

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

const Collision = Type.Object(
  {
    detail: Type.String(),
    existing_sha256: Nullable(Sha256()),
    new_sha256: Sha256(),
    existing_path: Type.String(),
    hint: Type.String(),
    note: Type.Optional(Type.String({ description: 'only when existing_sha256 is null' })),
  },
  { description: 'different content is stored under the key' },
);

const Claimed = Type.Object({
  claim_id: Type.String(),
  lease_id: Type.String({ description: 'the same as claim_id (the original clients read it, CONTRACT §19)' }),
  preprint_id: Type.String(),
  key: Type.String(),
  requester: Type.String(),
  created_at: Timestamp(),
  expires_at: Timestamp(),
  ttl_seconds: Type.Integer({ minimum: 60, maximum: 7200 }),
  pdf_url: Type.String(),
  pdf_sha256: Type.Optional(Sha256()),
});

const AlreadyClaimed = Type.Object(
  {
    detail: Type.String(),
    claim_id: Type.String(),
    claim_expires_at: Timestamp(),
    claim_requester: Type.String(),
  },
  { description: 'an unexpired claim is held' },
);

/** The original clients' names (CONTRACT §19): each alias path and the path it stands for (same guard and handler). */
const ALIASES: readonly (readonly [alias: string, of: string])[] = [
  ['/api/papers/{preprint_id}/upload-mineru', '/api/papers/{preprint_id}/upload-parser'],
  ['/api/papers/{preprint_id}/mineru-claim', '/api/papers/{preprint_id}/parser-claim'],
  ['/api/papers/{preprint_id}/mineru-claim/{claim_id}', '/api/papers/{preprint_id}/parser-claim/{claim_id}'],
  ['/api/v1/papers/{preprint_id}/mineru-lease', '/api/papers/{preprint_id}/parser-claim'],
  ['/api/v1/papers/{preprint_id}/mineru-lease/{claim_id}', '/api/papers/{preprint_id}/parser-claim/{claim_id}'],
];

/** The zip's multipart part: `parser_zip`, or `mineru_zip` as the original clients send it (CONTRACT §19). */
const PARSER_ZIP_PARTS = ['parser_zip', 'mineru_zip'] as const;

const storeError = { ...ErrorBody, description: 'object store error: <message>' };
const claimStoreDown = { ...ErrorBody, description: 'claim store unavailable (graph unreachable); retry shortly' };
const hashQuery = (description: string) => Type.Optional(Type.String({ pattern: '^[0-9a-fA-F]{64}$', description }));

/** Paper endpoints: stats, needs-parser, uploads and claims (CONTRACT §9), plus any actions passed in. */
export const paperRoutes: RoutePlugin<{ actions?: readonly PaperAction[] }> = async (app, { ctx, actions = [] }) => {
  // Upload bodies are streamed by the handlers, never parsed up front: this also keeps authentication ahead of
  // any body handling. Multipart requests are marked by the plugin and read with `request.parts()`.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
  // Size caps are enforced per part by the stager (busboy truncates one byte past the cap and drains the rest).
  await app.register(fastifyMultipart, { throwFileSizeLimit: false });

  const papers = ctx.papers;
  const uploader = (request: FastifyRequest) => headerUser(request, ctx.config.userHeader);
  type Query = Record<string, unknown>;
  const queryOf = (request: FastifyRequest) => (request.query ?? {}) as Query;

  const own: PaperAction[] = [
    {
      method: 'POST',
      path: '/api/papers/{preprint_id}/upload-pdf',
      schema: {
        summary: 'Upload a PDF (create-if-absent; overwrite keeps the prior version)',
        tags: ['papers'],
        querystring: Type.Object({
          expected_sha256: hashQuery('sha256 of the PDF; checked before any write'),
          overwrite: Type.Optional(QueryBoolean('replace different existing content')),
        }),
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
      handle: async (request, reply, d) => {
        const id = requireUploadId(d.id);
        const query = queryOf(request);
        const expectedSha256 = querySha256(query['expected_sha256'], 'expected_sha256');
        const overwrite = queryBoolean(query['overwrite'], 'overwrite');
        requireMultipart(request, 'pdf');
        const staged = await receiveFilePart(request, 'pdf', PDF_UPLOAD_LIMIT, (file) => papers.stage('pdf', file));
        const result = await papers.uploadPdf({ id, expectedSha256, overwrite, uploadedBy: uploader(request), staged });
        if (result.catalogDeferred) reply.header('X-Catalog-Sync', 'deferred');
        return reply.code(result.created ? 201 : 200).send(result.record);
      },
    },
    {
      method: 'POST',
      path: '/api/papers/{preprint_id}/upload-parser',
      schema: {
        summary: 'Upload a parser result zip (full.md and images/)',
        tags: ['papers'],
        querystring: Type.Object({
          expected_sha256: hashQuery('sha256 of the zip'),
          pdf_sha256: hashQuery('sha256 of the PDF the contributor parsed'),
          overwrite: Type.Optional(
            QueryBoolean('replace different existing content and delete stored images not in the bundle'),
          ),
          source: Type.Optional(Type.String({ description: 'free audit label (first 64 characters kept)' })),
        }),
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
      handle: async (request, reply, d) => {
        const id = requireUploadId(d.id);
        const query = queryOf(request);
        const expectedSha256 = querySha256(query['expected_sha256'], 'expected_sha256');
        const pdfSha256 = querySha256(query['pdf_sha256'], 'pdf_sha256');
        const overwrite = queryBoolean(query['overwrite'], 'overwrite');
        const sourceRaw = queryString(query['source']);
        const source = sourceRaw === null || sourceRaw === '' ? null : [...sourceRaw].slice(0, 64).join('');
        requireMultipart(request, 'parser_zip');
        const staged = await receiveFilePart(request, PARSER_ZIP_PARTS, PARSER_ZIP_LIMIT, (file) =>
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
        return reply.code(result.created ? 201 : 200).send(result.record);
      },
    },
    {
      method: 'POST',
      path: '/api/papers/{preprint_id}/parser-claim',
      schema: {
        summary: 'Claim a paper for parsing (a lease)',
        tags: ['papers'],
        querystring: Type.Object({
          ttl_seconds: Type.Optional(
            Type.String({
              description: 'lease length in seconds: absent, unparseable or ≤ 0 → 1800; clamped to 60..7200',
            }),
          ),
        }),
        response: {
          201: { ...Claimed, description: 'the lease' },
          404: { ...ErrorBody, description: 'no PDF stored, or markdown already exists' },
          409: AlreadyClaimed,
          500: storeError,
          503: claimStoreDown,
        },
      },
      handle: async (request, reply, d) => {
        const id = requireUploadId(d.id);
        const ttl = normaliseTtl(queryOf(request)['ttl_seconds']);
        const requester = uploader(request) ?? request.principal?.login ?? 'system-pat';
        const claim = await papers.claim(id, requester, ttl);
        return reply.code(201).send({ ...claim, lease_id: claim.claim_id });
      },
    },
    {
      method: 'DELETE',
      path: '/api/papers/{preprint_id}/parser-claim/{claim_id}',
      schema: {
        summary: 'Release a claim',
        tags: ['papers'],
        response: {
          204: Type.Null({ description: 'released, or no active claim' }),
          409: { ...ErrorBody, description: 'claim_id does not match the active claim' },
          503: claimStoreDown,
        },
      },
      handle: async (_request, reply, d) => {
        const id = requireUploadId(d.id);
        await papers.releaseClaim(id, d.claimId!);
        return reply.code(204).send();
      },
    },
  ];

  const aliases = ALIASES.map(([alias, of]): PaperAction => {
    const original = own.find((a) => a.path === of)!;
    return {
      ...original,
      path: alias,
      schema: {
        ...original.schema,
        summary: `${original.schema.summary} (deprecated alias of ${of}, CONTRACT §19)`,
        deprecated: true,
      },
    };
  });

  const dispatched: PaperAction[] = [];
  for (const action of [...own, ...aliases, ...actions]) {
    const guard = guardOf(action);
    const rateLimitClass = action.method === 'GET' ? undefined : ('write' as const);
    if (!action.path.includes('{preprint_id}')) {
      app.route({
        method: action.method,
        url: action.path,
        config: {
          guard,
          ...(rateLimitClass ? { rateLimitClass } : {}),
          ...(action.body ? { openapi: { body: action.body } } : {}),
        },
        schema: action.schema,
        handler: (request, reply) => action.handle(request, reply, { id: '', claimId: null }),
      });
      continue;
    }
    dispatched.push(action);
    app.documentAction({
      method: action.method,
      url: action.path,
      guard,
      ...(rateLimitClass ? { rateLimitClass } : {}),
      schema: { ...action.schema, params: paramsOf(action) },
    });
  }
  const byMethod = new Map(
    (['GET', 'POST', 'DELETE'] as const).map((m) => [m, peelingOrder(dispatched.filter((a) => a.method === m))]),
  );
  const find = (method: string, prefix: string, rest: string) => {
    const candidates = byMethod.get((method === 'HEAD' ? 'GET' : method) as PaperAction['method']);
    return candidates ? dispatchOf(candidates, prefix, rest) : null;
  };

  const dispatches = new WeakMap<FastifyRequest, { dispatch: Dispatch; action: PaperAction }>();
  const dispatchers = [
    { prefix: '/api/papers/', methods: ['GET', 'POST', 'DELETE'] as const },
    { prefix: '/api/v1/papers/', methods: ['POST', 'DELETE'] as const },
  ];
  for (const { prefix, methods } of dispatchers) {
    for (const method of methods) {
      const guard = guardOf({ method });
      const rateLimitClass = method === 'GET' ? undefined : ('write' as const);
      app.route({
        method,
        url: `${prefix}*`,
        config: {
          guard,
          ...(rateLimitClass ? { rateLimitClass } : {}),
          serves: (path: string) => find(method, prefix, restOf(path, prefix)) !== null,
        },
        schema: { hide: true },
        // Unknown actions answer 404 before any authentication (§9.1): this runs ahead of the policy hook.
        onRequest: async (request, reply) => {
          const rest = restOf(requestPath(request), prefix);
          const found = find(request.method, prefix, rest);
          if (!found) return reply.code(404).send({ detail: `no ${request.method} handler for ${prefix}${rest}` });
          dispatches.set(request, found);
        },
        handler: async (request, reply) => {
          const entry = dispatches.get(request);
          if (!entry) throw new HttpError(500, 'papers dispatcher without a dispatch (server wiring fault)');
          return entry.action.handle(request, reply, entry.dispatch);
        },
      });
    }
  }

  app.get(
    '/api/papers/stats',
    {
      config: { guard: scope('papers', 'read') },
      schema: { summary: 'Paper asset statistics (the metadata index)', tags: ['papers'], response: { 200: Stats } },
    },
    async () => papers.stats(),
  );

  const needsParserQuery = {
    guard: scope('papers', 'read'),
    openapi: {
      querystring: Type.Object({
        limit: Type.Optional(Type.Integer({ description: 'default 10, clamped to 1..100' })),
        include_claimed: Type.Optional(QueryBoolean('also list claimed papers, with their lease')),
      }),
    },
  };
  const needsParserSchema = {
    summary: 'Papers waiting for a parser result',
    tags: ['papers'],
    querystring: Type.Object({
      limit: Type.Optional(Type.String()),
      include_claimed: Type.Optional(Type.String()),
    }),
    response: { 200: NeedsParser, 503: claimStoreDown },
  };
  const needsParser = async (
    request: FastifyRequest<{ Querystring: { limit?: string; include_claimed?: string } }>,
  ) => {
    const limit = Math.min(100, Math.max(1, queryInteger(request.query.limit, 'limit', 10)));
    const includeClaimed = queryBoolean(request.query.include_claimed, 'include_claimed');
    const answer = await papers.needsParser(limit, includeClaimed);
    return { ...answer, papers: answer.papers.map((p) => ({ ...p, arxiv_id: p.preprint_id })) };
  };
  app.get('/api/papers/needs-parser', { config: needsParserQuery, schema: needsParserSchema }, needsParser);
  app.get(
    '/api/papers/needs-mineru',
    {
      config: needsParserQuery,
      schema: {
        ...needsParserSchema,
        summary: `${needsParserSchema.summary} (deprecated alias of /api/papers/needs-parser, CONTRACT §19)`,
        deprecated: true,
      },
    },
    needsParser,
  );
};
