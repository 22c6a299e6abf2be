import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpError } from '../../shared/errors.js';
import type { AppContext } from '../app.js';
import { validatePatSpec } from '../auth/pat-spec.js';
import { ipKey, RATE_RULES, rateLimit } from './auth-rate-limit.js';
import { PUBLIC, SESSION } from './guard.js';
import { PatSpecBody } from './pat.js';
import { ErrorBody, OpenObject } from './schemas.js';

const DEVICE_CODE_BODY_LIMIT = 16 * 1024;

const PollError = Type.Object({
  error: Type.String({
    enum: ['authorization_pending', 'slow_down', 'access_denied', 'expired_token', 'invalid_grant'],
  }),
});

const DeviceCodeResponse = Type.Object({
  device_code: Type.String(),
  user_code: Type.String(),
  verification_uri: Type.String(),
  verification_uri_complete: Type.String(),
  expires_in: Type.Integer(),
  interval: Type.Integer(),
});

const TokenResponse = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal('Bearer'),
  expires_in: Type.Integer(),
  pat_id: Type.String(),
  name: Type.String(),
  prefix: Type.String(),
  plaintext: Type.String(),
  scopes: Type.Array(Type.String()),
  expires_at: Type.String({ format: 'date-time' }),
});

const firstHeader = (v: string | string[] | undefined): string | undefined =>
  (Array.isArray(v) ? v[0] : v)?.split(',')[0]?.trim() || undefined;

/** `SVC_PUBLIC_URL`, else the origin derived from `X-Forwarded-Proto`/`X-Forwarded-Host`/`Host`. */
export function publicBase(ctx: AppContext, request: FastifyRequest): string {
  if (ctx.config.publicUrl) return ctx.config.publicUrl;
  const proto = firstHeader(request.headers['x-forwarded-proto']) ?? request.protocol;
  const host = firstHeader(request.headers['x-forwarded-host']) ?? request.headers.host ?? 'localhost';
  return `${proto}://${host}`;
}

/** RFC 8628 device authorization routes (CONTRACT §7.8). */
export async function deviceRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }): Promise<void> {
  const { identity } = ctx;
  const userOf = (request: FastifyRequest): string => {
    const id = request.principal?.userId;
    if (!id) throw new HttpError(500, 'session without a user (server wiring fault)');
    return id;
  };

  // RFC 8628 clients poll with a form body.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  app.post(
    '/api/oauth/device/code',
    {
      config: { guard: PUBLIC },
      bodyLimit: DEVICE_CODE_BODY_LIMIT,
      preValidation: rateLimit(identity.limiter, RATE_RULES.deviceCode, ipKey),
      schema: {
        summary: 'Start a device authorization (the PAT spec to mint)',
        tags: ['device'],
        body: PatSpecBody,
        response: { 200: DeviceCodeResponse, 400: ErrorBody, 429: ErrorBody },
      },
    },
    async (request) => {
      const spec = validatePatSpec((request.body ?? {}) as Record<string, unknown>);
      return identity.devices.start(spec, publicBase(ctx, request));
    },
  );

  app.post(
    '/api/oauth/device/token',
    {
      config: { guard: PUBLIC },
      schema: {
        summary: 'Poll for the minted PAT (returned exactly once)',
        tags: ['device'],
        consumes: ['application/json', 'application/x-www-form-urlencoded'],
        body: Type.Optional(
          Type.Object(
            {
              device_code: Type.Optional(Type.Unknown({ description: 'the device_code of the start response' })),
              grant_type: Type.Optional(Type.String({ description: 'urn:ietf:params:oauth:grant-type:device_code' })),
            },
            { additionalProperties: false },
          ),
        ),
        response: { 200: TokenResponse, 400: PollError },
      },
    },
    async (request, reply) => {
      const body = (request.body ?? {}) as { device_code?: unknown };
      const result = identity.devices.poll(body.device_code);
      if (!result.ok) return reply.code(400).send({ error: result.error });
      return result.body;
    },
  );

  app.get(
    '/api/oauth/device/code',
    {
      config: { guard: SESSION },
      schema: {
        summary: 'Look up a device request by user code',
        tags: ['device'],
        querystring: Type.Object({ user_code: Type.Optional(Type.String()) }),
        response: {
          200: OpenObject({ user_code: Type.String(), status: Type.String() }),
          400: ErrorBody,
          404: ErrorBody,
          429: ErrorBody,
        },
      },
    },
    async (request) => {
      const { user_code } = request.query as { user_code?: string };
      return identity.devices.lookup(user_code, userOf(request));
    },
  );

  app.post(
    '/api/oauth/device/approve',
    {
      config: { guard: SESSION },
      preValidation: rateLimit(identity.limiter, RATE_RULES.write),
      schema: {
        summary: 'Approve a device request, optionally overriding name, scopes and expiry',
        tags: ['device'],
        body: Type.Object(
          {
            user_code: Type.Optional(Type.String()),
            name: Type.Optional(Type.String()),
            scopes: Type.Optional(Type.Array(Type.String())),
            expires_in_days: Type.Optional(Type.Unknown({ description: 'integer 1..365' })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: OpenObject({ ok: Type.Literal(true), status: Type.Literal('approved') }),
          400: ErrorBody,
          404: ErrorBody,
          409: ErrorBody,
          410: ErrorBody,
          429: ErrorBody,
        },
      },
    },
    async (request) => {
      const body = (request.body ?? {}) as {
        user_code?: unknown;
        name?: unknown;
        scopes?: unknown;
        expires_in_days?: unknown;
      };
      return identity.devices.approve(body.user_code, userOf(request), {
        name: body.name,
        scopes: body.scopes,
        expires_in_days: body.expires_in_days,
      });
    },
  );

  app.post(
    '/api/oauth/device/deny',
    {
      config: { guard: SESSION },
      preValidation: rateLimit(identity.limiter, RATE_RULES.write),
      schema: {
        summary: 'Deny a device request',
        tags: ['device'],
        body: Type.Object({ user_code: Type.Optional(Type.String()) }, { additionalProperties: false }),
        response: {
          200: OpenObject({ ok: Type.Literal(true), status: Type.Literal('denied') }),
          400: ErrorBody,
          404: ErrorBody,
          409: ErrorBody,
          410: ErrorBody,
          429: ErrorBody,
        },
      },
    },
    async (request) => {
      const body = (request.body ?? {}) as { user_code?: unknown };
      return identity.devices.deny(body.user_code, userOf(request));
    },
  );
}
