import { Type } from '@sinclair/typebox';
import { ScopeName } from '../../shared/api/device.js';
import { Created, Listed } from '../../shared/api/tokens.js';
import { NotFoundError } from '../../shared/domain-errors.js';
import { MAX_EXPIRY_DAYS } from '../../shared/scopes.js';
import { DESCRIPTION_MAX, NAME_MAX, validatePatSpec } from '../auth/pat-spec.js';
import type { PatRecord } from '../auth/pats.js';
import { rfc3339 } from '../auth/time.js';
import type { RoutePlugin } from '../http/context.js';
import { HttpError } from '../http/http-error.js';
import { SESSION } from './guard.js';
import { ErrorBody } from './schemas.js';

/**
 * The PAT request body as validated: field rules are checked by the service with the exact messages of
 * CONTRACT §7.3, so the schema only refuses unknown fields and wrong JSON types.
 */
export const PatSpecBody = Type.Object(
  {
    name: Type.Optional(Type.String()),
    description: Type.Optional(Type.String()),
    expires_in_days: Type.Optional(Type.Unknown()),
    scopes: Type.Optional(Type.Array(Type.String())),
  },
  { additionalProperties: false },
);

/** The PAT request body as the document states it: everything the service enforces. */
export const PatSpecDocument = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: NAME_MAX,
      pattern: '\\S',
      description: `required; 1..${NAME_MAX} characters after trimming`,
    }),
    description: Type.Optional(Type.String({ maxLength: DESCRIPTION_MAX, description: 'optional' })),
    expires_in_days: Type.Integer({ minimum: 1, maximum: MAX_EXPIRY_DAYS, description: 'lifetime in days' }),
    scopes: Type.Optional(
      Type.Array(ScopeName, { description: 'scopes from the vocabulary (`*` is refused); duplicates are dropped' }),
    ),
  },
  { additionalProperties: false },
);

export const listedPat = (p: PatRecord, now: number) => ({
  id: p.id,
  name: p.name,
  prefix: p.prefix,
  description: p.description,
  scopes: [...p.scopes],
  expires_at: rfc3339(p.expiresAt),
  last_used_at: p.lastUsedAt === null ? null : rfc3339(p.lastUsedAt),
  created: rfc3339(p.created),
  expired: now >= p.expiresAt,
});

/** The user of a session-only route's principal (the guard guarantees one). */
export function sessionUser(principal: { userId: string | null } | null): string {
  if (!principal?.userId) throw new HttpError(500, 'session without a user (server wiring fault)');
  return principal.userId;
}

/** `POST/GET /api/pat`, `DELETE /api/pat/{id}` — browser session only (CONTRACT §7.3). */
export const patRoutes: RoutePlugin = async (app, { ctx }) => {
  const { identity } = ctx;

  app.post(
    '/api/pat',
    {
      config: { guard: SESSION, rateLimitClass: 'patCreate', openapi: { body: PatSpecDocument } },
      schema: {
        summary: 'Create a personal access token (plaintext shown once)',
        tags: ['auth'],
        body: PatSpecBody,
        response: { 201: Created },
      },
    },
    async (request, reply) => {
      const spec = validatePatSpec(request.body);
      const pat = await identity.pats.mint(sessionUser(request.principal), spec);
      return reply.code(201).send({
        id: pat.id,
        name: pat.name,
        prefix: pat.prefix,
        plaintext: pat.plaintext,
        description: pat.description,
        scopes: [...pat.scopes],
        expires_at: rfc3339(pat.expiresAt),
        created: rfc3339(pat.created),
      });
    },
  );

  app.get(
    '/api/pat',
    {
      config: { guard: SESSION },
      schema: {
        summary: "List the caller's PATs (no plaintext), newest first",
        tags: ['auth'],
        response: { 200: Type.Object({ tokens: Type.Array(Listed) }) },
      },
    },
    async (request) => {
      const now = identity.now();
      return { tokens: (await identity.pats.list(sessionUser(request.principal))).map((p) => listedPat(p, now)) };
    },
  );

  app.delete(
    '/api/pat/:id',
    {
      config: { guard: SESSION, rateLimitClass: 'write' },
      schema: {
        summary: 'Revoke one of your PATs',
        tags: ['auth'],
        params: Type.Object({ id: Type.String() }),
        response: { 200: Type.Object({ ok: Type.Literal(true) }), 404: ErrorBody },
      },
    },
    async (request) => {
      if (!(await identity.pats.revoke(request.params.id, sessionUser(request.principal)))) {
        throw new NotFoundError('token not found');
      }
      return { ok: true as const };
    },
  );
};
