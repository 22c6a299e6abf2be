/**
 * One operation of the papers area (`PaperAction`): its method, its path as a literal in OpenAPI syntax, its
 * documentation, its typed path parameters and query, and its handler. Each action is a module of this directory;
 * the dispatcher (`../papers.ts`) registers them.
 */
import { Type, type StaticDecode, type TObject, type TSchema } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { requireUploadId, VERSIONED_ID_PATTERN } from '../../../shared/ids.js';
import type { ActionSchema } from '../../http/openapi.js';
import { paramsSchema, type QueryField } from '../../http/query-schema.js';
import type { Guard } from '../guard.js';

/**
 * An action's documentation; its `querystring` (built by `querySchema` of http/query-schema.ts) is also what
 * validates and types its query.
 */
export type PaperActionSchema = Omit<ActionSchema, 'params' | 'querystring'> & { readonly querystring?: TSchema };

/**
 * A path with `{preprint_id}` is an action of the dispatcher (`/api/papers/*`, `/api/v1/papers/*`): the id may
 * contain `/`, so the dispatcher peels the literal parts off the path. A path without is a route of its own.
 * The guard follows the method unless given: reads need `papers:read`; writes `papers:write` and count against the
 * write limit. The path's parameters, then the query are decoded (400 with the field's message) before `handle`
 * runs, which receives both typed.
 */
export interface PaperAction<Params = unknown, Query = unknown> {
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly path: string;
  /**
   * The path's parameters (built by `paramsSchema`): one per `{name}` of `path` (the dispatcher refuses to register
   * a mismatch), none for a path without; they validate, type and document them.
   */
  readonly params?: TSchema;
  readonly schema: PaperActionSchema;
  readonly guard?: Guard;
  /** A JSON body of a route of its own, for the document only: its handler reads and checks it (none is parsed here). */
  readonly body?: TSchema;
  /** For an action whose path is `{preprint_id}` alone: which ids it takes (others stay unknown paths, 404). */
  readonly takes?: (id: string) => boolean;
  handle(request: FastifyRequest, reply: FastifyReply, params: Params, query: Query): Promise<unknown>;
}

/** The schema of what an action without path parameters (or without a query) receives: nothing. */
type None = TObject<Record<never, never>>;

/**
 * An action whose handler's `params` and `query` are what its `params` and `schema.querystring` decode to (`{}` for
 * one it does not declare).
 */
export const definePaperAction = <P extends TSchema = None, Q extends TSchema = None>(
  action: Omit<PaperAction<StaticDecode<P>, StaticDecode<Q>>, 'params' | 'schema'> & {
    readonly params?: P;
    readonly schema: Omit<PaperActionSchema, 'querystring'> & { readonly querystring?: Q };
  },
): PaperAction<StaticDecode<P>, StaticDecode<Q>> => action;

/** A path parameter: the non-empty text the dispatcher matched, documented by `schema`, decoded by `decode`. */
const pathField = <T>(schema: TSchema, decode: (raw: string) => T): QueryField<T> => ({
  schema,
  decode: (raw) => decode(raw as string),
});

/**
 * `{preprint_id}` of uploads and claims: a versioned id, else `400 invalid preprint_id: "<raw>" (…)` before any
 * other check.
 */
export const versionedIdParam = pathField(
  Type.String({
    pattern: VERSIONED_ID_PATTERN,
    description: 'canonical id or bare old-style number, with version vN (a `/` may be sent raw or as %2F)',
  }),
  requireUploadId,
);

/**
 * `{preprint_id}` of reads (CONTRACT §11.4, §18): any id form or a DOI, resolved by the handler (upstream with paper
 * access on, its errors and `X-Svc-*` headers on the answer).
 */
export const idOrDoiParam = pathField(
  Type.String({
    minLength: 1,
    description: 'canonical id, versionless id, bare old-style number or DOI (a `/` may be sent raw or as %2F)',
  }),
  (raw) => raw,
);

/** `{claim_id}` of a claim release: one path segment. */
export const claimIdParam = pathField(Type.String({ pattern: '^[^/]+$' }), (raw) => raw);

/** `{name}` of a stored image: any non-empty text (it may contain `/`). */
export const imageNameParam = pathField(Type.String({ minLength: 1 }), (raw) => raw);

/** The path of a per-paper read: `{preprint_id}`, any id form or a DOI. */
export const ReadParams = paramsSchema({ preprint_id: idOrDoiParam });

/** The path of an upload or a claim: `{preprint_id}`, a versioned id. */
export const UploadParams = paramsSchema({ preprint_id: versionedIdParam });

/**
 * The answer of an upload: 201 when it wrote, 200 when everything was unchanged; `X-Catalog-Sync: deferred` when
 * the index or graph could not be updated now.
 */
export function sendUploaded(
  reply: FastifyReply,
  result: { readonly created: boolean; readonly catalogDeferred: boolean; readonly record: unknown },
): FastifyReply {
  if (result.catalogDeferred) reply.header('X-Catalog-Sync', 'deferred');
  return reply.code(result.created ? 201 : 200).send(result.record);
}
