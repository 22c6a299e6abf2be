import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { buildApp } from '../../../src/server/app.js';
import { openIdentity, type Identity } from '../../../src/server/auth/identity.js';
import type { FetchLike } from '../../../src/server/auth/oauth.js';
import { CredentialChain } from '../../../src/server/auth/system-pat.js';
import type { User } from '../../../src/server/auth/users.js';
import { testConfig, testUser } from '../../support/server.js';
import { userDbEnv } from '../../support/user-db.js';
import type { Config } from '../../../src/server/config/types.js';
import type { App } from '../../../src/server/http/context.js';
import type { Timeouts } from '../../../src/server/http/timeouts.js';
import { graphProbe, localDirProbe, wikiProbe } from '../../../src/server/health/probes.js';
import { HealthService } from '../../../src/server/health/service.js';
import { openWiki } from '../../../src/server/wiki/service.js';
import { openPaperAssets } from '../../../src/server/papers/assets.js';
import { GraphService } from '../../../src/server/graph/service.js';

export const SYSTEM_PAT = 'system-pat-for-auth-tests-0001';

/** Logins on the harness's default allow-list (a session or PAT of any other login does not verify). */
export const TEST_LOGINS = ['alice', 'bob', 'carol', 'someone', 'puller', 'other', 'pagea', 'pageb'] as const;
const DEFAULT_LOGIN_PREFIX = 'user';
const ALLOWED = [...TEST_LOGINS, ...Array.from({ length: 20 }, (_, i) => `${DEFAULT_LOGIN_PREFIX}${i + 1}`)];
export const T0 = Date.UTC(2026, 4, 1, 12, 0, 0);

/** A settable clock: tests move time instead of sleeping. */
export class TestClock {
  constructor(public ms = T0) {}
  readonly now = (): number => this.ms;
  advance(ms: number): void {
    this.ms += ms;
  }
}

export interface AuthHarness {
  readonly app: FastifyInstance;
  readonly identity: Identity;
  readonly config: Config;
  readonly clock: TestClock;
  readonly dir: string;
  inject(opts: InjectOptions): Promise<LightMyRequestResponse>;
  /** Listens on a loopback port (for tests that need a real socket); resolves to the base URL. */
  listen(): Promise<string>;
  /** A signed-in user (created directly in the database) and its session token; see `TEST_LOGINS`. */
  login(login?: string): Promise<{ user: User; token: string }>;
  close(): Promise<void>;
}

export { testConfig };

/** The app with the identity module on a temp database, an injected clock, and `inject` instead of a socket. */
export async function authHarness(
  env: Record<string, string> = {},
  options: {
    fetch?: FetchLike;
    dir?: string;
    clock?: TestClock;
    timeouts?: Timeouts;
    webRoot?: string;
    /** Registers more routes before the app is ready (tests of the route table). */
    register?: (app: App) => void;
  } = {},
): Promise<AuthHarness> {
  const dir = options.dir ?? mkdtempSync(path.join(os.tmpdir(), 'pksd-auth-'));
  const config = testConfig(dir, {
    SVC_SYSTEM_PAT: SYSTEM_PAT,
    SVC_ALLOWED_IDP_LOGINS: ALLOWED.join(','),
    ...(await userDbEnv(dir)),
    ...env,
  });
  const clock = options.clock ?? new TestClock();
  const logger = pino({ level: 'silent' });
  const identity = await openIdentity(config, logger, {
    now: clock.now,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const papers = await openPaperAssets(config, logger, { s3: null, graph: null });
  const wiki = await openWiki(config, logger);
  const app = await buildApp({
    config,
    logger,
    credentials: new CredentialChain(config.systemPat, identity.verifiers),
    health: new HealthService({
      rawstore: localDirProbe(config.rawDir),
      graphdb: graphProbe(null, null),
      wiki: wikiProbe(config.wikiDir),
    }),
    identity,
    papers,
    wiki,
    graph: new GraphService(null, { queryTimeoutSeconds: null }),
    webRoot: options.webRoot ?? path.join(dir, 'no-web'),
    ...(options.timeouts ? { timeouts: options.timeouts } : {}),
  });
  options.register?.(app);
  await app.ready();
  let n = 0;
  return {
    app,
    identity,
    config,
    clock,
    dir,
    inject: (opts) => app.inject(opts),
    async listen() {
      await app.listen({ host: '127.0.0.1', port: 0 });
      const address = app.server.address() as AddressInfo;
      return `http://127.0.0.1:${address.port}`;
    },
    async login(login = `${DEFAULT_LOGIN_PREFIX}${++n}`) {
      const user = await testUser(identity, login);
      return { user, token: identity.sessions.issue(user) };
    },
    async close() {
      await app.close();
      await papers.close();
      await wiki.close();
      await identity.close();
      if (!options.dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Lets fire-and-forget work (`last_used_at` updates) run: one turn of the event loop, not a sleep. */
export const settle = () => new Promise<void>((resolve) => setImmediate(resolve));
