/**
 * Runs the built `bin/pks` (run `npm run build` first) as a child process with a private HOME, and nothing of
 * the real environment but PATH.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../../support/server.js';

// `waitForOutput` takes a `PksRun` as it takes the pksd run it is written for.
export { REPO_ROOT, waitForOutput } from '../../support/server.js';
export const PKS_BIN = path.join(REPO_ROOT, 'bin/pks');

export interface PksHome {
  /** HOME of the runs. */
  readonly home: string;
  /** The working directory of the runs (inside `home`). */
  readonly cwd: string;
  /** `<home>/.config/pks` (XDG_CONFIG_HOME unset). */
  readonly configDir: string;
  readonly configPath: string;
  readonly hostsPath: string;
  /** Extra environment for every run (e.g. XDG_CONFIG_HOME, a PATH with fake tools). */
  env: Record<string, string>;
  cleanup(): void;
}

export function makeHome(): PksHome {
  const home = mkdtempSync(path.join(os.tmpdir(), 'pks-home-'));
  const cwd = path.join(home, 'work');
  mkdirSync(cwd);
  const configDir = path.join(home, '.config', 'pks');
  return {
    home,
    cwd,
    configDir,
    configPath: path.join(configDir, 'config.yaml'),
    hostsPath: path.join(configDir, 'hosts.yml'),
    env: {},
    cleanup: () => rmSync(home, { recursive: true, force: true }),
  };
}

/** Writes `config.yaml` as given (creating the directory). */
export function writeConfig(h: PksHome, text: string): void {
  mkdirSync(h.configDir, { recursive: true, mode: 0o700 });
  writeFileSync(h.configPath, text, { mode: 0o600 });
}

export const readText = (file: string) => readFileSync(file, 'utf8');

export interface PksResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly stdoutBytes: Buffer;
}

export interface PksRun {
  readonly child: ChildProcess;
  readonly done: Promise<PksResult>;
  output(): { stdout: string; stderr: string };
}

export function spawnPks(
  h: PksHome,
  args: readonly string[],
  options: { stdin?: string | Buffer; cwd?: string; env?: Record<string, string> } = {},
): PksRun {
  const child = spawn(process.execPath, [PKS_BIN, ...args], {
    cwd: options.cwd ?? h.cwd,
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: h.home, ...h.env, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const out: Buffer[] = [];
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => out.push(d));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  if (options.stdin !== undefined) child.stdin!.end(options.stdin);
  else child.stdin!.end();
  const done = new Promise<PksResult>((resolve) =>
    child.on('close', (code, signal) => {
      const bytes = Buffer.concat(out);
      resolve({ code, signal, stdout: bytes.toString('utf8'), stderr, stdoutBytes: bytes });
    }),
  );
  return { child, done, output: () => ({ stdout: Buffer.concat(out).toString('utf8'), stderr }) };
}

/** Runs `pks` to completion. */
export function pks(
  h: PksHome,
  args: readonly string[],
  options: { stdin?: string | Buffer; cwd?: string; env?: Record<string, string> } = {},
): Promise<PksResult> {
  return spawnPks(h, args, options).done;
}

/** Points the client at `serverUrl` and stores `token` for it (`config set` + `auth login --with-token`). */
export async function loginWithToken(h: PksHome, serverUrl: string, token: string): Promise<void> {
  const set = await pks(h, ['config', 'set', 'server_url', serverUrl]);
  if (set.code !== 0) throw new Error(`config set failed: ${set.stderr}`);
  const login = await pks(h, ['auth', 'login', '--with-token'], { stdin: `${token}\n` });
  if (login.code !== 0) throw new Error(`login failed: ${login.stderr}`);
}

/** A fresh home whose client points at `serverUrl` with `token` stored. */
export async function loggedInHome(serverUrl: string, token: string): Promise<PksHome> {
  const h = makeHome();
  await loginWithToken(h, serverUrl, token);
  return h;
}
