import { readFileSync } from 'node:fs';
import { Type } from '@sinclair/typebox';
import { pbToken } from '../auth/pocketbase.js';
import { requestClientKey } from '../http/client.js';
import type { RoutePlugin } from '../http/context.js';
import { selfContainedPageCsp } from '../http/security-headers.js';
import { PUBLIC } from './guard.js';
import { OpenObject, PbError } from './schemas.js';

/** The admin UI (CONTRACT §7.9): one same-origin page without external assets; `assets/` sits three levels up. */
const ADMIN_PAGE = readFileSync(new URL('../../../assets/admin.html', import.meta.url), 'utf8');
const ADMIN_CSP = selfContainedPageCsp(ADMIN_PAGE);

const Unauthorized = { ...PbError, description: 'no superuser token' };

/** The `?page=&perPage=` of the list routes: positive integers (other values fall back to the defaults). */
const PageQuery = {
  page: Type.Optional(Type.String({ description: 'page number, default 1' })),
  perPage: Type.Optional(Type.String({ description: 'items per page, default 30, at most 500' })),
};

const ListPage = <T extends Parameters<typeof Type.Array>[0]>(item: T) =>
  Type.Object({
    page: Type.Integer(),
    perPage: Type.Integer(),
    totalItems: Type.Integer(),
    totalPages: Type.Integer(),
    items: Type.Array(item),
  });

const PatItem = Type.Object({
  collectionId: Type.Literal('pat_tokens'),
  collectionName: Type.Literal('pat_tokens'),
  id: Type.String(),
  user: Type.String(),
  name: Type.String(),
  description: Type.String(),
  prefix: Type.String(),
  scopes: Type.Array(Type.String()),
  expires_at: Type.String(),
  last_used_at: Type.String({ description: 'PocketBase time, empty when never used' }),
  created: Type.String(),
  updated: Type.String(),
});

const SuperuserRecord = Type.Object({
  collectionId: Type.String(),
  collectionName: Type.Literal('_superusers'),
  id: Type.String(),
  email: Type.String(),
  created: Type.String(),
  updated: Type.String(),
});

const RecordParams = Type.Object({ id: Type.String() });
const superuserOnly = [{ Bearer: [] }];

/**
 * Superuser sign-in, the admin data routes and the admin UI (CONTRACT §7.9). The data routes check superuser
 * tokens themselves (PocketBase shapes), so the route table lists them as public.
 */
export const adminRoutes: RoutePlugin = async (app, { ctx }) => {
  const { identity } = ctx;
  const admin = identity.admin;

  /** An action on one record (`:id`) by the request's PocketBase token, answered with 204. */
  const recordAction = (
    method: 'POST' | 'DELETE',
    url: string,
    summary: string,
    act: (token: string | null, id: string) => void,
    done = 'deleted',
  ) =>
    app.route({
      method,
      url,
      config: { guard: PUBLIC },
      schema: {
        summary,
        tags: ['admin'],
        security: superuserOnly,
        params: RecordParams,
        response: { 204: Type.Null({ description: done }), 401: Unauthorized, 404: PbError },
      },
      handler: async (request, reply) => {
        act(pbToken(request.headers.authorization), request.params.id);
        return reply.code(204).send(null);
      },
    });

  app.post(
    '/api/collections/_superusers/auth-with-password',
    {
      config: {
        guard: PUBLIC,
        openapi: { body: OpenObject({ identity: Type.String({ minLength: 1 }), password: Type.String() }) },
      },
      schema: {
        summary: 'Superuser sign-in (PocketBase-compatible)',
        tags: ['admin'],
        body: OpenObject({ identity: Type.Optional(Type.String()), password: Type.Optional(Type.String()) }),
        response: {
          200: Type.Object({ token: Type.String(), record: SuperuserRecord }),
          400: { ...PbError, description: 'Failed to authenticate.' },
          429: { ...PbError, description: 'too many failed sign-ins from this address' },
        },
      },
    },
    async (request) => {
      const body = request.body ?? {};
      return admin.authWithPassword(body.identity, body.password, requestClientKey(request));
    },
  );

  app.get(
    '/api/collections/users/records',
    {
      config: { guard: PUBLIC },
      schema: {
        summary: 'List users (superuser)',
        tags: ['admin'],
        security: superuserOnly,
        querystring: Type.Object(PageQuery),
        response: {
          200: ListPage(Type.Object({ id: Type.String() }, { additionalProperties: true })),
          401: Unauthorized,
        },
      },
    },
    async (request) => admin.listUsers(pbToken(request.headers.authorization), request.query),
  );

  recordAction('DELETE', '/api/collections/users/records/:id', 'Delete a user and its PATs (superuser)', (token, id) =>
    admin.deleteUser(token, id),
  );
  recordAction(
    'POST',
    '/api/admin/users/:id/revoke-sessions',
    "End every session of a user (superuser); the user's PATs are untouched",
    (token, id) => admin.revokeSessions(token, id),
    'sessions ended',
  );

  app.get(
    '/api/collections/pat_tokens/records',
    {
      config: {
        guard: PUBLIC,
        openapi: {
          querystring: Type.Object({
            ...PageQuery,
            filter: Type.Optional(
              Type.String({ pattern: `^\\s*\\(?\\s*user\\s*=\\s*(['"])[A-Za-z0-9_-]+\\1\\s*\\)?\\s*$` }),
            ),
          }),
        },
      },
      schema: {
        summary: "List PATs (superuser: all or filter=user='<id>'; a user session: its own)",
        tags: ['admin'],
        security: superuserOnly,
        querystring: Type.Object({ ...PageQuery, filter: Type.Optional(Type.String()) }),
        response: { 200: ListPage(PatItem), 401: Unauthorized },
      },
    },
    async (request) => admin.listPats(pbToken(request.headers.authorization), request.query),
  );

  recordAction('DELETE', '/api/collections/pat_tokens/records/:id', 'Revoke a PAT (owner or superuser)', (token, id) =>
    admin.deletePat(token, id),
  );

  app.get(
    '/api/admin/settings',
    {
      config: { guard: PUBLIC },
      schema: {
        summary: 'Effective settings, secrets masked (superuser)',
        tags: ['admin'],
        security: superuserOnly,
        response: {
          200: Type.Object({
            settings: Type.Array(Type.Object({ name: Type.String(), value: Type.String(), source: Type.String() })),
          }),
          401: Unauthorized,
        },
      },
    },
    async (request) => {
      admin.requireSuperuser(pbToken(request.headers.authorization));
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
        security: superuserOnly,
        response: {
          200: OpenObject({ code: Type.Literal(200), message: Type.String(), data: OpenObject({}) }),
          401: Unauthorized,
        },
      },
    },
    async (request) => {
      admin.requireSuperuser(pbToken(request.headers.authorization));
      return ctx.health.check();
    },
  );

  app.get(
    '/_/',
    {
      config: { guard: PUBLIC },
      schema: {
        summary: 'The admin UI (HTML page)',
        tags: ['admin'],
        produces: ['text/html'],
        response: { 200: Type.String({ description: 'the page' }) },
      },
    },
    async (_request, reply) =>
      reply
        .type('text/html; charset=utf-8')
        .header('Cache-Control', 'no-store')
        .header('Content-Security-Policy', ADMIN_CSP)
        .send(ADMIN_PAGE),
  );
  app.get(
    '/_',
    {
      config: { guard: PUBLIC },
      schema: {
        summary: 'Redirects to the admin UI',
        tags: ['admin'],
        produces: ['text/html'],
        response: { 302: Type.Null({ description: 'to `/_/`' }) },
      },
    },
    async (_request, reply) => reply.redirect('/_/', 302),
  );
};
