import { readFileSync } from 'node:fs';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { RecordCaller, SuperuserPrincipal } from '../auth/principal.js';
import { requestClientKey } from '../http/client.js';
import type { RoutePlugin } from '../http/context.js';
import { ADMIN_CSP } from '../http/security-headers.js';
import { PUBLIC, recordCaller, SUPERUSER, SUPERUSER_OR_SESSION, verifiedSuperuser, type Guard } from './guard.js';
import { OpenObject, PbError } from './schemas.js';

/**
 * The admin UI (CONTRACT §7.9): one same-origin page, its script and its style sheet, no external assets;
 * `assets/` sits three levels up. The script is a file of its own so the page's policy is `script-src 'self'`.
 */
const asset = (name: string) => readFileSync(new URL(`../../../assets/${name}`, import.meta.url), 'utf8');
const ADMIN_PAGE = asset('admin.html');
const ADMIN_FILES = [
  { url: '/_/admin.js', type: 'text/javascript; charset=utf-8', produces: 'text/javascript', body: asset('admin.js') },
  { url: '/_/admin.css', type: 'text/css; charset=utf-8', produces: 'text/css', body: asset('admin.css') },
] as const;

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

/**
 * Superuser sign-in, the admin data routes and the admin UI (CONTRACT §7.9). The data routes declare their guard
 * in the route table (`SUPERUSER`, or `SUPERUSER_OR_SESSION` for a user's own PATs); the guard answers the
 * contract's PocketBase-shaped 401 and hands the handler the verified caller.
 */
export const adminRoutes: RoutePlugin = async (app, { ctx }) => {
  const { identity } = ctx;
  const admin = identity.admin;

  /** An action on one record (`:id`) by the verified caller of its guard, answered with 204. */
  const recordAction = <C>(
    method: 'POST' | 'DELETE',
    url: string,
    summary: string,
    guard: { guard: Guard; caller: (request: FastifyRequest) => C },
    act: (caller: C, id: string) => Promise<void>,
    done = 'deleted',
  ) =>
    app.route({
      method,
      url,
      config: { guard: guard.guard },
      schema: {
        summary,
        tags: ['admin'],
        params: RecordParams,
        response: { 204: Type.Null({ description: done }), 404: PbError },
      },
      handler: async (request, reply) => {
        await act(guard.caller(request), request.params.id);
        return reply.code(204).send(null);
      },
    });
  const bySuperuser = { guard: SUPERUSER, caller: verifiedSuperuser };
  const byOwnerOrSuperuser = { guard: SUPERUSER_OR_SESSION, caller: recordCaller };

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
      config: { guard: SUPERUSER },
      schema: {
        summary: 'List users (superuser)',
        tags: ['admin'],
        querystring: Type.Object(PageQuery),
        response: { 200: ListPage(Type.Object({ id: Type.String() }, { additionalProperties: true })) },
      },
    },
    async (request) => admin.listUsers(verifiedSuperuser(request), request.query),
  );

  recordAction(
    'DELETE',
    '/api/collections/users/records/:id',
    'Delete a user and its PATs (superuser)',
    bySuperuser,
    (su: SuperuserPrincipal, id) => admin.deleteUser(su, id),
  );
  recordAction(
    'POST',
    '/api/admin/users/:id/revoke-sessions',
    "End every session of a user (superuser); the user's PATs are untouched",
    bySuperuser,
    (su: SuperuserPrincipal, id) => admin.revokeSessions(su, id),
    'sessions ended',
  );

  app.get(
    '/api/collections/pat_tokens/records',
    {
      config: {
        guard: SUPERUSER_OR_SESSION,
        openapi: {
          querystring: Type.Object({
            ...PageQuery,
            filter: Type.Optional(
              // Empty means no filter.
              Type.String({ pattern: `^$|^\\s*\\(?\\s*user\\s*=\\s*(['"])[A-Za-z0-9_-]+\\1\\s*\\)?\\s*$` }),
            ),
          }),
        },
      },
      schema: {
        summary: "List PATs (superuser: all or filter=user='<id>'; a user session: its own)",
        tags: ['admin'],
        querystring: Type.Object({ ...PageQuery, filter: Type.Optional(Type.String()) }),
        response: { 200: ListPage(PatItem) },
      },
    },
    async (request) => admin.listPats(recordCaller(request), request.query),
  );

  recordAction(
    'DELETE',
    '/api/collections/pat_tokens/records/:id',
    'Revoke a PAT (owner or superuser)',
    byOwnerOrSuperuser,
    (caller: RecordCaller, id) => admin.deletePat(caller, id),
  );

  app.get(
    '/api/admin/settings',
    {
      config: { guard: SUPERUSER },
      schema: {
        summary: 'Effective settings, secrets masked (superuser)',
        tags: ['admin'],
        response: {
          200: Type.Object({
            settings: Type.Array(Type.Object({ name: Type.String(), value: Type.String(), source: Type.String() })),
          }),
        },
      },
    },
    async () => ({ settings: identity.settings().map((s) => ({ name: s.name, value: s.value, source: s.source })) }),
  );

  app.get(
    '/api/admin/health',
    {
      config: { guard: SUPERUSER },
      schema: {
        summary: 'The unredacted health body (superuser)',
        tags: ['admin'],
        response: { 200: OpenObject({ code: Type.Literal(200), message: Type.String(), data: OpenObject({}) }) },
      },
    },
    async () => ctx.health.check(),
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
  for (const file of ADMIN_FILES) {
    app.get(
      file.url,
      {
        config: { guard: PUBLIC },
        schema: {
          summary: `The admin UI's ${file.url.endsWith('.js') ? 'script' : 'style sheet'}`,
          tags: ['admin'],
          produces: [file.produces],
          response: { 200: Type.String({ description: file.url.slice(3) }) },
        },
      },
      async (_request, reply) => reply.type(file.type).header('Cache-Control', 'no-store').send(file.body),
    );
  }
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
