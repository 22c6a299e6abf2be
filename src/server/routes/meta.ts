import { readFileSync } from 'node:fs';
import { Type } from '@sinclair/typebox';
import { ScopeList, ServerInfo } from '../../shared/api/meta.js';
import { MAX_EXPIRY_DAYS, SCOPES } from '../../shared/scopes.js';
import { VERSION } from '../../shared/version.js';
import type { RoutePlugin } from '../http/context.js';
import { redactHealth } from '../health/service.js';
import { PUBLIC } from './guard.js';
import { OpenObject, Timestamp } from './schemas.js';

const SWAGGER_INITIALIZER_URL = '/swagger/pks-initializer.js';
/** `assets/` sits three levels up (as for the admin UI). */
const SWAGGER_INITIALIZER = readFileSync(new URL('../../../assets/swagger-initializer.js', import.meta.url), 'utf8');

const Check = OpenObject(
  {
    status: Type.String({ enum: ['ok', 'error', 'not_configured'] }),
    error: Type.Optional(Type.String({ description: 'why the check failed (`redacted` for anonymous callers)' })),
  },
  'one dependency probe; descriptive fields (`backend`, `endpoint`, `buckets`, `uri`, `database`, `dir`, …) vary',
);

/** CONTRACT §8.1: the paper-access counters (feature on; valid credentials only). */
const counter = Type.Integer({ minimum: 0 });
const ParserCounters = Type.Object(
  {
    submitted: counter,
    succeeded: counter,
    failed_fatal: counter,
    failed_retryable: counter,
    failed_daily_limit: counter,
    cache_hits: counter,
    cache_misses: counter,
    inflight_jobs: counter,
    queued_jobs: counter,
    preprint_fetches: counter,
    preprint_fetch_succeeded: counter,
    preprint_fetch_failed: counter,
    inflight_preprint_fetches: counter,
    tokens_total: counter,
    tokens_cooling: counter,
  },
  { description: 'parser counters (paper access on; valid credentials only)' },
);

const HealthResponse = Type.Object({
  code: Type.Literal(200),
  message: Type.String({ enum: ['API is healthy.', 'Dependency degraded.'] }),
  data: Type.Object({
    status: Type.String({ enum: ['healthy', 'degraded'] }),
    version: Type.String(),
    uptime_seconds: Type.Integer({ minimum: 0 }),
    time: Timestamp(),
    checks: Type.Object({ rawstore: Check, graphdb: Check, wiki: Check, database: Type.Optional(Check) }),
    parser: Type.Optional(ParserCounters),
  }),
});

/** Public meta endpoints: health, server info, the scope vocabulary, the API document (CONTRACT §8, §7.4). */
export const metaRoutes: RoutePlugin = async (app, { ctx }) => {
  app.get(
    '/api/health',
    {
      config: { guard: PUBLIC },
      schema: {
        summary: 'Health and dependency probes (internal addresses only for a valid credential)',
        tags: ['meta'],
        response: { 200: HealthResponse },
      },
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
      mcp: true,
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
  // The UI plugin renders its page at `/swagger` with absolute asset paths; that page is served here with its
  // initializer swapped for one that names `/swagger/doc.json` (the plugin's reads `./json` relative to the page's
  // address, which from `/swagger/index.html` is no document).
  let page: string | null = null;
  app.get('/swagger/index.html', { config: { guard: PUBLIC }, schema: { hide: true } }, async (_request, reply) => {
    page ??= (await app.inject({ method: 'GET', url: '/swagger' })).body.replace(
      /src="[^"]*\/swagger-initializer\.js"/,
      `src="${SWAGGER_INITIALIZER_URL}"`,
    );
    return reply.type('text/html; charset=utf-8').send(page);
  });
  app.get(SWAGGER_INITIALIZER_URL, { config: { guard: PUBLIC }, schema: { hide: true } }, async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').send(SWAGGER_INITIALIZER),
  );
};
