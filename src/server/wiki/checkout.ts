import { execFile } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface CheckoutState {
  /** 7-char short hash of HEAD; `null` on a repository without commits. */
  readonly commit: string | null;
  readonly commitTime: string | null;
  /** `null` when HEAD is detached. */
  readonly branch: string | null;
  readonly dirty: boolean;
}

/**
 * Runs `git` in `dir`; rejects with git's message on failure. `core.askPass=true` answers any credential
 * prompt with nothing, so a remote that wants a password fails fast instead of waiting on a terminal.
 */
export async function git(dir: string, args: readonly string[], timeoutMs = 10_000): Promise<string> {
  try {
    const { stdout } = await run('git', ['-c', 'core.askPass=true', '-C', dir, ...args], {
      timeout: timeoutMs,
      maxBuffer: 16 * 1024 * 1024,
    });
    return stdout;
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error((e.stderr ?? '').trim() || e.message);
  }
}

export async function directoryExists(dir: string): Promise<boolean> {
  try {
    return (await stat(dir)).isDirectory();
  } catch {
    return false;
  }
}

/** Local-only inspection of a wiki checkout (never contacts a remote). Throws when it is not a git work tree. */
export async function inspectCheckout(dir: string): Promise<CheckoutState> {
  const inside = (await git(dir, ['rev-parse', '--is-inside-work-tree'])).trim();
  if (inside !== 'true') throw new Error(`${dir} is not a git work tree`);
  const [head, branch, status] = await Promise.all([
    git(dir, ['log', '-1', '--format=%H %cI']).catch(() => ''),
    git(dir, ['symbolic-ref', '--quiet', '--short', 'HEAD']).catch(() => ''),
    git(dir, ['status', '--porcelain', '--untracked-files=normal']),
  ]);
  const [hash, time] = head.trim().split(' ');
  return {
    commit: hash ? hash.slice(0, 7) : null,
    commitTime: time ? new Date(time).toISOString().replace(/\.\d{3}Z$/, 'Z') : null,
    branch: branch.trim() || null,
    dirty: status.trim() !== '',
  };
}
