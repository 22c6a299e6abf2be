/**
 * A small, size-limited file system for "disk full" tests: a tmpfs with `size=` mounted (as root) on a directory of
 * the test and unmounted afterwards. `canMount()` says up front whether this machine allows it.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** `null` when mounting works here, else why not (the skip reason). */
export function whyCannotMount(): string | null {
  const probe = mkdtempSync(path.join(os.tmpdir(), 'pks-mount-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe], { stdio: 'pipe' });
    execFileSync('umount', [probe], { stdio: 'pipe' });
    return null;
  } catch (err) {
    const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim();
    return `cannot mount a tmpfs here (${stderr || (err as Error).message})`;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}

export interface SmallFs {
  readonly dir: string;
  unmount(): void;
}

/** Mounts a tmpfs of `bytes` on `dir` (created when missing). */
export function mountSmallFs(dir: string, bytes: number): SmallFs {
  mkdirSync(dir, { recursive: true });
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes},mode=0755`, 'tmpfs', dir], { stdio: 'pipe' });
  let mounted = true;
  return {
    dir,
    unmount() {
      if (!mounted) return;
      execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
      mounted = false;
    },
  };
}
