import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../app.js';
import { PB_NOT_FOUND, pbError, pbToken } from '../auth/pocketbase.js';
import { userRecord } from '../auth/users.js';
import { publicBase } from './device.js';
import { PUBLIC } from './guard.js';
import { OpenObject } from './schemas.js';

const PbError = Type.Object({ status: Type.Integer(), message: Type.String(), data: Type.Object({}) });
const UserRecord = OpenObject({ collectionId: Type.String(), collectionName: Type.String(), id: Type.String() });

/**
 * The PocketBase-compatible subset (CONTRACT §7.2). These routes are public in the route table and check their
 * own token, answering in PocketBase's error shape; they ignore unknown body properties.
 */
export async function pocketbaseRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }): Promise<void> {
  const { identity } = ctx;

  app.get(
    '/api/collections/users/auth-methods',
    {
      config: { guard: PUBLIC },
      schema: {
        summary: 'Sign-in methods (PocketBase-compatible)',
        tags: ['pocketbase'],
        response: { 200: OpenObject({}) },
      },
    },
    async () => identity.oauth.authMethods(),
  );

  app.post(
    '/api/collections/users/auth-with-oauth2',
    {
      config: { guard: PUBLIC },
      schema: {
        summary: 'Finish the OAuth2 sign-in (PocketBase-compatible)',
        tags: ['pocketbase'],
        body: OpenObject({
          provider: Type.Optional(Type.String()),
          code: Type.Optional(Type.String()),
          codeVerifier: Type.Optional(Type.String()),
          redirectURL: Type.Optional(Type.String()),
          createData: Type.Optional(Type.Unknown()),
        }),
        response: { 200: OpenObject({ token: Type.String(), record: UserRecord }), 400: PbError, 403: PbError },
      },
    },
    async (request) =>
      identity.oauth.login(
        (request.body ?? {}) as Record<string, unknown>,
        `${publicBase(ctx, request)}/api/oauth2-redirect`,
      ),
  );

  app.post(
    '/api/collections/users/auth-refresh',
    {
      config: { guard: PUBLIC },
      schema: {
        summary: 'Renew a session token (PocketBase-compatible; needs a user token)',
        tags: ['pocketbase'],
        response: { 200: OpenObject({ token: Type.String(), record: UserRecord }), 401: PbError, 403: PbError },
      },
    },
    async (request) => identity.oauth.refresh(pbToken(request.headers.authorization)),
  );

  app.get(
    '/api/collections/users/records/:id',
    {
      config: { guard: PUBLIC },
      schema: {
        summary: 'Read your own user record (any record for a superuser)',
        tags: ['pocketbase'],
        params: Type.Object({ id: Type.String() }),
        response: { 200: UserRecord, 404: PbError },
      },
    },
    async (request) => {
      const { id } = request.params as { id: string };
      const token = pbToken(request.headers.authorization);
      const caller = token ? identity.sessions.verify(token) : null;
      const superuser = token && !caller ? identity.superusers.verify(token) : null;
      if (!superuser && caller?.id !== id) throw pbError(404, PB_NOT_FOUND);
      const user = identity.users.get(id);
      if (!user) throw pbError(404, PB_NOT_FOUND);
      return userRecord(user);
    },
  );

  app.get(
    '/api/oauth2-redirect',
    {
      config: { guard: PUBLIC },
      schema: { summary: 'OAuth2 callback: redirects to the front end', tags: ['pocketbase'] },
    },
    async (request, reply) => {
      const q = request.url.indexOf('?');
      return reply.redirect(`/auth/callback${q >= 0 ? request.url.slice(q) : ''}`, 302);
    },
  );
}
