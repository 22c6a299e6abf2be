import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../app.js';
import { ADMIN_HTML } from '../auth/admin-ui.js';
import { pbToken } from '../auth/pocketbase.js';
import { PUBLIC } from './guard.js';
import { OpenObject } from './schemas.js';

const PbError = Type.Object({ status: Type.Integer(), message: Type.String(), data: Type.Object({}) });
const PageQuery = Type.Object({ page: Type.Optional(Type.String()), perPage: Type.Optional(Type.String()) });
const ListPage = OpenObject({
  page: Type.Integer(),
  perPage: Type.Integer(),
  totalItems: Type.Integer(),
  totalPages: Type.Integer(),
  items: Type.Array(OpenObject({})),
});

/**
 * Superuser sign-in, the admin data routes and the admin UI (CONTRACT §7.9). The data routes check superuser
 * tokens themselves (PocketBase shapes), so the route table lists them as public.
 */
export async function adminRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }): Promise<void> {
  const { identity } = ctx;
  const admin = identity.admin;
  const tokenOf = (authorization: string | undefined) => pbToken(authorization);

  app.post(
    '/api/collections/_superusers/auth-with-password',
    {
      config: { guard: PUBLIC },
      schema: {
        summary: 'Superuser sign-in (PocketBase-compatible)',
        tags: ['admin'],
        body: OpenObject({ identity: Type.Optional(Type.String()), password: Type.Optional(Type.String()) }),
        response: { 200: OpenObject({ token: Type.String(), record: OpenObject({}) }), 400: PbError },
      },
    },
    async (request) => {
      const body = (request.body ?? {}) as { identity?: unknown; password?: unknown };
      return admin.authWithPassword(body.identity, body.password, request.ip);
    },
  );

  app.get(
    '/api/collections/users/records',
    {
      config: { guard: PUBLIC },
      schema: {
        summary: 'List users (superuser)',
        tags: ['admin'],
        querystring: PageQuery,
        response: { 200: ListPage, 401: PbError },
      },
    },
    async (request) => admin.listUsers(tokenOf(request.headers.authorization), request.query as object),
  );

  app.delete(
    '/api/collections/users/records/:id',
    {
      config: { guard: PUBLIC },
      schema: {
        summary: 'Delete a user and its PATs (superuser)',
        tags: ['admin'],
        params: Type.Object({ id: Type.String() }),
        response: { 204: Type.Null({ description: 'deleted' }), 401: PbError, 404: PbError },
      },
    },
    async (request, reply) => {
      admin.deleteUser(tokenOf(request.headers.authorization), (request.params as { id: string }).id);
      return reply.code(204).send();
    },
  );

  app.get(
    '/api/collections/pat_tokens/records',
    {
      config: { guard: PUBLIC },
      schema: {
        summary: "List PATs (superuser: all or filter=user='<id>'; a user session: its own)",
        tags: ['admin'],
        querystring: Type.Object({
          page: Type.Optional(Type.String()),
          perPage: Type.Optional(Type.String()),
          filter: Type.Optional(Type.String()),
        }),
        response: { 200: ListPage, 400: PbError, 401: PbError },
      },
    },
    async (request) => admin.listPats(tokenOf(request.headers.authorization), request.query as object),
  );

  app.delete(
    '/api/collections/pat_tokens/records/:id',
    {
      config: { guard: PUBLIC },
      schema: {
        summary: 'Revoke a PAT (owner or superuser)',
        tags: ['admin'],
        params: Type.Object({ id: Type.String() }),
        response: { 204: Type.Null({ description: 'deleted' }), 401: PbError, 404: PbError },
      },
    },
    async (request, reply) => {
      admin.deletePat(tokenOf(request.headers.authorization), (request.params as { id: string }).id);
      return reply.code(204).send();
    },
  );

  app.get(
    '/api/admin/settings',
    {
      config: { guard: PUBLIC },
      schema: {
        summary: 'Effective settings, secrets masked (superuser)',
        tags: ['admin'],
        response: {
          200: Type.Object({
            settings: Type.Array(Type.Object({ name: Type.String(), value: Type.String(), source: Type.String() })),
          }),
          401: PbError,
        },
      },
    },
    async (request) => {
      admin.requireSuperuser(tokenOf(request.headers.authorization));
      return { settings: identity.settings().map((s) => ({ name: s.name, value: s.value, source: s.source })) };
    },
  );

  app.get(
    '/api/admin/health',
    {
      config: { guard: PUBLIC },
      schema: {
        summary: 'The unredacted health body (superuser)',
        tags: ['admin'],
        response: { 200: OpenObject({}), 401: PbError },
      },
    },
    async (request) => {
      admin.requireSuperuser(tokenOf(request.headers.authorization));
      return ctx.health.check();
    },
  );

  app.get(
    '/_/',
    {
      config: { guard: PUBLIC },
      schema: { summary: 'The admin UI (HTML page)', tags: ['admin'], produces: ['text/html'] },
    },
    async (_request, reply) =>
      reply.type('text/html; charset=utf-8').header('Cache-Control', 'no-store').send(ADMIN_HTML),
  );
  app.get(
    '/_',
    { config: { guard: PUBLIC }, schema: { summary: 'Redirects to the admin UI', tags: ['admin'] } },
    async (_request, reply) => reply.redirect('/_/', 302),
  );
}
