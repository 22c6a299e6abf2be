/**
 * A real PostgreSQL for tests (CONTRACT §21): throwaway clusters made with Debian's `initdb` and run by `pg_ctl` on
 * a free loopback port in a temp dir. One cluster per test run is shared by every test file (started by the first
 * file that asks, stopped by the global teardown of postgres-global-setup.ts); each file gets a fresh database.
 * Outside a vitest run with that global setup (a benchmark), a file starts and stops a cluster of its own.
 *
 * `initdb` refuses to run as root: when this process is root (CI), the cluster's commands run as the `postgres`
 * user (`runuser -u postgres`) in a directory that user owns.
 */
import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';
import { freePort } from './free-port.js';

const run = promisify(execFile);

declare module 'vitest' {
  export interface ProvidedContext {
    /** The directory through which the test files of one run share one PostgreSQL cluster. */
    pksPostgresRunDir: string;
  }
}

export interface PostgresCluster {
  readonly port: number;
  /** The cluster's home: `data/`, the Unix socket and `server.log`. */
  readonly home: string;
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust authentication on loopback). */
  readonly adminUrl: string;
}

const START_ATTEMPTS = 3;
const SHARED_WAIT_MS = 180_000;
const CLUSTER_FILE = 'cluster.json';
const FAILED_FILE = 'failed.txt';

/** The directory of Debian's server binaries (newest major), else whatever `initdb` is on PATH. */
function binDir(): string {
  const base = '/usr/lib/postgresql';
  const majors = existsSync(base)
    ? readdirSync(base)
        .filter((d) => existsSync(path.join(base, d, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (majors[0] !== undefined) return path.join(base, majors[0], 'bin');
  try {
    return path.dirname(execFileSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).trim());
  } catch {
    throw new Error('PostgreSQL server binaries (initdb) are missing: run scripts/install-test-deps.sh');
  }
}

const asRoot = (): boolean => process.getuid?.() === 0;

/** Runs a server binary, as the `postgres` user when this process is root. */
async function pgRun(binary: string, args: readonly string[]): Promise<void> {
  const file = path.join(binDir(), binary);
  const [cmd, argv] = asRoot() ? ['runuser', ['-u', 'postgres', '--', file, ...args]] : [file, [...args]];
  try {
    await run(cmd, argv, { timeout: 120_000 });
  } catch (err) {
    const e = err as Error & { stdout?: string; stderr?: string };
    throw new Error(`${binary} ${args.join(' ')} failed: ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`);
  }
}

function ownedByPostgres(dir: string): void {
  if (!asRoot()) return;
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  chownSync(dir, uid, gid);
}

/** `initdb` + `pg_ctl start` in a fresh temp dir on a free loopback port (retried when the port was taken). */
export async function startPostgresCluster(): Promise<PostgresCluster> {
  const home = await mkdtemp(path.join(os.tmpdir(), 'pks-postgres-'));
  ownedByPostgres(home);
  const data = path.join(home, 'data');
  await pgRun('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-locale', '--no-sync']);
  let lastError: unknown;
  for (let attempt = 0; attempt < START_ATTEMPTS; attempt++) {
    const port = await freePort();
    const options = [
      `-p ${port}`,
      '-c listen_addresses=127.0.0.1',
      `-k ${home}`,
      // A throwaway cluster: durability buys nothing.
      '-c fsync=off',
      '-c synchronous_commit=off',
      '-c full_page_writes=off',
      '-c max_connections=300',
    ].join(' ');
    try {
      await pgRun('pg_ctl', [
        '-D',
        data,
        '-l',
        path.join(home, 'server.log'),
        '-o',
        options,
        '-w',
        '-t',
        '120',
        'start',
      ]);
      return { port, home, adminUrl: `postgres://postgres@127.0.0.1:${port}/postgres` };
    } catch (err) {
      lastError = err;
    }
  }
  await rm(home, { recursive: true, force: true });
  throw lastError;
}

/** Stops a cluster at once (`-m immediate`: nothing in it is kept) and removes its directory. */
export async function stopPostgresCluster(cluster: Pick<PostgresCluster, 'home'>): Promise<void> {
  const data = path.join(cluster.home, 'data');
  if (existsSync(path.join(data, 'postmaster.pid'))) {
    await pgRun('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
  }
  await rm(cluster.home, { recursive: true, force: true });
}

/** The shared cluster of this run: started by the first caller (a `mkdir` decides who), awaited by the others. */
async function sharedCluster(runDir: string): Promise<PostgresCluster> {
  const file = path.join(runDir, CLUSTER_FILE);
  const read = async (): Promise<PostgresCluster | null> =>
    existsSync(file) ? (JSON.parse(await readFile(file, 'utf8')) as PostgresCluster) : null;
  const ready = await read();
  if (ready) return ready;
  try {
    await mkdir(path.join(runDir, 'starting'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    // Another test file is starting it: wait for its cluster file (or its failure).
    const deadline = Date.now() + SHARED_WAIT_MS;
    for (;;) {
      const cluster = await read();
      if (cluster) return cluster;
      if (existsSync(path.join(runDir, FAILED_FILE))) {
        throw new Error(
          `the shared PostgreSQL did not start: ${await readFile(path.join(runDir, FAILED_FILE), 'utf8')}`,
        );
      }
      if (Date.now() > deadline) throw new Error(`the shared PostgreSQL was not ready within ${SHARED_WAIT_MS} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  try {
    const cluster = await startPostgresCluster();
    await writeFile(`${file}.tmp`, JSON.stringify(cluster));
    await rename(`${file}.tmp`, file);
    return cluster;
  } catch (err) {
    await writeFile(path.join(runDir, FAILED_FILE), (err as Error).message);
    throw err;
  }
}

/** Stops the run's shared cluster if a test file started one (the global teardown). */
export async function stopSharedCluster(runDir: string): Promise<void> {
  const file = path.join(runDir, CLUSTER_FILE);
  if (existsSync(file)) await stopPostgresCluster(JSON.parse(await readFile(file, 'utf8')) as PostgresCluster);
}

/** One statement on its own connection to `url`. */
export async function query(url: string, sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A fresh, empty database on the cluster; its URL. */
export async function createDatabase(cluster: PostgresCluster): Promise<string> {
  const name = `pks_${Math.random().toString(36).slice(2, 12)}`;
  await query(cluster.adminUrl, `CREATE DATABASE ${name}`);
  return `postgres://postgres@127.0.0.1:${cluster.port}/${name}`;
}

/** Drops a database made by `createDatabase`, ending its connections. */
export async function dropDatabase(cluster: PostgresCluster, url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  await query(cluster.adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}

/** The run's cluster (shared through the global setup), else one for this process, stopped when it exits. */
let processCluster: Promise<PostgresCluster> | undefined;
export function runCluster(): Promise<PostgresCluster> {
  let runDir: string | undefined;
  try {
    runDir = inject('pksPostgresRunDir');
  } catch {
    runDir = undefined;
  }
  if (runDir) return sharedCluster(runDir);
  processCluster ??= startPostgresCluster().then((cluster) => {
    process.once('exit', () => {
      try {
        execFileSync(asRoot() ? 'runuser' : path.join(binDir(), 'pg_ctl'), [
          ...(asRoot() ? ['-u', 'postgres', '--', path.join(binDir(), 'pg_ctl')] : []),
          ...['-D', path.join(cluster.home, 'data'), '-m', 'immediate', 'stop'],
        ]);
      } catch {
        // already stopped
      }
    });
    return cluster;
  });
  return processCluster;
}

export interface PostgresFixture {
  readonly cluster: PostgresCluster;
  /** This file's own database (`postgres://…`, any password is accepted). */
  readonly url: string;
  /** Another fresh database on the same cluster (dropped with the file's). */
  newDatabase(): Promise<string>;
}

/**
 * PostgreSQL for the calling test file (in `beforeAll`): the run's shared cluster (or one of its own outside a
 * vitest run with the global setup) and a fresh database, dropped afterwards.
 */
export function usePostgres(): PostgresFixture {
  let cluster: PostgresCluster | undefined;
  let own = false;
  const databases: string[] = [];
  let url: string | undefined;
  beforeAll(async () => {
    let runDir: string | undefined;
    try {
      runDir = inject('pksPostgresRunDir');
    } catch {
      runDir = undefined;
    }
    if (runDir) {
      cluster = await sharedCluster(runDir);
    } else {
      cluster = await startPostgresCluster();
      own = true;
    }
    url = await createDatabase(cluster);
    databases.push(url);
  });
  afterAll(async () => {
    if (!cluster) return;
    if (own) {
      await stopPostgresCluster(cluster);
      return;
    }
    for (const db of databases) await dropDatabase(cluster, db).catch(() => undefined);
  });
  const current = (): PostgresCluster => {
    if (!cluster || !url) throw new Error('PostgreSQL is not running (usePostgres() fixture used outside a test)');
    return cluster;
  };
  return {
    get cluster() {
      return current();
    },
    get url() {
      current();
      return url!;
    },
    async newDatabase() {
      const created = await createDatabase(current());
      databases.push(created);
      return created;
    },
  };
}
