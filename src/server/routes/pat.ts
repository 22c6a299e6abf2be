import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { HttpError } from '../../shared/errors.js';
import { MAX_EXPIRY_DAYS } from '../../shared/scopes.js';
import type { AppContext } from '../app.js';
import { validatePatSpec } from '../auth/pat-spec.js';
import type { PatRecord } from '../auth/pats.js';
import { rfc3339 } from '../auth/time.js';
import { RATE_RULES, rateLimit } from './auth-rate-limit.js';
import { SESSION } from './guard.js';
import { ErrorBody } from './schemas.js';

/**
 * The PAT request body. Field rules are checked by the service with the exact messages of CONTRACT §7.3; the
 * schema only refuses unknown fields and documents the shape.
 */
export const PatSpecBody = Type.Object(
  {
    name: Type.Optional(Type.String({ description: 'required, 1..80 characters after trimming' })),
    description: Type.Optional(Type.String({ description: 'optional, at most 200 characters' })),
    expires_in_days: Type.Optional(Type.Unknown({ description: `required integer 1..${MAX_EXPIRY_DAYS}` })),
    scopes: Type.Optional(Type.Array(Type.String(), { description: 'scopes from the vocabulary; `*` is refused' })),
  },
  { additionalProperties: false },
);

const Created = Type.Object({
  id: Type.String(),
  name: Type.String(),
  prefix: Type.String(),
  plaintext: Type.String({ description: 'shown once' }),
  description: Type.String(),
  scopes: Type.Array(Type.String()),
  expires_at: Type.String({ format: 'date-time' }),
  created: Type.String({ format: 'date-time' }),
});

const Listed = Type.Object({
  id: Type.String(),
  name: Type.String(),
  prefix: Type.String(),
  description: Type.String(),
  scopes: Type.Array(Type.String()),
  expires_at: Type.String({ format: 'date-time' }),
  last_used_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  created: Type.String({ format: 'date-time' }),
  expired: Type.Boolean(),
});

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

/** `POST/GET /api/pat`, `DELETE /api/pat/{id}` — browser session only (CONTRACT §7.3). */
export async function patRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }): Promise<void> {
  const { identity } = ctx;
  const userOf = (p: { userId: string | null } | null): string => {
    if (!p?.userId) throw new HttpError(500, 'session without a user (server wiring fault)');
    return p.userId;
  };

  app.post(
    '/api/pat',
    {
      config: { guard: SESSION },
      preValidation: rateLimit(identity.limiter, RATE_RULES.patCreate),
      schema: {
        summary: 'Create a personal access token (plaintext shown once)',
        tags: ['auth'],
        body: PatSpecBody,
        response: { 201: Created, 400: ErrorBody, 429: ErrorBody },
      },
    },
    async (request, reply) => {
      const spec = validatePatSpec(request.body as Record<string, unknown>);
      const pat = identity.pats.mint(userOf(request.principal), spec);
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
      return { tokens: identity.pats.list(userOf(request.principal)).map((p) => listedPat(p, now)) };
    },
  );

  app.delete(
    '/api/pat/:id',
    {
      config: { guard: SESSION },
      preValidation: rateLimit(identity.limiter, RATE_RULES.write),
      schema: {
        summary: 'Revoke one of your PATs',
        tags: ['auth'],
        params: Type.Object({ id: Type.String() }),
        response: { 200: Type.Object({ ok: Type.Literal(true) }), 404: ErrorBody },
      },
    },
    async (request) => {
      const { id } = request.params as { id: string };
      if (!identity.pats.revoke(id, userOf(request.principal))) throw new HttpError(404, 'token not found');
      return { ok: true as const };
    },
  );
}
