/**
 * The `npm pack` tarball of the running package, which pksd offers at `/dist/pks-<version>.tgz` so that its
 * installer can install exactly this server (issue 13). A package cannot contain its own tarball, so it is built on
 * the first request into `<SVC_DATA_DIR>/dist/` with the npm found on the server's PATH, once per process (a
 * rebuilt checkout with an unchanged version is packed afresh after a restart), one build at a time. Its SHA-256 is
 * taken once, as packed: a file changed on disk afterwards no longer matches the published digest.
 */
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { UnavailableError } from '../../shared/domain-errors.js';

/** The directory holding the running package's `package.json` (`src/server/distribution` or its `dist/` twin). */
export const PACKAGE_ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** A failed build is not retried for this long: every try spawns npm, and the route is public. */
const FAILURE_COOLDOWN_MS = 60_000;
/** `npm pack` of a local directory needs no network; one that takes longer than this is stuck. */
const PACK_TIMEOUT_MS = 120_000;

export interface TarballFile {
  readonly path: string;
  readonly size: number;
  /** SHA-256 (hex) of the bytes as packed: `/dist/<tarball>.sha256` publishes it for the installer to check. */
  readonly sha256: string;
}

export interface PackageTarballOptions {
  /** `<SVC_DATA_DIR>/dist`. */
  readonly dir: string;
  /** The file name to serve, `pks-<version>.tgz`. */
  readonly fileName: string;
  /** The package directory to pack (default: the running package). */
  readonly packageRoot?: string;
  /** The npm executable (default: `npm` on the PATH). */
  readonly npm?: string;
  readonly now?: () => number;
}

export class PackageTarball {
  private built: Promise<TarballFile> | null = null;
  private failure: { error: UnavailableError; at: number } | null = null;
  private readonly now: () => number;

  constructor(private readonly options: PackageTarballOptions) {
    this.now = options.now ?? Date.now;
  }

  /** The tarball on disk, packing it first when this process has not (or the file has gone since). */
  async file(): Promise<TarballFile> {
    if (this.failure && this.now() - this.failure.at < FAILURE_COOLDOWN_MS) throw this.failure.error;
    this.built ??= this.build();
    try {
      const built = await this.built;
      const current = await stat(built.path).catch(() => null);
      if (current?.isFile()) return { ...built, size: current.size };
      this.built = null;
      return await this.file();
    } catch (err) {
      this.built = null;
      if (err instanceof UnavailableError) this.failure = { error: err, at: this.now() };
      throw err;
    }
  }

  private async build(): Promise<TarballFile> {
    const { dir, fileName } = this.options;
    await mkdir(dir, { recursive: true });
    await removeLeftovers(dir, this.now());
    const work = path.join(dir, `.pack-${randomBytes(6).toString('hex')}`);
    await mkdir(work);
    try {
      const produced = await this.pack(work);
      const target = path.join(dir, fileName);
      await rename(path.join(work, produced), target);
      return { path: target, size: (await stat(target)).size, sha256: await sha256Of(target) };
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }

  /** Runs `npm pack` into `destination`; returns the file name npm wrote. */
  private pack(destination: string): Promise<string> {
    const npm = this.options.npm ?? 'npm';
    const args = ['pack', '--json', '--ignore-scripts', '--no-update-notifier', '--pack-destination', destination];
    return new Promise((resolve, reject) => {
      const child = spawn(npm, args, {
        cwd: this.options.packageRoot ?? PACKAGE_ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: PACK_TIMEOUT_MS,
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      // The spawn error is not kept as the cause: its `path` (`npm`) would be scrubbed from the answer as a server path.
      child.on('error', (err: NodeJS.ErrnoException) =>
        reject(
          unavailable(
            err.code === 'ENOENT'
              ? 'npm is not installed on the server (not found on its PATH)'
              : `npm could not be started: ${err.code ?? err.message}`,
          ),
        ),
      );
      child.on('close', (code, signal) => {
        if (code !== 0) {
          const why = signal ? `stopped by ${signal}` : `exit code ${code}`;
          return reject(unavailable(`npm pack failed (${why}): ${lastErrorLine(stderr)}`));
        }
        const name = packedFileName(stdout);
        if (name === null) return reject(unavailable('npm pack did not report the file it wrote'));
        resolve(name);
      });
    });
  }
}

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

const unavailable = (reason: string) =>
  new UnavailableError(`package tarball unavailable: ${reason}`, { retryAfterSeconds: FAILURE_COOLDOWN_MS / 1000 });

/** `npm pack --json` prints `[{"filename": …}]` (npm may print notices before it). */
function packedFileName(stdout: string): string | null {
  const start = stdout.indexOf('[');
  if (start < 0) return null;
  try {
    const [first] = JSON.parse(stdout.slice(start)) as { filename?: unknown }[];
    const name = first?.filename;
    return typeof name === 'string' && path.basename(name) === name ? name : null;
  } catch {
    return null;
  }
}

/** The last meaningful line npm wrote to stderr, without its `npm error` prefix. */
function lastErrorLine(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.replace(/^npm (?:error|ERR!)\s*/, '').trim())
    .filter((l) => l !== '' && !/^A complete log of this run/.test(l));
  return (lines.at(-1) ?? 'no error output').slice(0, 300);
}

/** Work directories of builds a crash interrupted (old enough not to be another process's build in flight). */
async function removeLeftovers(dir: string, now: number): Promise<void> {
  const names = (await readdir(dir)).filter((n) => n.startsWith('.pack-'));
  for (const name of names) {
    const work = path.join(dir, name);
    const info = await stat(work).catch(() => null);
    if (info && now - info.mtimeMs > 2 * PACK_TIMEOUT_MS) await rm(work, { recursive: true, force: true });
  }
}
