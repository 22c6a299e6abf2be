import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyReply, type FastifyRequest, type RouteOptions } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { proxyTrust } from './http/client.js';
import type { App, AppContext, RegisteredRoute } from './http/context.js';
import { registerCompression } from './http/compression.js';
import { lazyRequestLogger } from './http/request-logger.js';
import { clientErrorHandler, frameworkErrors, sendError } from './http/errors.js';
import { isApiPath, requestPath } from './http/headers.js';
import { openApiOptions, type DispatchedOperation } from './http/openapi.js';
import { onRequestHook, onSendHook } from './http/request-hooks.js';
import { routePolicyHook } from './http/route-policy.js';
import { validatorsByPart } from './http/validation.js';
import { DEFAULT_TIMEOUTS, serverTimeoutOptions } from './http/timeouts.js';
import { PUBLIC } from './routes/guard.js';
import { accessActions } from './routes/access.js';
import { graphRoutes } from './routes/graph.js';
import { identityRoutes } from './routes/identity.js';
import { ingestRoutes } from './routes/ingest.js';
import { ragRoutes } from './routes/rag.js';
import { installerRoutes } from './routes/installer.js';
import { metaRoutes } from './routes/meta.js';
import { mcpRoutes } from './routes/mcp.js';
import { paperRoutes } from './routes/papers.js';
import { jobActions } from './routes/papers/registry-jobs.js';
import { metadataActions } from './routes/papers/registry-metadata.js';
import { readActions } from './routes/papers/registry-reads.js';
import { uploadActions } from './routes/papers/registry-uploads.js';
import { spaRoutes } from './routes/spa.js';
import { wikiRoutes } from './routes/wiki.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * Response schemas document the bodies; they never reshape them (a schema must not drop or demand a field). Given as
 * the schema controller's serializer factory, so Fastify never loads its fast-json-stringify compiler at start.
 */
const jsonStringifyCompiler = () => (data: unknown) => JSON.stringify(data);

export async function buildApp(ctx: AppContext): Promise<App> {
  const logger: FastifyBaseLogger = ctx.logger;
  const timeouts = ctx.timeouts ?? DEFAULT_TIMEOUTS;
  const trust = proxyTrust(ctx.config.trustedProxies);
  const app = Fastify({
    loggerInstance: logger,
    // The request logger is bound when it first writes (http/request-logger.ts), not on every request.
    childLoggerFactory: lazyRequestLogger,
    bodyLimit: 1024 * 1024,
    // Bigger socket buffers move 100 MiB uploads in fewer, larger chunks.
    http: { highWaterMark: 1024 * 1024, ...serverTimeoutOptions(timeouts) },
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    // `request.ip` walks `X-Forwarded-For` only through trusted proxies (SVC_TRUSTED_PROXIES).
    trustProxy: (address: string) => trust(address),
    return503OnClosing: true,
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 1000 },
    schemaController: {
      compilersFactory: { buildValidator: validatorsByPart, buildSerializer: () => jsonStringifyCompiler },
    },
    frameworkErrors,
    clientErrorHandler,
  }).withTypeProvider<TypeBoxTypeProvider>();

  // The route table: every route must carry a guard decision; a route without one is a wiring fault.
  const table: RegisteredRoute[] = [];
  const dispatched: DispatchedOperation[] = [];
  const shadow = FindMyWay();
  app.decorate('routeTable', table);
  app.decorate('documentAction', (op: DispatchedOperation) => {
    dispatched.push(op);
    const { method, url, guard, rateLimitClass } = op;
    table.push({ method, url, guard, ...(rateLimitClass ? { rateLimitClass } : {}), dispatched: true });
  });
  app.decorate('proxyTrust', trust);
  app.decorateRequest('principal', null);
  app.decorateRequest('superuser', null);
  app.addHook('onRoute', (route: RouteOptions) => {
    // The swagger UI plugin's own asset routes are public by nature.
    const swaggerUi =
      (route.url === '/swagger' || route.url.startsWith('/swagger/')) && route.config?.guard === undefined;
    if (swaggerUi) route.config = { ...route.config, guard: PUBLIC };
    const guard = route.config?.guard;
    if (guard === undefined) throw new Error(`route ${String(route.method)} ${route.url} has no guard decision`);
    for (const method of [route.method].flat()) {
      if (method === 'HEAD') continue;
      const rateLimitClass = route.config?.rateLimitClass;
      table.push({ method, url: route.url, guard, ...(rateLimitClass ? { rateLimitClass } : {}) });
      shadow.on(method as HTTPMethod, route.url, () => undefined, { serves: route.config?.serves });
    }
  });

  app.addHook('onSend', onSendHook(ctx.shutdown ?? { started: false }));
  app.addHook(
    'preValidation',
    routePolicyHook({ credentials: ctx.credentials, admin: ctx.identity.admin }, ctx.identity.limiter),
  );

  // The one JSON parser. An empty (or blank) body sent with a JSON content type counts as no body (the PocketBase
  // SDK sends such POSTs); a non-empty body must be valid JSON (400 `parse body: …`), prototype poisoning included.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    return parseJson(request, text, done);
  });

  app.setErrorHandler((error, request, reply) => sendError(request, reply, error));

  /**
   * Methods that serve `path`: registered routes, and for a dispatcher only the actions it has for the path. A
   * path some method serves as a route of its own (`/api/pat/scopes`) is that resource: methods that would reach it
   * only as a parameter of another route (`DELETE /api/pat/:id`) are not listed.
   */
  const allowedMethods = (path: string): string[] => {
    const matches = METHODS.flatMap((method) => {
      const found = shadow.find(method, path);
      const serves = (found?.store as { serves?: (p: string) => boolean } | undefined)?.serves;
      if (found === null || (serves !== undefined && !serves(path))) return [];
      return [{ method, exact: Object.keys(found.params).length === 0 }];
    });
    const exact = matches.some((m) => m.exact);
    const allowed = matches.filter((m) => m.exact || !exact).map((m) => m.method);
    return allowed.includes('GET') ? [...allowed.slice(0, 1), 'HEAD', ...allowed.slice(1)] : allowed;
  };

  /**
   * A request no route serves: 405 with `Allow` on a path other methods serve (any method name, `QUERY` and
   * `TRACE` included), else 404 — for a page GET outside the API, the web front end.
   */
  const unrouted = (request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const path = requestPath(request);
    const allowed = allowedMethods(path).filter((m) => m !== request.method);
    if (allowed.length > 0) {
      return reply.code(405).header('Allow', allowed.join(', ')).send({ detail: 'method not allowed' });
    }
    if (isApiPath(path) || (request.method !== 'GET' && request.method !== 'HEAD')) {
      return reply.code(404).send({ detail: 'not found' });
    }
    return spaFallback(reply);
  };
  // The watchdog, the user header, the `/api` headers, then the unrouted answer: one hook (http/request-hooks.ts).
  app.addHook(
    'onRequest',
    onRequestHook({ bodyIdleMs: timeouts.bodyIdleMs, userHeader: ctx.config.userHeader }, unrouted),
  );
  app.setNotFoundHandler(unrouted);

  await registerCompression(app);
  await app.register(
    fastifySwagger,
    openApiOptions(() => dispatched),
  );
  await app.register(fastifySwaggerUi, { routePrefix: '/swagger', uiConfig: { url: '/swagger/doc.json' } });

  await app.register(metaRoutes, { ctx });
  await app.register(installerRoutes, { ctx });
  await app.register(identityRoutes, { ctx });
  const paperAccess = accessActions(ctx);
  const registry = [...readActions(ctx), ...metadataActions(ctx), ...jobActions(ctx)];
  await app.register(paperRoutes, { ctx, actions: [...uploadActions(ctx), ...paperAccess, ...registry] });
  if (ctx.ingest) await app.register(ingestRoutes, { ctx, ingest: ctx.ingest });
  if (ctx.rag) await app.register(ragRoutes, { ctx, search: ctx.rag });
  await app.register(wikiRoutes, { ctx });
  await app.register(graphRoutes, { ctx });
  await app.register(mcpRoutes, { ctx });
  const { spaFallback } = await spaRoutes(app, ctx.webRoot);

  return app;
}
