import { spawn } from 'node:child_process';
import { useFixture } from './fixture.js';
import { freePort } from './free-port.js';
import { VENV_PYTHON } from './python.js';

export interface MotoServer {
  /** e.g. http://127.0.0.1:40123; use with `forcePathStyle: true`. */
  readonly endpoint: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly region: string;
  stop(): Promise<void>;
}

// `python -m moto.server` (the project venv), plus a watchdog that exits when stdin closes, so the server dies with the test
// process even when that one is killed without running its exit handlers. S3 makes a conditional write
// (If-None-Match: *, If-Match) one atomic step; moto's threaded server checks the condition, then writes, with
// nothing between them, so two concurrent creates could both succeed (seen once beside two CPU-bound processes):
// one lock around its object PUT and POST handlers (the body is read before they run) restores S3's behaviour.
export const MOTO_MAIN = `
import os, sys, threading
from moto.server import main
from moto.s3.responses import S3Response
write_lock = threading.Lock()
def atomic(handler):
    def locked(self, *args, **kwargs):
        with write_lock:
            return handler(self, *args, **kwargs)
    return locked
S3Response.put_object = atomic(S3Response.put_object)
S3Response._key_response_post = atomic(S3Response._key_response_post)
def exit_on_stdin_eof():
    sys.stdin.buffer.read()
    os._exit(0)
threading.Thread(target=exit_on_stdin_eof, daemon=True).start()
main(sys.argv[1:])
`;
const START_DEADLINE_MS = 30_000;
const OUTPUT_TAIL_CHARS = 16_000;

/** Starts moto's S3-compatible server on a free loopback port. */
export async function startMoto(): Promise<MotoServer> {
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}`;
  const child = spawn(VENV_PYTHON, ['-c', MOTO_MAIN, '-H', '127.0.0.1', '-p', String(port)], {
    stdio: ['pipe', 'pipe', 'pipe'], // stdin stays open: its EOF tells the server to exit
    env: { ...process.env, PYTHONUNBUFFERED: '1' },
  });
  child.stdin.on('error', () => {}); // EPIPE once the child is gone

  // Keep draining both pipes for the server's whole life (a full pipe would block it), remembering the tail.
  let output = '';
  const collect = (chunk: Buffer): void => {
    output = (output + chunk.toString('utf8')).slice(-OUTPUT_TAIL_CHARS);
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);

  let exitInfo: string | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exitInfo = `exit code ${code ?? 'none'}, signal ${signal ?? 'none'}`;
      resolve();
    });
  });
  child.once('error', (err) => {
    exitInfo = `spawn failed: ${err.message}`;
  });
  const killOnExit = (): void => {
    child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);

  const stop = async (): Promise<void> => {
    process.removeListener('exit', killOnExit);
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
  };

  const deadline = Date.now() + START_DEADLINE_MS;
  for (;;) {
    if (exitInfo !== undefined) {
      await stop();
      throw new Error(`moto server exited before it answered (${exitInfo}); output:\n${output}`);
    }
    try {
      await fetch(`${endpoint}/moto-api/`, { signal: AbortSignal.timeout(1_000) });
      break; // any HTTP answer means it is serving
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`moto server did not answer on ${endpoint} within ${START_DEADLINE_MS} ms; output:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  return { endpoint, accessKeyId: 'testing', secretAccessKey: 'testing', region: 'us-east-1', stop };
}

/**
 * Starts one moto server for the calling test file (in `beforeAll`) and stops it afterwards; returns a getter for
 * use inside tests and hooks.
 */
export function useMoto(): () => MotoServer {
  return useFixture('moto', startMoto, (server) => server.stop());
}
