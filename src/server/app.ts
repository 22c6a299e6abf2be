import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyRequest,
  type RouteOptions,
} from 'fastify';
import FindMyWay from 'find-my-way';
import type { Logger } from 'pino';
import { HttpError } from '../shared/errors.js';
import { VERSION } from '../shared/version.js';
import type { Identity } from './auth/identity.js';
import type { CredentialResolver } from './auth/principal.js';
import type { Config } from './config/types.js';
import type { HealthService } from './health/service.js';
import type { PaperAssets } from './papers/assets.js';
import type { WikiService } from './wiki/service.js';
import { rateLimitClassHook } from './routes/auth-rate-limit.js';
import { guardHook, PUBLIC, type Guard } from './routes/guard.js';
import { identityRoutes } from './routes/identity.js';
import { installerRoutes } from './routes/installer.js';
import { metaRoutes } from './routes/meta.js';
import { paperRoutes } from './routes/papers.js';
import { wikiRoutes } from './routes/wiki.js';
import { spaRoutes } from './routes/spa.js';

/** Everything the HTTP layer needs; services are built by the caller so tests can build them differently. */
export interface AppContext {
  readonly config: Config;
  readonly logger: Logger;
  readonly credentials: CredentialResolver | null;
  readonly health: HealthService;
  readonly identity: Identity;
  readonly papers: PaperAssets;
  readonly wiki: WikiService;
  /** Directory of the built web front end; a placeholder page is served when it has no `index.html`. */
  readonly webRoot: string;
}

export interface RegisteredRoute {
  readonly method: string;
  readonly url: string;
  readonly guard: Guard;
}

/** A Swagger 2.0 operation object documented by hand, for the actions of a wildcard dispatcher route. */
export type OpenApiOperation = Record<string, unknown>;

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route with its guard decision, in registration order (the route table). */
    readonly routeTable: readonly RegisteredRoute[];
    /**
     * Documents one action of a wildcard dispatcher (`/api/papers/*`) as its own path in the OpenAPI document,
     * e.g. `('post', '/api/papers/{preprint_id}/upload-pdf', {...})`.
     */
    documentOperation(method: string, path: string, operation: OpenApiOperation): void;
  }
}

const ATTRIBUTION = 'OpenAlex (CC0), Crossref (CC0), arXiv';
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

export async function buildApp(ctx: AppContext): Promise<FastifyInstance> {
  const logger: FastifyBaseLogger = ctx.logger;
  const app = Fastify({
    loggerInstance: logger,
    bodyLimit: 1024 * 1024,
    // Bigger socket buffers move 100 MiB uploads in fewer, larger chunks.
    http: { highWaterMark: 1024 * 1024 },
    return503OnClosing: true,
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 1000 },
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', allErrors: false } },
  });

  // The route table: every route must carry a guard decision; a route without one is a wiring fault.
  const table: RegisteredRoute[] = [];
  const shadow = FindMyWay();
  app.decorate('routeTable', table);
  const documented: Record<string, Record<string, OpenApiOperation>> = {};
  app.decorate('documentOperation', (method: string, path: string, operation: OpenApiOperation) => {
    (documented[path] ??= {})[method.toLowerCase()] = operation;
  });
  app.decorateRequest('principal', null);
  app.addHook('onRoute', (route: RouteOptions) => {
    // The swagger UI plugin's own asset routes are public by nature.
    const swaggerUi =
      (route.url === '/swagger' || route.url.startsWith('/swagger/')) && route.config?.guard === undefined;
    if (swaggerUi) route.config = { ...route.config, guard: PUBLIC };
    const guard = (route.config as { guard?: Guard } | undefined)?.guard;
    if (guard === undefined) throw new Error(`route ${String(route.method)} ${route.url} has no guard decision`);
    for (const method of [route.method].flat()) {
      if (method === 'HEAD') continue;
      table.push({ method, url: route.url, guard });
      shadow.on(method as 'GET', route.url, () => undefined);
    }
  });

  app.addHook('onRequest', userHeaderBinding(ctx.config.userHeader));
  app.addHook('onRequest', async (request, reply) => {
    if (request.url.startsWith('/api/')) {
      reply.header('X-Svc-Server-Version', VERSION);
      reply.header('X-Attribution', ATTRIBUTION);
    }
  });
  // Guards run before body validation, so an anonymous request with a bad body is 401, not 400; rate limits
  // count only requests that passed their guard (CONTRACT §7.7).
  app.addHook('preValidation', guardHook(ctx.credentials));
  app.addHook('preValidation', rateLimitClassHook(ctx.identity.limiter));
  app.addHook('preValidation', auditBinding);

  // An empty body sent with a JSON content type counts as no body (the PocketBase SDK sends such POSTs); a
  // non-empty body must be valid JSON (400 `parse body: …`), prototype poisoning included.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') return done(null, undefined);
    return parseJson(request, String(body), done);
  });

  app.setErrorHandler((error: FastifyError | HttpError, request, reply) => {
    if (error instanceof HttpError) {
      return reply.code(error.status).headers(error.headers).send(error.body);
    }
    const { status, detail } = describeFrameworkError(error);
    if (status >= 500) request.log.error({ err: error }, 'request failed');
    // The PocketBase-compatible routes answer every error in PocketBase's own shape (CONTRACT §0.2).
    if (request.url.startsWith('/api/collections/')) {
      return reply.code(status).send({ status, message: detail, data: {} });
    }
    return reply.code(status).send({ detail });
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    if (path.startsWith('/api/') || path === '/api') {
      const allowed = METHODS.filter((m) => m !== request.method && shadow.find(m, path) !== null);
      if (allowed.length > 0) {
        return reply.code(405).header('Allow', allowed.join(', ')).send({ detail: 'method not allowed' });
      }
      return reply.code(404).send({ detail: 'not found' });
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') return reply.code(404).send({ detail: 'not found' });
    return spaFallback(reply);
  });

  await app.register(fastifySwagger, {
    swagger: {
      info: { title: 'pks — paper knowledge service', version: VERSION },
      consumes: ['application/json'],
      produces: ['application/json'],
      securityDefinitions: { Bearer: { type: 'apiKey', name: 'Authorization', in: 'header' } },
    },
    transformObject: (documentObject) => {
      const swaggerObject = (documentObject as { swaggerObject: { paths?: Record<string, object> } }).swaggerObject;
      const paths: Record<string, object> = { ...swaggerObject.paths };
      for (const [p, ops] of Object.entries(documented)) paths[p] = { ...paths[p], ...ops };
      return { ...swaggerObject, paths } as never;
    },
  });
  await app.register(fastifySwaggerUi, { routePrefix: '/swagger', uiConfig: { url: '/swagger/doc.json' } });

  await app.register(metaRoutes, { ctx });
  await app.register(installerRoutes);
  await app.register(identityRoutes, { ctx });
  await app.register(paperRoutes, { ctx });
  await app.register(wikiRoutes, { ctx });
  const { spaFallback } = await spaRoutes(app, ctx.webRoot);

  return app;
}

/**
 * Adds bindings to every later log line of a request (including its `request completed` line). The request
 * logger is already a per-request child, so its bindings are set in place rather than by another child.
 */
function bindLog(request: FastifyRequest, bindings: Record<string, string>): void {
  (request.log as FastifyBaseLogger & { setBindings(b: Record<string, string>): void }).setBindings(bindings);
}

/** The reverse proxy's user header, recorded as metadata on every request; it never authenticates. */
function userHeaderBinding(userHeader: string | null) {
  const header = userHeader?.toLowerCase() ?? null;
  return async (request: FastifyRequest): Promise<void> => {
    const value = header ? request.headers[header] : undefined;
    if (typeof value === 'string' && value !== '') bindLog(request, { user_header: value });
  };
}

/** The audit label of an authenticated request: `system-pat`, `pat` or `session`, and the user. */
async function auditBinding(request: FastifyRequest): Promise<void> {
  const principal = request.principal;
  if (!principal) return;
  bindLog(request, { auth: principal.source, ...(principal.userId ? { user_id: principal.userId } : {}) });
}

/** Maps Fastify's own errors to CONTRACT §0.2 bodies. */
function describeFrameworkError(error: FastifyError): { status: number; detail: string } {
  if (error.validation && error.validation.length > 0) {
    const v = error.validation[0]!;
    if (v.keyword === 'additionalProperties') {
      const name = (v.params as { additionalProperty?: string }).additionalProperty ?? '?';
      return { status: 400, detail: `unknown field '${name}'` };
    }
    const field =
      (v.params as { missingProperty?: string }).missingProperty ??
      (v.instancePath.replace(/^\//, '').replace(/\//g, '.') || error.validationContext || 'body');
    return { status: 400, detail: `${field}: ${v.message ?? 'invalid'}` };
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { status: 400, detail: `parse body: ${error.message}` };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, detail: 'request body too large' };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, detail: error.message };
  }
  if (error instanceof SyntaxError) return { status: 400, detail: `parse body: ${error.message}` };
  const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 600 ? error.statusCode : 500;
  return { status, detail: status >= 500 ? 'internal server error' : error.message };
}
