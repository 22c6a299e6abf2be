import neo4j from 'neo4j-driver';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createGraphClient, type GraphClient } from '../../src/server/graph/driver.js';
import { useFixture } from './fixture.js';
import { freePort } from './free-port.js';

export interface Neo4jServer {
  /** e.g. bolt://127.0.0.1:40123 (plain Bolt, no TLS). */
  readonly boltUri: string;
  /** Auth is disabled on the server, so any basic credentials (these included) are accepted. */
  readonly username: string;
  readonly password: string;
  readonly pid: number;
  /** SIGTERM, wait for exit (SIGKILL after 20 s), remove the data dir. Safe to call twice. */
  stop(): Promise<void>;
}

const LAUNCHER_DIR = path.resolve(import.meta.dirname, 'neo4j/target');
/** The embedded-Neo4j launcher jar (built by scripts/install-test-deps.sh). */
export const NEO4J_LAUNCHER_JAR = path.join(LAUNCHER_DIR, 'neo4j-launcher.jar');
// AppCDS archive made by scripts/install-test-deps.sh; the JVM flags below must match the ones used there.
const CDS_ARCHIVE = path.join(LAUNCHER_DIR, 'neo4j.jsa');
const START_DEADLINE_MS = 120_000;
const STOP_GRACE_MS = 20_000;
const OUTPUT_TAIL_CHARS = 16_000;

export interface Neo4jOptions {
  /**
   * Tuned for long runs (benchmarks): a 2 GiB heap and the JVM's full JIT instead of the tests' fast-starting
   * 512 MiB, C1-only setup (which the class-data archive was made for, so it is not used then).
   */
  readonly forThroughput?: boolean;
  /**
   * With `forThroughput`: the C1 compiler only. A bulk load on a freshly started JVM spends a third of the server's
   * CPU on C2 compilations that do not pay back within the load (scholarly-load bench: 30 s of server CPU → 20 s).
   */
  readonly quickJit?: boolean;
  /** Registers stand-ins of `apoc.cypher.run` and `apoc.text.join` (neo4j/src/…/StandInApoc.java). */
  readonly testProcedures?: boolean;
}

/**
 * The `java` arguments that run the launcher with Bolt on `port` and its data in `home` — one place for the JVM
 * flags, so every harness that starts Neo4j (this one, the fault tests' restartable one) starts it the same way.
 */
export function neo4jJavaArgs(port: number, home: string, options: Neo4jOptions = {}): string[] {
  const jvmArgs = options.forThroughput
    ? [
        '-Xlog:disable',
        '-Xlog:all=error:stderr',
        '-Xms2g',
        '-Xmx2g',
        ...(options.quickJit ? ['-XX:TieredStopAtLevel=1'] : []),
        '--add-opens=java.base/java.nio=ALL-UNNAMED',
      ]
    : [
        ...(existsSync(CDS_ARCHIVE) ? [`-XX:SharedArchiveFile=${CDS_ARCHIVE}`] : []),
        // JVM warnings (e.g. a stale CDS archive, which is then just not used) would otherwise go to stdout.
        '-Xlog:disable',
        '-Xlog:all=error:stderr',
        '-Xms512m',
        '-Xmx512m',
        '-XX:+UseSerialGC',
        // C1 only: a much faster start-up, and test queries are too few for C2 to pay off.
        '-XX:TieredStopAtLevel=1',
        '--add-opens=java.base/java.nio=ALL-UNNAMED',
      ];
  return [
    ...jvmArgs,
    '-jar',
    NEO4J_LAUNCHER_JAR,
    String(port),
    home,
    ...(options.testProcedures ? ['--test-procedures'] : []),
  ];
}

/**
 * Starts Neo4j 5.26 Community (embedded, see neo4j/) with Bolt on a free loopback port and a fresh data
 * dir. The launcher also exits when its stdin closes, so it dies with the test process.
 */
export async function startNeo4j(options: Neo4jOptions = {}): Promise<Neo4jServer> {
  if (!existsSync(NEO4J_LAUNCHER_JAR)) {
    throw new Error(`${NEO4J_LAUNCHER_JAR} is missing: run scripts/install-test-deps.sh`);
  }
  const port = await freePort();
  const home = await mkdtemp(path.join(os.tmpdir(), 'pks-neo4j-'));
  const child = spawn('java', neo4jJavaArgs(port, home, options), {
    stdio: ['pipe', 'pipe', 'pipe'], // stdin stays open: its EOF tells the launcher to exit
  });

  let output = '';
  const collect = (chunk: Buffer): void => {
    output = (output + chunk.toString('utf8')).slice(-OUTPUT_TAIL_CHARS);
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  child.stdin.on('error', () => {}); // EPIPE once the child is gone

  let exitInfo: string | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exitInfo = `exit code ${code ?? 'none'}, signal ${signal ?? 'none'}`;
      resolve();
    });
  });
  const killOnExit = (): void => {
    child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      process.removeListener('exit', killOnExit);
      if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
        await exited;
        clearTimeout(timer);
      }
      await rm(home, { recursive: true, force: true });
    })();
    return stopping;
  };

  const boltUri = await new Promise<string>((resolve, reject) => {
    const fail = (why: string): void => {
      cleanup();
      reject(new Error(`Neo4j launcher ${why}; output:\n${output}`));
    };
    const onData = (): void => {
      const match = /^NEO4J_READY (bolt:\/\/\S+)$/m.exec(output);
      if (match?.[1] !== undefined) {
        cleanup();
        resolve(match[1]);
      }
    };
    const onExit = (): void => fail(`exited before it was ready (${exitInfo ?? 'unknown'})`);
    const onError = (err: Error): void => fail(`could not be spawned (${err.message})`);
    const timer = setTimeout(() => fail(`was not ready within ${START_DEADLINE_MS} ms`), START_DEADLINE_MS);
    const cleanup = (): void => {
      clearTimeout(timer);
      child.stdout.off('data', onData);
      child.off('exit', onExit);
      child.off('error', onError);
    };
    child.stdout.on('data', onData);
    child.once('exit', onExit);
    child.once('error', onError);
  }).catch(async (err: unknown) => {
    await stop();
    throw err;
  });

  return { boltUri, username: 'neo4j', password: 'neo4j-test-password', pid: child.pid ?? -1, stop };
}

/** The `GRAPHDB_*` settings that point pksd at this Neo4j. */
export function graphEnv(server: Pick<Neo4jServer, 'boltUri' | 'username' | 'password'>): Record<string, string> {
  return { GRAPHDB_URI: server.boltUri, GRAPHDB_USERNAME: server.username, GRAPHDB_PASSWORD: server.password };
}

/** A graph client of the server for this Neo4j, as `GRAPHDB_*` settings pointing at it would build. */
export function graphClientFor(server: Pick<Neo4jServer, 'boltUri' | 'username' | 'password'>): GraphClient {
  return createGraphClient({
    uri: server.boltUri,
    username: server.username,
    password: server.password,
    database: null,
  });
}

/** Runs one statement on the server through a driver of its own (what a test checks the graph with). */
export async function cypherRows(
  server: Pick<Neo4jServer, 'boltUri' | 'username' | 'password'>,
  cypher: string,
  params: Record<string, unknown> = {},
): Promise<Record<string, unknown>[]> {
  const driver = neo4j.driver(server.boltUri, neo4j.auth.basic(server.username, server.password));
  try {
    const res = await driver.executeQuery(cypher, params);
    return res.records.map((r) => r.toObject() as Record<string, unknown>);
  } finally {
    await driver.close();
  }
}

/** The Neo4j of a test file and a graph client of it. */
export interface Neo4jFixture {
  readonly server: Neo4jServer;
  readonly graph: GraphClient;
}

/**
 * Starts one Neo4j for the calling test file (in `beforeAll`, so before the file's own hooks) with a graph client,
 * and closes both afterwards; the returned fixture's properties are for use inside tests and hooks.
 */
export function useNeo4j(options: Neo4jOptions = {}): Neo4jFixture {
  const current = useFixture(
    'Neo4j',
    async (): Promise<Neo4jFixture> => {
      const server = await startNeo4j(options);
      return { server, graph: graphClientFor(server) };
    },
    async ({ server, graph }) => {
      await graph.close();
      await server.stop();
    },
  );
  return {
    get server() {
      return current().server;
    },
    get graph() {
      return current().graph;
    },
  };
}
