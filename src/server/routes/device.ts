import { Type } from '@sinclair/typebox';
import { DeviceApproved, DeviceCode, DeviceDenied, DeviceRequestView, DeviceToken } from '../../shared/api/device.js';
import { USER_CODE_ALPHABET } from '../auth/device.js';
import { validatePatSpec } from '../auth/pat-spec.js';
import { publicBase } from '../http/client.js';
import type { RoutePlugin } from '../http/context.js';
import { PUBLIC, SESSION } from './guard.js';
import { PatSpecBody, PatSpecDocument, sessionUser } from './pat.js';
import { ErrorBody } from './schemas.js';

const DEVICE_CODE_BODY_LIMIT = 16 * 1024;
const GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:device_code';

const PollError = Type.Object(
  {
    error: Type.String({
      enum: ['authorization_pending', 'slow_down', 'access_denied', 'expired_token', 'invalid_grant'],
    }),
  },
  { description: 'not (yet) a token: `{error}` (RFC 8628 §3.5)' },
);

/**
 * The token request (RFC 8628 §3.4): `device_code` and `grant_type`, plus the client authentication fields every
 * OAuth client may send (`client_id`, `client_secret`), which are accepted and ignored (the flow has no clients).
 */
const TokenRequest = Type.Object(
  {
    device_code: Type.Optional(Type.Unknown()),
    grant_type: Type.Optional(Type.String()),
    client_id: Type.Optional(Type.String()),
    client_secret: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

const TokenRequestDocument = Type.Object(
  {
    device_code: Type.String({ description: 'the device_code of the start response' }),
    grant_type: Type.Optional(Type.String({ enum: [GRANT_TYPE] })),
    client_id: Type.Optional(Type.String({ description: 'accepted and ignored' })),
    client_secret: Type.Optional(Type.String({ description: 'accepted and ignored' })),
  },
  { additionalProperties: false },
);

const alphabet = `[${USER_CODE_ALPHABET}${USER_CODE_ALPHABET.toLowerCase()}]`;
/** What the service accepts as a user code: 8 alphabet characters (any case), optionally split by one `-`. */
const UserCode = Type.String({ pattern: `^${alphabet}{4}-?${alphabet}{4}$`, description: 'XXXX-XXXX' });

const UserCodeBody = Type.Object({ user_code: Type.Optional(Type.String()) }, { additionalProperties: false });

const ApproveBody = Type.Object(
  {
    user_code: Type.Optional(Type.String()),
    name: Type.Optional(Type.String()),
    scopes: Type.Optional(Type.Array(Type.String())),
    expires_in_days: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
);

const ApproveDocument = Type.Object(
  {
    user_code: UserCode,
    name: Type.Optional(PatSpecDocument.properties.name),
    scopes: Type.Optional(PatSpecDocument.properties.scopes),
    expires_in_days: Type.Optional(PatSpecDocument.properties.expires_in_days),
  },
  { additionalProperties: false },
);

const lifecycleErrors = {
  404: ErrorBody,
  409: { ...ErrorBody, description: 'device code is not pending' },
  410: { ...ErrorBody, description: 'device code expired' },
};

/** RFC 8628 device authorization routes (CONTRACT §7.8). */
export const deviceRoutes: RoutePlugin = async (app, { ctx }) => {
  const { identity } = ctx;

  // RFC 8628 clients poll with a form body (this plugin's routes only); it never fails: every outcome is the poll's.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(String(body))));
  });

  app.post(
    '/api/oauth/device/code',
    {
      config: { guard: PUBLIC, rateLimitClass: 'deviceCode', openapi: { body: PatSpecDocument } },
      bodyLimit: DEVICE_CODE_BODY_LIMIT,
      schema: {
        summary: 'Start a device authorization (the PAT spec to mint)',
        tags: ['device'],
        body: PatSpecBody,
        response: { 200: DeviceCode },
      },
    },
    async (request) =>
      identity.devices.start(validatePatSpec(request.body ?? {}), publicBase(ctx.config.publicUrl, request)),
  );

  app.post(
    '/api/oauth/device/token',
    {
      config: { guard: PUBLIC, openapi: { body: TokenRequestDocument } },
      schema: {
        summary: 'Poll for the minted PAT (returned exactly once)',
        tags: ['device'],
        consumes: ['application/json', 'application/x-www-form-urlencoded'],
        body: TokenRequest,
        response: { 200: DeviceToken, 400: Type.Union([PollError, ErrorBody]) },
      },
    },
    async (request, reply) => {
      const result = await identity.devices.poll(request.body?.device_code);
      if (!result.ok) return reply.code(400).send({ error: result.error });
      return result.token;
    },
  );

  app.get(
    '/api/oauth/device/code',
    {
      config: {
        guard: SESSION,
        openapi: { querystring: Type.Object({ user_code: UserCode }) },
      },
      schema: {
        summary: 'Look up a device request by user code',
        tags: ['device'],
        querystring: Type.Object({ user_code: Type.Optional(Type.String()) }),
        response: { 200: DeviceRequestView, 404: ErrorBody, 429: ErrorBody },
      },
    },
    async (request) => identity.devices.lookup(request.query.user_code, sessionUser(request.principal)),
  );

  app.post(
    '/api/oauth/device/approve',
    {
      config: { guard: SESSION, rateLimitClass: 'write', openapi: { body: ApproveDocument } },
      schema: {
        summary: 'Approve a device request, optionally overriding name, scopes and expiry',
        tags: ['device'],
        body: ApproveBody,
        response: { 200: DeviceApproved, ...lifecycleErrors },
      },
    },
    async (request) => {
      const { user_code, ...overrides } = request.body ?? {};
      return identity.devices.approve(user_code, sessionUser(request.principal), overrides);
    },
  );

  app.post(
    '/api/oauth/device/deny',
    {
      config: {
        guard: SESSION,
        rateLimitClass: 'write',
        openapi: { body: Type.Object({ user_code: UserCode }, { additionalProperties: false }) },
      },
      schema: {
        summary: 'Deny a device request',
        tags: ['device'],
        body: UserCodeBody,
        response: { 200: DeviceDenied, ...lifecycleErrors },
      },
    },
    async (request) => identity.devices.deny(request.body?.user_code, sessionUser(request.principal)),
  );
};
