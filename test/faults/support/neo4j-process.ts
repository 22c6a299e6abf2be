/**
 * Neo4j on a port and data directory of the test's choosing, with its process exposed, so a test can stop it
 * (SIGSTOP/SIGCONT), kill it, and start it again on the same address with the same data — what an operator's restart
 * does. The harness in test/support/neo4j.ts picks both itself and removes the data on stop; this wrapper runs the
 * same launcher with the same JVM flags (`neo4jJavaArgs`).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../support/free-port.js';
import { NEO4J_LAUNCHER_JAR, neo4jJavaArgs } from '../../support/neo4j.js';
import { isRunning, startFaultProcess, until, type FaultProcess } from './processes.js';

export interface Neo4jProcess extends FaultProcess {
  readonly boltUri: string;
}

/** `restart` starts Neo4j again on the same port with the same data directory; `stop` removes that directory. */
export async function startNeo4jProcess(): Promise<Neo4jProcess> {
  if (!existsSync(NEO4J_LAUNCHER_JAR)) {
    throw new Error(`${NEO4J_LAUNCHER_JAR} is missing: run scripts/install-test-deps.sh`);
  }
  const port = await freePort();
  const home = await mkdtemp(path.join(os.tmpdir(), 'pks-fault-neo4j-'));
  let output = '';
  const controls = await startFaultProcess(
    () => {
      const child = spawn('java', neo4jJavaArgs(port, home), { stdio: ['pipe', 'pipe', 'pipe'] });
      child.stdin!.on('error', () => undefined);
      output = '';
      child.stdout!.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-16_000)));
      child.stderr!.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-16_000)));
      return child;
    },
    (child) =>
      until(
        'Neo4j to be ready',
        () => {
          if (!isRunning(child)) throw new Error(`Neo4j exited before it was ready:\n${output}`);
          return output.includes('NEO4J_READY');
        },
        120_000,
        100,
      ),
    () => rm(home, { recursive: true, force: true }),
  );
  // Object.assign keeps the `child` getter (a spread would copy its current value).
  return Object.assign(controls, { boltUri: `bolt://127.0.0.1:${port}` });
}
