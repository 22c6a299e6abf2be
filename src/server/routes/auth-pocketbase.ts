import { Type } from '@sinclair/typebox';
import { NotFoundError } from '../../shared/domain-errors.js';
import { PB_NOT_FOUND, pbToken } from '../auth/pocketbase.js';
import { userRecord } from '../auth/users.js';
import { publicBase } from '../http/client.js';
import type { RoutePlugin } from '../http/context.js';
import { PUBLIC } from './guard.js';
import { OpenObject, PbError } from './schemas.js';

/** The PocketBase user record (CONTRACT §7.2). */
export const UserRecord = Type.Object({
  collectionId: Type.Literal('_pb_users_auth_'),
  collectionName: Type.Literal('users'),
  id: Type.String(),
  email: Type.String(),
  emailVisibility: Type.Boolean(),
  verified: Type.Boolean(),
  name: Type.String(),
  login: Type.String(),
  avatar: Type.String(),
  provider: Type.String({ description: 'the identity provider the user signed in with (`IDP_NAME`)' }),
  created: Type.String({ description: 'PocketBase time: `2026-05-01 12:00:00.000Z`' }),
  updated: Type.String({ description: 'PocketBase time' }),
});

const Provider = OpenObject({
  name: Type.String(),
  displayName: Type.String(),
  state: Type.String(),
  authURL: Type.String(),
  codeVerifier: Type.String(),
  codeChallenge: Type.String(),
  codeChallengeMethod: Type.Literal('S256'),
});

const AuthMethods = OpenObject({
  password: OpenObject({ enabled: Type.Boolean() }),
  oauth2: OpenObject({ enabled: Type.Boolean(), providers: Type.Array(Provider) }),
  mfa: OpenObject({ enabled: Type.Boolean() }),
  otp: OpenObject({ enabled: Type.Boolean() }),
});

const LoginRequest = OpenObject({
  provider: Type.Optional(Type.String()),
  code: Type.Optional(Type.String()),
  codeVerifier: Type.Optional(Type.String()),
  redirectURL: Type.Optional(Type.String()),
  createData: Type.Optional(Type.Unknown()),
});

const LoginDocument = OpenObject({
  provider: Type.String({ minLength: 1, description: 'the provider name of auth-methods' }),
  code: Type.String({ minLength: 1 }),
  codeVerifier: Type.Optional(Type.String()),
  redirectURL: Type.String({ minLength: 1, description: "this server's `/api/oauth2-redirect`" }),
  createData: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'ignored' })),
});

const Session = OpenObject({ token: Type.String(), record: UserRecord });

const LoginResponse = OpenObject({
  token: Type.String(),
  record: UserRecord,
  meta: OpenObject({ id: Type.String(), username: Type.String(), isNew: Type.Boolean() }),
});

/**
 * The PocketBase-compatible subset (CONTRACT §7.2). These routes are public in the route table and check their
 * own token, answering in PocketBase's error shape; they ignore unknown body properties.
 */
export const pocketbaseRoutes: RoutePlugin = async (app, { ctx }) => {
  const { identity } = ctx;

  app.get(
    '/api/collections/users/auth-methods',
    {
      config: { guard: PUBLIC },
      schema: {
        summary: 'Sign-in methods (PocketBase-compatible)',
        tags: ['pocketbase'],
        response: { 200: AuthMethods },
      },
    },
    async () => identity.oauth.authMethods(),
  );

  app.post(
    '/api/collections/users/auth-with-oauth2',
    {
      config: { guard: PUBLIC, openapi: { body: LoginDocument } },
      schema: {
        summary: 'Finish the OAuth2 sign-in (PocketBase-compatible)',
        tags: ['pocketbase'],
        body: LoginRequest,
        response: {
          200: LoginResponse,
          400: { ...PbError, description: 'Failed to authenticate.' },
          403: { ...PbError, description: 'login not in the allow-list' },
        },
      },
    },
    async (request) =>
      identity.oauth.login(request.body ?? {}, `${publicBase(ctx.config.publicUrl, request)}/api/oauth2-redirect`),
  );

  app.post(
    '/api/collections/users/auth-refresh',
    {
      config: { guard: PUBLIC },
      schema: {
        summary: 'Renew a session token (PocketBase-compatible; needs a user token)',
        tags: ['pocketbase'],
        security: [{ Bearer: [] }],
        response: {
          200: Session,
          401: { ...PbError, description: 'no valid session token' },
          403: { ...PbError, description: 'login no longer in the allow-list' },
        },
      },
    },
    async (request) => identity.oauth.refresh(pbToken(request.headers.authorization)),
  );

  app.post(
    '/api/collections/users/auth-logout',
    {
      config: { guard: PUBLIC },
      schema: {
        summary: "Sign out: ends every session of the token's user (needs a user token)",
        tags: ['pocketbase'],
        security: [{ Bearer: [] }],
        response: {
          204: Type.Null({ description: 'signed out' }),
          401: { ...PbError, description: 'no valid session token' },
        },
      },
    },
    async (request, reply) => {
      await identity.oauth.logout(pbToken(request.headers.authorization));
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/api/collections/users/records/:id',
    {
      config: { guard: PUBLIC },
      schema: {
        summary: 'Read your own user record (any record for a superuser)',
        tags: ['pocketbase'],
        // Optional, as in PocketBase: without a token the answer is the 404 of a record you may not see (§7.2).
        security: [{ Bearer: [] }, {}],
        params: Type.Object({ id: Type.String() }),
        response: { 200: UserRecord, 404: { ...PbError, description: "The requested resource wasn't found." } },
      },
    },
    async (request) => {
      const { id } = request.params;
      const token = pbToken(request.headers.authorization);
      const caller = token ? await identity.sessions.verify(token) : null;
      const superuser = token && !caller ? await identity.superusers.verify(token) : null;
      if (!superuser && caller?.id !== id) throw new NotFoundError(PB_NOT_FOUND);
      const user = await identity.users.get(id);
      if (!user) throw new NotFoundError(PB_NOT_FOUND);
      return userRecord(user);
    },
  );

  app.get(
    '/api/oauth2-redirect',
    {
      config: { guard: PUBLIC },
      schema: {
        summary: 'OAuth2 callback: redirects to the front end with the same query string',
        tags: ['pocketbase'],
        produces: ['text/html'],
        response: { 302: Type.Null({ description: 'to `/auth/callback?<query>`' }) },
      },
    },
    async (request, reply) => {
      const q = request.url.indexOf('?');
      return reply.redirect(`/auth/callback${q >= 0 ? request.url.slice(q) : ''}`, 302);
    },
  );
};
