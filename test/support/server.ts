import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { spawn, type ChildProcess } from 'node:child_process';
import pino from 'pino';
import { openIdentity, type Identity } from '../../src/server/auth/identity.js';
import type { User } from '../../src/server/auth/users.js';
import { buildConfig } from '../../src/server/config/load.js';
import type { Config } from '../../src/server/config/types.js';
import { createLogger } from '../../src/server/logger.js';
import { startServer, type RunningServer } from '../../src/server/runtime.js';
import type { Scope } from '../../src/shared/scopes.js';
import { freePort } from './free-port.js';
import { userDbEnv } from './user-db.js';

export const REPO_ROOT = path.resolve(import.meta.dirname, '../..');

/** Collects every log line the server writes, for assertions and secret scans. */
export class LogCapture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  }
  get text(): string {
    return this.lines.join('\n');
  }
}

/** Settings that put every directory of a pksd (assets, data, database, an absent wiki) inside `dir`. */
export function dirSettings(dir: string): Record<string, string> {
  return {
    SVC_RAW_DIR: path.join(dir, 'raw'),
    SVC_DATA_DIR: path.join(dir, 'data'),
    SVC_DB_DATA_DIR: path.join(dir, 'pb_data'),
    SVC_WIKI_DIR: path.join(dir, 'no-wiki'),
  };
}

/**
 * A configuration whose directories are inside `dir` and which reads nothing from the real environment;
 * `env` is the settings environment, merged over those defaults.
 */
export function testConfig(dir: string, env: Record<string, string> = {}): Config {
  return buildConfig({
    flags: new Map(),
    env: {
      ...dirSettings(dir),
      SVC_LOG_LEVEL: 'error',
      ...env,
    },
    cwd: dir,
    home: dir,
  });
}

export interface TestServer {
  readonly url: string;
  readonly config: Config;
  readonly server: RunningServer;
  readonly logs: LogCapture;
  /** The temp directory holding raw/, data/, pb_data/ (removed by `close`). */
  readonly dir: string;
  fetch(pathname: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

/** Logins a test server allows by default (`SVC_ALLOWED_IDP_LOGINS`); sessions and PATs of others do not verify. */
export const TEST_SERVER_LOGINS = 'alice,bob,carol,truth';

/**
 * Starts `pksd` in-process on a free loopback port with its directories in a fresh temp dir. `env` is the
 * settings environment (merged over the temp-dir defaults); nothing is read from the real environment. `start` is
 * another build's `startServer` (a bench runs the compiled `dist/`).
 */
export async function startTestServer(
  env: Record<string, string> = {},
  options: { webRoot?: string; start?: typeof startServer } = {},
): Promise<TestServer> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pksd-test-'));
  const port = await freePort();
  const config = testConfig(dir, {
    SVC_HTTP_ADDR: `127.0.0.1:${port}`,
    SVC_LOG_LEVEL: 'debug',
    SVC_ALLOWED_IDP_LOGINS: TEST_SERVER_LOGINS,
    ...(await userDbEnv(dir)),
    ...env,
  });
  const logs = new LogCapture();
  const server = await (options.start ?? startServer)(config, {
    logger: createLogger(config.logLevel, logs),
    ...(options.webRoot ? { webRoot: options.webRoot } : {}),
  });
  return {
    url: server.url,
    config,
    server,
    logs,
    dir,
    fetch: (pathname, init) => fetch(server.url + pathname, init),
    async close() {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The identity database of a server's configuration as another process (a second instance, a `pksd` command)
 * sees it: tests write users and credentials through it.
 */
export const openTestIdentity = (config: Config): Promise<Identity> =>
  openIdentity(config, pino({ level: 'silent' }), { background: false });

/** User `login` as a GitHub sign-in made it (email `<login>@example.org`), written straight into the database. */
export async function testUser(identity: Identity, login: string): Promise<User> {
  const { user } = await identity.users.upsertFromIdp({
    provider: 'github',
    providerUserId: `id-${login}`,
    login,
    email: `${login}@example.org`,
    name: login,
    avatar: '',
  });
  return user;
}

/** The plaintext of a PAT named `name` with `scopes`, valid for a day, of user `login` (made as `testUser` makes it). */
export async function testPat(identity: Identity, login: string, scopes: Scope[], name: string): Promise<string> {
  const user = await testUser(identity, login);
  return (await identity.pats.mint(user.id, { name, description: '', expiresInDays: 1, scopes })).plaintext;
}

export interface ChildResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Spawns the built `bin/pksd` (run `npm run build` first) with exactly `env` plus PATH and HOME. */
export function spawnPksd(
  args: readonly string[],
  env: Record<string, string>,
  cwd = REPO_ROOT,
): { child: ChildProcess; done: Promise<ChildResult>; output: () => { stdout: string; stderr: string } } {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'bin/pksd'), ...args], {
    cwd,
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: env['HOME'] ?? os.tmpdir(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<ChildResult>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { child, done, output: () => ({ stdout, stderr }) };
}

/** Runs `bin/pksd` to completion. */
export async function runPksdChild(
  args: readonly string[],
  env: Record<string, string>,
  cwd = REPO_ROOT,
): Promise<ChildResult> {
  return spawnPksd(args, env, cwd).done;
}

/**
 * Resolves when `predicate` holds for a child's output (a `spawnPksd` or `spawnPks` run); rejects, with what was
 * seen, when the child ends first or after `timeoutMs`.
 */
export async function waitForOutput(
  proc: { readonly child: ChildProcess; output(): { stdout: string; stderr: string } },
  predicate: (out: { stdout: string; stderr: string }) => boolean,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  await new Promise<void>((resolve, reject) => {
    const check = () => {
      const out = proc.output();
      if (predicate(out)) return resolve();
      if (proc.child.exitCode !== null || proc.child.signalCode !== null || Date.now() > deadline) {
        return reject(new Error(`condition not met; stdout=${out.stdout}\nstderr=${out.stderr}`));
      }
      setTimeout(check, 50);
    };
    check();
  });
}
