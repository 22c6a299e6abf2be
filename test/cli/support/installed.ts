/**
 * Runs an installed copy of the package (from `npm pack` or the served installer): `pksd serve` on a free port with
 * its directories in a temp dir, and the environment reduced to PATH and HOME as on a fresh machine.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { freePort } from '../../support/free-port.js';
import { dirSettings } from '../../support/server.js';

export interface InstalledServer {
  readonly url: string;
  stop(): Promise<void>;
}

/** Starts `<binDir>/pksd serve` and resolves once it listens (rejects with its output if it exits first). */
export async function startInstalledPksd(binDir: string, dir: string): Promise<InstalledServer> {
  const port = await freePort();
  const child = spawn(path.join(binDir, 'pksd'), ['serve'], {
    cwd: dir,
    env: {
      // The Node the tests run on (the project needs Node 24; /usr/bin may hold an older one).
      PATH: `${binDir}:${path.dirname(process.execPath)}:/usr/bin:/bin`,
      HOME: dir,
      ...dirSettings(dir),
      SVC_HTTP_ADDR: `127.0.0.1:${port}`,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const deadline = Date.now() + 60_000;
  await new Promise<void>((resolve, reject) => {
    const check = () => {
      if (output.includes('pksd listening on')) return resolve();
      if (child.exitCode !== null || child.signalCode !== null) {
        return reject(new Error(`pksd serve exited (${child.exitCode ?? child.signalCode}): ${output}`));
      }
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        return reject(new Error(`pksd serve did not listen within 60 s: ${output}`));
      }
      setTimeout(check, 50);
    };
    check();
  });
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
