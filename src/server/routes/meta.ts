import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { MAX_EXPIRY_DAYS, SCOPES } from '../../shared/scopes.js';
import { VERSION } from '../../shared/version.js';
import type { AppContext } from '../app.js';
import { redactHealth } from '../health/service.js';
import { PUBLIC } from './guard.js';
import { OpenObject } from './schemas.js';

const Check = OpenObject({ status: Type.String({ enum: ['ok', 'error', 'not_configured'] }) });

const HealthResponse = Type.Object({
  code: Type.Literal(200),
  message: Type.String(),
  data: OpenObject({
    status: Type.String({ enum: ['healthy', 'degraded'] }),
    version: Type.String(),
    uptime_seconds: Type.Integer(),
    time: Type.String({ format: 'date-time' }),
    checks: Type.Object({ rawstore: Check, graphdb: Check, wiki: Check }),
  }),
});

const ServerInfo = Type.Object({
  mode: Type.Literal('server'),
  version: Type.String(),
  engine: Type.Literal('node'),
  node_version: Type.String(),
  paper_access: Type.Boolean(),
  graph_configured: Type.Boolean(),
  oauth_enabled: Type.Boolean(),
});

const ScopeList = Type.Object({
  scopes: Type.Array(Type.Object({ name: Type.String(), description: Type.String() })),
  max_expiry_days: Type.Integer(),
});

/** Public meta endpoints: health, server info, the scope vocabulary (CONTRACT §8, §7.4). */
export async function metaRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }): Promise<void> {
  app.get(
    '/api/health',
    {
      config: { guard: PUBLIC },
      schema: { summary: 'Health and dependency probes', tags: ['meta'], response: { 200: HealthResponse } },
    },
    async (request) => {
      const body = await ctx.health.check();
      // Any valid credential sees internal addresses; checking it must not count as a use of the token.
      const principal = ctx.credentials
        ? await ctx.credentials.resolve(request.headers.authorization, { touch: false }).catch(() => null)
        : null;
      return principal && principal !== 'invalid' ? body : redactHealth(body);
    },
  );

  app.get(
    '/api/server/info',
    {
      config: { guard: PUBLIC },
      schema: { summary: 'Version and engine information', tags: ['meta'], response: { 200: ServerInfo } },
    },
    async () => ({
      mode: 'server' as const,
      version: VERSION,
      engine: 'node' as const,
      node_version: process.version,
      paper_access: ctx.config.paperAccessEnabled,
      graph_configured: ctx.config.graph !== null,
      oauth_enabled: ctx.config.idp.enabled,
    }),
  );

  app.get(
    '/api/pat/scopes',
    {
      config: { guard: PUBLIC },
      schema: { summary: 'The scope vocabulary', tags: ['auth'], response: { 200: ScopeList } },
    },
    async () => ({
      scopes: SCOPES.map((s) => ({ name: s.name, description: s.description })),
      max_expiry_days: MAX_EXPIRY_DAYS,
    }),
  );

  app.get('/swagger/doc.json', { config: { guard: PUBLIC }, schema: { hide: true } }, async () => app.swagger());
  app.get('/swagger/index.html', { config: { guard: PUBLIC }, schema: { hide: true } }, async (_request, reply) =>
    reply.redirect('/swagger/static/index.html'),
  );
}
