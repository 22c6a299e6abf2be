/**
 * Local git operations on the wiki checkout (CONTRACT §13.4): inspection without network, and the running of git
 * with a bounded time. No HTTP here; callers map failures to statuses.
 */
import { execFile } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { rfc3339 } from '../../shared/time.js';

/** Per-command limits of CONTRACT §13.4. */
export const STATUS_GIT_TIMEOUT_MS = 2_000;
export const PULL_GIT_TIMEOUT_MS = 30_000;

export interface CheckoutState {
  /** 7-char short hash of HEAD; `null` on a repository without commits. */
  readonly commit: string | null;
  readonly commitTime: string | null;
  /** `null` when HEAD is detached. */
  readonly branch: string | null;
  readonly dirty: boolean;
}

export interface GitResult {
  /** Exit code; `null` when git was killed (timeout). */
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
}

/** git itself could not be run (not installed, not executable). */
export class GitUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GitUnavailableError';
  }
}

/**
 * Runs `git -C dir <args>` and resolves with its outcome whatever the exit code; rejects only with
 * `GitUnavailableError`. The child gets, on top of the inherited environment, `GIT_TERMINAL_PROMPT=0` (never wait on a
 * terminal), `GIT_OPTIONAL_LOCKS=0` (status never writes the index of a checkout we treat as read-only) and
 * `LC_ALL=C` (stable messages); they are set through `env(1)` so this process never reads its own environment.
 * `core.askPass=true` answers any credential prompt with nothing, so a remote that wants a password fails fast.
 */
export function runGit(
  dir: string,
  args: readonly string[],
  timeoutMs: number = PULL_GIT_TIMEOUT_MS,
): Promise<GitResult> {
  const argv = [
    'GIT_TERMINAL_PROMPT=0',
    'GIT_OPTIONAL_LOCKS=0',
    'LC_ALL=C',
    'git',
    '-c',
    'core.askPass=true',
    '-C',
    dir,
    ...args,
  ];
  return new Promise((resolve, reject) => {
    execFile(
      'env',
      argv,
      { timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 16 * 1024 * 1024, encoding: 'utf8' },
      (err, stdout, stderr) => {
        if (!err) return resolve({ code: 0, stdout, stderr, timedOut: false });
        const e = err as { code?: string | number; killed?: boolean; signal?: string | null; message: string };
        if (e.code === 'ENOENT' || e.code === 'EACCES')
          return reject(new GitUnavailableError(`cannot run git: ${e.message}`));
        // env(1) exits 127 when the program is not found and 126 when it cannot be executed.
        if ((e.code === 127 || e.code === 126) && /env: .*git/.test(stderr)) {
          return reject(new GitUnavailableError(`cannot run git: ${stderr.trim()}`));
        }
        if (e.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') {
          return resolve({ code: null, stdout, stderr: `${stderr}\noutput too large`, timedOut: false });
        }
        const timedOut = e.killed === true || e.signal === 'SIGKILL';
        resolve({
          code: typeof e.code === 'number' ? e.code : null,
          stdout,
          stderr: timedOut
            ? `${stderr.trim()}${stderr.trim() ? '; ' : ''}timed out after ${timeoutMs / 1000} s`
            : stderr,
          timedOut,
        });
      },
    );
  });
}

/** Runs git in `dir`; resolves to stdout, rejects with git's message on failure. */
export async function git(dir: string, args: readonly string[], timeoutMs = 10_000): Promise<string> {
  const result = await runGit(dir, args, timeoutMs);
  if (result.code !== 0) throw new Error(result.stderr.trim() || `git ${args.join(' ')} failed`);
  return result.stdout;
}

export async function directoryExists(dir: string): Promise<boolean> {
  try {
    return (await stat(dir)).isDirectory();
  } catch {
    return false;
  }
}

/** Whether `dir` is inside a git work tree (git's own notion, so a sub-directory of a checkout counts). */
export async function isWorkTree(dir: string, timeoutMs = STATUS_GIT_TIMEOUT_MS): Promise<boolean> {
  const result = await runGit(dir, ['rev-parse', '--is-inside-work-tree'], timeoutMs);
  return result.code === 0 && result.stdout.trim() === 'true';
}

/** Full hash of HEAD, `null` when there is none (not a repository, no commits, git failing). */
export async function headCommit(dir: string, timeoutMs = STATUS_GIT_TIMEOUT_MS): Promise<string | null> {
  const result = await runGit(dir, ['rev-parse', '--verify', '--quiet', 'HEAD'], timeoutMs);
  const hash = result.stdout.trim();
  return result.code === 0 && /^[0-9a-f]{40,64}$/.test(hash) ? hash : null;
}

/** `git status --porcelain` is non-empty (untracked files count). */
export async function isDirty(dir: string, timeoutMs: number): Promise<boolean> {
  const result = await runGit(dir, ['status', '--porcelain'], timeoutMs);
  if (result.code !== 0) throw new Error(result.stderr.trim() || 'git status failed');
  return result.stdout.trim() !== '';
}

/** A git date as RFC 3339 UTC with second precision; `null` when it does not parse. */
export function utcSeconds(time: string): string | null {
  const d = new Date(time);
  return Number.isNaN(d.getTime()) ? null : rfc3339(d);
}

/** Local-only inspection of a wiki checkout (never contacts a remote). Throws when it is not a git work tree. */
export async function inspectCheckout(dir: string, timeoutMs = STATUS_GIT_TIMEOUT_MS): Promise<CheckoutState> {
  if (!(await isWorkTree(dir, timeoutMs))) throw new Error(`${dir} is not a git work tree`);
  const [head, branch, dirty] = await Promise.all([
    runGit(dir, ['log', '-1', '--format=%H %cI'], timeoutMs),
    runGit(dir, ['symbolic-ref', '--quiet', '--short', 'HEAD'], timeoutMs),
    isDirty(dir, timeoutMs),
  ]);
  const [hash, time] = head.code === 0 ? head.stdout.trim().split(' ') : [];
  return {
    commit: hash ? hash.slice(0, 7) : null,
    commitTime: time ? utcSeconds(time) : null,
    branch: branch.code === 0 ? branch.stdout.trim() || null : null,
    dirty,
  };
}
