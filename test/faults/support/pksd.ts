/**
 * A real `pksd serve` process (the built `bin/pksd`, `npm run build` first) for fault tests: its directories in a
 * temp dir, settings from the test, and the uploads a test needs — including one whose body the test finishes when
 * it wants, so a fault can be injected while the server is receiving or storing it.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../support/free-port.js';
import {
  dirSettings,
  REPO_ROOT,
  runPksdChild,
  spawnPksd,
  waitForOutput,
  type ChildResult,
} from '../../support/server.js';
import { isRunning, killHard } from './processes.js';

export const PAT = 'fault-test-system-pat';
export const AUTH = { Authorization: `Bearer ${PAT}` };
export const pdfBytes = (text: string, size = 0): Buffer => {
  const head = Buffer.from(`%PDF-1.7\n${text}\n`);
  return Buffer.concat([head, Buffer.alloc(Math.max(0, size - head.length - 6), 0x20), Buffer.from('%%EOF\n')]);
};

export interface Pksd {
  readonly url: string;
  readonly port: number;
  /** The temp directory holding raw/, data/, pb_data/ (removed by `remove`). */
  readonly dir: string;
  readonly env: Record<string, string>;
  readonly proc: ReturnType<typeof spawnPksd>;
  fetch(pathname: string, init?: RequestInit): Promise<Response>;
  /** stderr so far (pino JSON lines and the start-up lines). */
  stderr(): string;
  /** SIGTERM and wait. */
  stop(): Promise<void>;
  kill(): Promise<void>;
  /** Stops it if running and removes its directory. */
  remove(): Promise<void>;
}

export async function pksdDir(): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), 'pks-fault-'));
}

/** The settings of a pksd whose directories are in `dir`, listening on `port`. */
export function pksdEnv(dir: string, port: number, env: Record<string, string> = {}): Record<string, string> {
  return {
    HOME: dir,
    ...dirSettings(dir),
    SVC_HTTP_ADDR: `127.0.0.1:${port}`,
    SVC_SYSTEM_PAT: PAT,
    SVC_LOG_LEVEL: 'info',
    ...env,
  };
}

/** Starts `pksd serve` and resolves once it listens (`listenTimeoutMs`). */
export async function startPksd(
  settings: Record<string, string> = {},
  options: { dir?: string; port?: number; listenTimeoutMs?: number } = {},
): Promise<Pksd> {
  if (!existsSync(path.join(REPO_ROOT, 'dist/server/main.js'))) throw new Error('run `npm run build` first');
  const dir = options.dir ?? (await pksdDir());
  const port = options.port ?? (await freePort());
  const env = pksdEnv(dir, port, settings);
  const proc = spawnPksd(['serve'], env, dir);
  const url = `http://127.0.0.1:${port}`;
  const pksd: Pksd = {
    url,
    port,
    dir,
    env,
    proc,
    fetch: (pathname, init) => fetch(url + pathname, init),
    stderr: () => proc.output().stderr,
    async stop() {
      if (!isRunning(proc.child)) return;
      proc.child.kill('SIGTERM');
      await proc.done;
    },
    kill: () => killHard(proc.child),
    async remove() {
      await killHard(proc.child);
      if (options.dir === undefined) await rm(dir, { recursive: true, force: true });
    },
  };
  try {
    await waitForOutput(proc, (o) => o.stderr.includes('pksd listening on'), options.listenTimeoutMs ?? 30_000);
  } catch (err) {
    await pksd.remove();
    throw err;
  }
  return pksd;
}

/** Runs another pksd subcommand with the same settings (e.g. `papers sync --full --from-objects`). */
export function pksdCommand(pksd: Pick<Pksd, 'env' | 'dir'>, args: readonly string[]): Promise<ChildResult> {
  return runPksdChild(args, pksd.env, pksd.dir);
}

const BOUNDARY = '----pks-fault-test';

/** A complete upload-pdf request. */
export async function uploadPdf(pksd: Pick<Pksd, 'fetch'>, id: string, bytes: Buffer): Promise<Response> {
  const body = Buffer.concat([
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="pdf"; filename="p.pdf"\r\n` +
        `Content-Type: application/pdf\r\n\r\n`,
    ),
    bytes,
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
  return pksd.fetch(`/api/papers/${id}/upload-pdf`, {
    method: 'POST',
    headers: { ...AUTH, 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}` },
    body,
  });
}

export interface HeldUpload {
  /** Sends the rest of the body. */
  finish(): void;
  /** The answer (status, headers, body text); rejects when the connection fails. */
  readonly response: Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>;
}

/**
 * An upload-pdf whose body stops after `sendFirst` bytes of `bytes` until `finish()`: the server is receiving (and
 * staging) it meanwhile.
 */
export function heldUpload(port: number, id: string, bytes: Buffer, sendFirst: number): HeldUpload {
  const head = Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="pdf"; filename="p.pdf"\r\n` +
      `Content-Type: application/pdf\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  const request = http.request({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path: `/api/papers/${id}/upload-pdf`,
    headers: {
      ...AUTH,
      'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`,
      'Content-Length': String(head.length + bytes.length + tail.length),
    },
  });
  const response = new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>(
    (resolve, reject) => {
      request.on('error', reject);
      request.on('response', (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on('error', reject);
      });
    },
  );
  response.catch(() => undefined); // observed by the caller
  request.write(head);
  request.write(bytes.subarray(0, sendFirst));
  return {
    finish: () => request.end(Buffer.concat([bytes.subarray(sendFirst), tail])),
    response,
  };
}

/** Staged uploads in `<SVC_DATA_DIR>/tmp/` holding at least `minBytes` bytes. */
export async function stagedFiles(pksd: Pick<Pksd, 'dir'>, minBytes = 1): Promise<string[]> {
  const tmp = path.join(pksd.dir, 'data', 'tmp');
  const names = existsSync(tmp) ? await readdir(tmp) : [];
  const out: string[] = [];
  for (const n of names) if (((await stat(path.join(tmp, n)).catch(() => null))?.size ?? 0) >= minBytes) out.push(n);
  return out;
}

/** Every file left in `<SVC_DATA_DIR>/tmp/`, whatever its size. */
export async function stagingLeftovers(pksd: Pick<Pksd, 'dir'>): Promise<string[]> {
  const tmp = path.join(pksd.dir, 'data', 'tmp');
  return existsSync(tmp) ? readdir(tmp) : [];
}
