/**
 * One operation of the papers area (`PaperAction`): its method, its path as a literal in OpenAPI syntax, its
 * documentation, its typed query and its handler. Each action is a module of this directory; the dispatcher
 * (`../papers.ts`) registers them.
 */
import { Type, type StaticDecode, type TObject, type TSchema } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { requireUploadId, VERSIONED_ID_PATTERN, type VersionedPreprintId } from '../../../shared/ids.js';
import type { ActionSchema } from '../../http/openapi.js';
import type { Guard } from '../guard.js';

/** What the dispatcher took from the path for an action's handler. */
export interface Dispatch {
  /** The id part (may contain `/`), percent-decoded once. */
  readonly id: string;
  readonly claimId: string | null;
  /** The image name of `…/images/{name}` (may contain `/`). */
  readonly name?: string;
}

/**
 * An action's documentation; its `querystring` (built by `querySchema` of http/query-schema.ts) is also what
 * validates and types its query.
 */
export type PaperActionSchema = Omit<ActionSchema, 'params' | 'querystring'> & {
  readonly params?: TObject;
  readonly querystring?: TSchema;
};

/**
 * A path with `{preprint_id}` is an action of the dispatcher (`/api/papers/*`, `/api/v1/papers/*`): the id may
 * contain `/`, so the dispatcher peels the literal parts off the path. A path without is a route of its own.
 * The guard follows the method unless given: reads need `papers:read`; writes `papers:write` and count against the
 * write limit. The path's parameters, then the query are decoded (400 with the field's message) before `handle`
 * runs, which receives both typed.
 */
export interface PaperAction<Query = unknown, Target extends Dispatch = Dispatch> {
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly path: string;
  readonly schema: PaperActionSchema;
  readonly guard?: Guard;
  /** A JSON body of a route of its own, for the document only: its handler reads and checks it (none is parsed here). */
  readonly body?: TSchema;
  /** For an action whose path is `{preprint_id}` alone: which ids it takes (others stay unknown paths, 404). */
  readonly takes?: (id: string) => boolean;
  /** The path's parameters decoded further (its 400 answers before the query's); the handler's `target`. */
  readonly target?: (dispatch: Dispatch) => Target;
  handle(request: FastifyRequest, reply: FastifyReply, target: Target, query: Query): Promise<unknown>;
}

/** An action with a query: its handler's `query` is what its `schema.querystring` decodes to. */
export const definePaperAction = <Q extends TSchema, Target extends Dispatch = Dispatch>(
  action: Omit<PaperAction<StaticDecode<Q>, Target>, 'schema'> & {
    readonly schema: Omit<PaperActionSchema, 'querystring'> & { readonly querystring: Q };
  },
): PaperAction<StaticDecode<Q>, Target> => action;

/** The target of uploads and claims: the path's id as a versioned id. */
export type UploadTarget = Dispatch & { readonly versionedId: VersionedPreprintId };

/** Decodes the id of an upload or claim: `400 invalid preprint_id: "<raw>" (…)` before any other check. */
export const uploadTarget = (dispatch: Dispatch): UploadTarget => ({
  ...dispatch,
  versionedId: requireUploadId(dispatch.id),
});

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
