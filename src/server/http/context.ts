/**
 * The HTTP layer's context: what every route module receives (`AppContext`), the route-table types and the
 * Fastify type augmentations (request principal, route policy config). Route modules import from here, never
 * from `app.ts`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, RawServerDefault } from 'fastify';
import type { Logger } from 'pino';
import type { Identity } from '../auth/identity.js';
import type { CredentialResolver, Principal, SuperuserPrincipal } from '../auth/principal.js';
import type { Config } from '../config/types.js';
import type { HealthService } from '../health/service.js';
import type { PaperAccess } from '../access/service.js';
import type { IngestService } from '../ingest/service.js';
import type { PaperAssets } from '../papers/assets.js';
import type { PaperMetadataModule } from '../papers/metadata/open.js';
import type { ChunkSearch } from '../rag/service.js';
import type { GraphService } from '../graph/service.js';
import type { Guard } from '../routes/guard.js';
import type { WikiService } from '../wiki/service.js';
import type { ProxyTrust } from './client.js';
import type { DispatchedOperation, OpenApiOverlay } from './openapi.js';
import type { Timeouts } from './timeouts.js';

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
  /** Paper access (CONTRACT §11); its routes are registered only with `SVC_PAPER_ACCESS_ENABLED=true`. */
  readonly access?: PaperAccess;
  /** Paper metadata (CONTRACT §18.1) and reference lookups; without it, metadata is `null` and lookups use the index. */
  readonly metadata?: PaperMetadataModule;
  /** Ingest tasks (CONTRACT §10); their routes are registered when present. */
  readonly ingest?: IngestService;
  /** Chunk search (CONTRACT §11.7); present only when its routes are to be registered. */
  readonly rag?: ChunkSearch | null;
  /** The graph endpoints (CONTRACT §14); answers `{error}` itself when the graph is not configured. */
  readonly graph: GraphService;
  /** Connection timeouts (tests shorten them); `DEFAULT_TIMEOUTS` otherwise. */
  readonly timeouts?: Timeouts;
  /** Set by the running server when it begins to shut down (runtime.ts); answers then close their connection. */
  readonly shutdown?: ShutdownState;
}

/** Whether the server has begun to shut down. */
export interface ShutdownState {
  readonly started: boolean;
}

/** The rate-limit rules a route can declare (CONTRACT §7.7): per-user writes, PAT creation, device starts per IP. */
export type RateLimitClass = 'write' | 'patCreate' | 'deviceCode';

/** One operation of the route table: a Fastify route, or an action of a wildcard dispatcher (`dispatched`). */
export interface RegisteredRoute {
  readonly method: string;
  /** Fastify syntax (`/api/pat/:id`); a dispatcher action in OpenAPI syntax (`/api/papers/{preprint_id}/pdf`). */
  readonly url: string;
  readonly guard: Guard;
  readonly rateLimitClass?: RateLimitClass;
  /** An action of a wildcard route (e.g. `/api/papers/*`), documented as its own path. */
  readonly dispatched?: boolean;
}

/** The app instance as route modules see it: typed by the TypeBox type provider. */
export type App = FastifyInstance<
  RawServerDefault,
  IncomingMessage,
  ServerResponse,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** A route module: a Fastify plugin receiving the context (and any options of its own). */
export type RoutePlugin<Options extends object = object> = FastifyPluginAsyncTypebox<{ ctx: AppContext } & Options>;

declare module 'fastify' {
  interface FastifyRequest {
    /** The resolved credential, set by the route policy hook on guarded routes. */
    principal: Principal | null;
    /** The superuser an admin guard verified (CONTRACT §7.9), else `null`. */
    superuser: SuperuserPrincipal | null;
  }
  interface FastifyContextConfig {
    /** The route's guard decision (required: a route without one is refused at registration). */
    guard?: Guard;
    /** The rate limit the route counts against, after its guard. */
    rateLimitClass?: RateLimitClass;
    /** OpenAPI-only precision: what the handler enforces beyond the validation schema (patterns, required). */
    openapi?: OpenApiOverlay;
    /** A wildcard dispatcher: whether it has an action for a path (decides `Allow` on a 405). */
    serves?: (path: string) => boolean;
  }
  interface FastifyInstance {
    /** Every operation with its guard decision, in registration order (the route table). */
    readonly routeTable: readonly RegisteredRoute[];
    /** Adds an action of a wildcard dispatcher to the route table and documents it as its own path. */
    documentAction(op: DispatchedOperation): void;
    /** Whether a peer is a trusted proxy (`SVC_TRUSTED_PROXIES`), whose forwarded headers are believed. */
    readonly proxyTrust: ProxyTrust;
  }
}
