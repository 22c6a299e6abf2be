/**
 * Two (or N) real `pksd serve` processes sharing one deployment (CONTRACT §21), for the cluster-mode tests and
 * benchmarks of issue 24:
 *
 *   const c = await startCluster({ instances: 2, upstreams: false, env: {} });
 *   c.instances[i]  → { url, id ('a', 'b', …: SVC_INSTANCE_ID), pid, port, dir }
 *   c.proxyUrl      → a round-robin reverse proxy in front of every instance
 *   c.pgUrl         → the instances' `SVC_DB_URL`
 *   c.s3            → { moto, config } (the three buckets of this cluster)
 *   c.upstreams     → the arXiv/OpenAlex/MinerU doubles when `upstreams: true`, else null (paper access is then on)
 *   c.systemPat     → `SVC_SYSTEM_PAT` of every instance
 *   await c.superuserPat()          → a user PAT carrying every scope (user `root`, minted in the shared database)
 *   await c.identity()              → the shared user database as another process sees it (users, PATs, sessions)
 *   await c.signIn(login)           → { user, session } a signed-in user (login must be allowed: alice, bob, carol,
 *                                     truth, root unless `env` sets SVC_ALLOWED_IDP_LOGINS)
 *   await c.restart(i)              → SIGTERM, wait for the exit, start again on the same port and directories
 *   await c.kill9(i)                → SIGKILL, wait for the exit (the instance stays down until `restart(i)`)
 *   c.logs(i)                       → the instance's stderr so far (pino JSON lines)
 *   await c.stop()                  → stops everything (SIGKILL after a grace period: never hangs); safe twice
 *   const cluster = useCluster()    → a getter of a cluster started before the calling file's tests, stopped after
 *
 * Engines: the database is a fresh one on the run's throwaway PostgreSQL cluster (test/support/postgres.ts: shared
 * through the vitest global setup, or a cluster of this process outside vitest, e.g. a benchmark), dropped by
 * `stop()`; one moto S3 server with fresh buckets. Each instance runs from the TypeScript
 * sources (no build needed) with its own SVC_DATA_DIR / SVC_DB_DATA_DIR / SVC_RAW_DIR / SVC_WIKI_DIR under a temp
 * dir, on a loopback port. `instanceEnv(i)` adds per-instance settings (e.g. each instance's wiki checkout).
 * Readiness is `GET /api/health` answering 200, never a sleep.
 *
 * The proxy (node:http) streams bodies both ways, appends the client address to `X-Forwarded-For` and sets
 * `X-Forwarded-Host`/`-Proto`; both instances trust it (`SVC_TRUSTED_PROXIES=127.0.0.1`). Like a production
 * proxy it passes a request to the next instance when the chosen one refuses the connection (a stopped instance),
 * which is safe because no byte of the request was sent; so does a GET or HEAD (no body, idempotent) whose
 * connection fails before any response byte arrived (e.g. a kept-alive connection the stopping instance closed as
 * the request went out), as nginx's `proxy_next_upstream error` does. Any other request whose instance fails after
 * the connection was made answers 502 (a client retries). Every answer carries `x-test-instance: <id>` naming the
 * instance that served it (or failed it), so a test can tell a stopping instance's 5xx from a surviving one's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { openIdentity, type Identity } from '../../src/server/auth/identity.js';
import type { User } from '../../src/server/auth/users.js';
import type { ObjectStoreConfig } from '../../src/server/config/types.js';
import { SCOPE_NAMES } from '../../src/shared/scopes.js';
import { accessEnv, startDoubles, type Doubles } from '../server/access/support/harness.js';
import { motoBuckets, objectStoreEnv } from '../server/storage/backends.js';
import { useFixture } from './fixture.js';
import { freePort } from './free-port.js';
import { startMoto, type MotoServer } from './moto.js';
import { createDatabase, dropDatabase, runCluster, type PostgresCluster } from './postgres.js';
import { dirSettings, REPO_ROOT, testConfig, testUser } from './server.js';

export interface ClusterOptions {
  /** How many `pksd serve` processes (default 2). */
  readonly instances?: number;
  /** Settings of every instance, over the cluster's own (e.g. `SVC_PREPRINT_FETCH_RPS`). */
  readonly env?: Record<string, string>;
  /** Settings of instance `i` only, over `env`. */
  readonly instanceEnv?: (index: number) => Record<string, string>;
  /** Start the arXiv, OpenAlex and MinerU doubles and turn paper access on against them (default false). */
  readonly upstreams?: boolean;
  /** Wrap each instance's command (e.g. `['taskset', '-c', '0']` for instance 0), for benchmarks. */
  readonly wrap?: (index: number) => readonly string[];
}

export interface Instance {
  readonly url: string;
  /** `SVC_INSTANCE_ID`: `a`, `b`, … */
  readonly id: string;
  /** The current process (changes on `restart`). */
  readonly pid: number;
  readonly port: number;
  /** The instance's own directories (raw/, data/, pb_data/, no-wiki/). */
  readonly dir: string;
}

export interface Cluster {
  readonly instances: readonly Instance[];
  readonly proxyUrl: string;
  readonly pgUrl: string;
  readonly s3: { readonly moto: MotoServer; readonly config: ObjectStoreConfig };
  readonly upstreams: Doubles | null;
  readonly systemPat: string;
  superuserPat(): Promise<string>;
  identity(): Promise<Identity>;
  signIn(login: string): Promise<{ user: User; session: string }>;
  restart(index: number): Promise<void>;
  kill9(index: number): Promise<void>;
  logs(index: number): string;
  stop(): Promise<void>;
}

export const CLUSTER_SYSTEM_PAT = 'cluster-test-system-pat-0001';
const ALLOWED_LOGINS = 'alice,bob,carol,truth,root';
const REGISTER = path.join(REPO_ROOT, 'test/support/upstreams/ts-register.mjs');
const PKSD = path.join(REPO_ROOT, 'test/support/pksd-source.ts');
const READY_DEADLINE_MS = 120_000;
const STOP_GRACE_MS = 35_000; // §1.4: in-flight requests get up to 30 s
const LOG_TAIL_CHARS = 64_000;
/** Hop-by-hop headers a proxy does not forward (RFC 9110 §7.6.1). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'upgrade']);

const exited = (child: ChildProcess): boolean => child.exitCode !== null || child.signalCode !== null;

/** Resolves when the child has exited (at once when it already has). */
const exitOf = (child: ChildProcess): Promise<void> =>
  exited(child) ? Promise.resolve() : new Promise((resolve) => child.once('exit', () => resolve()));

/** Signals the child and waits for its exit; SIGKILL after `graceMs`. */
async function terminate(child: ChildProcess, signal: NodeJS.Signals, graceMs: number): Promise<void> {
  if (exited(child)) return;
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exitOf(child);
  clearTimeout(timer);
}

/** Bounded: a step of `stop()` that does not finish in `ms` is abandoned (stop never hangs). */
const within = (ms: number, work: Promise<unknown>): Promise<void> =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    work.then(
      () => (clearTimeout(timer), resolve()),
      () => (clearTimeout(timer), resolve()),
    );
  });

class RunningInstance implements Instance {
  child: ChildProcess | null = null;
  private output = '';

  constructor(
    readonly id: string,
    readonly port: number,
    readonly dir: string,
    private readonly env: Record<string, string>,
    private readonly wrap: readonly string[],
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get pid(): number {
    return this.child?.pid ?? -1;
  }

  get running(): boolean {
    return this.child !== null && !exited(this.child);
  }

  logs(): string {
    return this.output;
  }

  /** Spawns `pksd serve` and resolves once `/api/health` answers 200. */
  async start(): Promise<void> {
    const argv = [process.execPath, '--import', REGISTER, PKSD, 'serve'];
    const [cmd, ...args] = [...this.wrap, ...argv];
    const child = spawn(cmd!, args, {
      cwd: this.dir, // no ./.env of the repository is read
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: this.dir, ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    this.output += `--- start (pid ${child.pid ?? '?'}) ---\n`;
    const collect = (chunk: Buffer): void => {
      this.output = (this.output + chunk.toString('utf8')).slice(-LOG_TAIL_CHARS);
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    const deadline = Date.now() + READY_DEADLINE_MS;
    for (;;) {
      if (exited(child)) {
        throw new Error(
          `pksd instance ${this.id} exited before it was ready (${child.exitCode ?? child.signalCode}):\n${this.output}`,
        );
      }
      try {
        const res = await fetch(`${this.url}/api/health`, { signal: AbortSignal.timeout(5_000) });
        await res.arrayBuffer();
        if (res.status === 200) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`pksd instance ${this.id} not ready within ${READY_DEADLINE_MS} ms:\n${this.output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    if (this.child) await terminate(this.child, signal, signal === 'SIGKILL' ? 0 : STOP_GRACE_MS);
  }
}

/**
 * The round-robin reverse proxy. The request body is piped upstream only once the connection to the chosen
 * instance is open, so a refused connection can go to the next instance with nothing lost.
 */
function startProxy(upstreams: readonly RunningInstance[]): Promise<{ url: string; close(): Promise<void> }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  let next = 0;
  const server = http.createServer((req, res) => {
    const client = req.socket.remoteAddress ?? '127.0.0.1';
    const prior = req.headers['x-forwarded-for'];
    const headers: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(name)) headers[name] = value;
    headers['x-forwarded-for'] = prior ? `${String(prior)}, ${client}` : client;
    headers['x-forwarded-host'] = req.headers.host ?? '';
    headers['x-forwarded-proto'] = 'http';

    const replayable = req.method === 'GET' || req.method === 'HEAD';
    // A retry goes to the instance after the one that failed, never back to it (other requests move `next` too).
    const first = next++;
    const attempt = (triesLeft: number): void => {
      const target = upstreams[(first + upstreams.length - triesLeft) % upstreams.length]!;
      let connected = false;
      const upstream = http.request({
        host: '127.0.0.1',
        port: target.port,
        method: req.method,
        path: req.url,
        headers,
        agent,
      });
      upstream.on('socket', (socket: Socket) => {
        const go = (): void => {
          connected = true;
          // A replayed GET's request stream has ended already: there is nothing left to pipe.
          if (req.readableEnded) upstream.end();
          else req.pipe(upstream);
        };
        if (socket.connecting) socket.once('connect', go);
        else go();
      });
      upstream.on('response', (answer) => {
        const out: http.OutgoingHttpHeaders = {};
        for (const [name, value] of Object.entries(answer.headers))
          if (!HOP_BY_HOP.has(name) && name !== 'transfer-encoding') out[name] = value;
        out['x-test-instance'] = target.id;
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, out);
        answer.pipe(res);
        answer.on('error', () => res.destroy());
      });
      upstream.on('error', (err: NodeJS.ErrnoException) => {
        if ((!connected || replayable) && !res.headersSent && triesLeft > 1) return attempt(triesLeft - 1);
        if (!res.headersSent) {
          res.writeHead(502, { 'content-type': 'application/json', 'x-test-instance': target.id });
          res.end(JSON.stringify({ detail: `cluster proxy: instance ${target.id}: ${err.code ?? err.message}` }));
        } else {
          res.destroy();
        }
      });
      res.on('close', () => {
        if (!res.writableFinished) upstream.destroy();
      });
    };
    attempt(upstreams.length);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            agent.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}

/** `startCluster(options)` for the tests of the calling file, stopped after them; returns a getter of the cluster. */
export function useCluster(options: ClusterOptions = {}): () => Cluster {
  return useFixture(
    'the cluster',
    () => startCluster(options),
    (cluster) => cluster.stop(),
  );
}

/** Starts the engines, N instances (in parallel) and the proxy; everything started is stopped if a step fails. */
export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const count = options.instances ?? 2;
  const cleanups: (() => Promise<unknown>)[] = [];
  const running: RunningInstance[] = [];
  let stopped = false;
  let identity: Promise<Identity> | undefined;
  let rootPat: Promise<string> | undefined;
  const killAll = (): void => {
    for (const i of running) if (i.child && !exited(i.child)) i.child.kill('SIGKILL');
  };

  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    process.removeListener('exit', killAll);
    if (identity)
      await within(
        10_000,
        identity.then((id) => id.close()),
      );
    await within(STOP_GRACE_MS + 5_000, Promise.all(running.map((i) => i.stop('SIGTERM'))));
    killAll();
    for (const cleanup of cleanups.reverse()) await within(30_000, cleanup());
  };

  try {
    const base = await mkdtemp(path.join(os.tmpdir(), 'pks-cluster-'));
    cleanups.push(() => rm(base, { recursive: true, force: true }));

    const pg: PostgresCluster = await runCluster();
    const pgUrl = await createDatabase(pg);
    cleanups.push(() => dropDatabase(pg, pgUrl));

    const moto = await startMoto();
    cleanups.push(() => moto.stop());
    const buckets = await motoBuckets(moto);

    const upstreams = options.upstreams ? await startDoubles() : null;
    if (upstreams) cleanups.push(() => upstreams.close());

    const shared: Record<string, string> = {
      SVC_DB_URL: pgUrl,
      ...objectStoreEnv(buckets),
      SVC_TRUSTED_PROXIES: '127.0.0.1',
      SVC_SYSTEM_PAT: CLUSTER_SYSTEM_PAT,
      SVC_ALLOWED_IDP_LOGINS: ALLOWED_LOGINS,
      SVC_LOG_LEVEL: 'info',
      ...(upstreams ? accessEnv(upstreams) : {}),
      ...options.env,
    };
    for (let i = 0; i < count; i++) {
      const id = String.fromCharCode(97 + i);
      const dir = path.join(base, id);
      await mkdir(dir);
      const port = await freePort();
      const env = {
        ...dirSettings(dir),
        SVC_HTTP_ADDR: `127.0.0.1:${port}`,
        SVC_INSTANCE_ID: id,
        ...shared,
        ...options.instanceEnv?.(i),
      };
      running.push(new RunningInstance(id, port, dir, env, options.wrap?.(i) ?? []));
    }
    process.once('exit', killAll);
    // The first instance migrates the fresh database alone; the others then start together.
    await running[0]!.start();
    await Promise.all(running.slice(1).map((i) => i.start()));

    const proxy = await startProxy(running);
    cleanups.push(() => proxy.close());

    const openShared = (): Promise<Identity> =>
      (identity ??= openIdentity(
        testConfig(path.join(base, 'client'), {
          SVC_DB_URL: pgUrl,
          SVC_ALLOWED_IDP_LOGINS: shared['SVC_ALLOWED_IDP_LOGINS']!,
        }),
        pino({ level: 'silent' }),
        { background: false },
      ));
    const at = (index: number): RunningInstance => {
      const instance = running[index];
      if (!instance) throw new Error(`no instance ${index} (the cluster has ${running.length})`);
      return instance;
    };

    return {
      instances: running,
      proxyUrl: proxy.url,
      pgUrl,
      s3: { moto, config: buckets },
      upstreams,
      systemPat: CLUSTER_SYSTEM_PAT,
      identity: openShared,
      async signIn(login) {
        const shared = await openShared();
        const user = await testUser(shared, login);
        return { user, session: shared.sessions.issue(user) };
      },
      superuserPat: () =>
        (rootPat ??= (async () => {
          const shared = await openShared();
          const user = await testUser(shared, 'root');
          const pat = await shared.pats.mint(user.id, {
            name: 'cluster superuser',
            description: '',
            expiresInDays: 30,
            scopes: [...SCOPE_NAMES],
          });
          return pat.plaintext;
        })()),
      async restart(index) {
        const instance = at(index);
        await instance.stop('SIGTERM');
        await instance.start();
      },
      async kill9(index) {
        await at(index).stop('SIGKILL');
      },
      logs: (index) => at(index).logs(),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
