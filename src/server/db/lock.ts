import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';

export class LockHeldError extends Error {}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes `<dir>/<name>` exclusively for this process: the file holds the owner's pid; a lock whose owner is gone
 * (killed) is taken over. Throws `LockHeldError` with `heldMessage` while another live process holds it. Returns
 * the release function.
 */
export function acquireFileLock(dir: string, name: string, heldMessage: string): () => void {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, name);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        rmSync(file, { force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number.parseInt(readFileSync(file, 'utf8').trim(), 10);
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && alive(owner)) {
        throw new LockHeldError(heldMessage);
      }
      // Stale: its owner died without releasing it.
      rmSync(file, { force: true });
    }
  }
  throw new LockHeldError(heldMessage);
}

/** Takes `<dir>/pksd.lock` exclusively for this process (CONTRACT §1.4). Returns the release function. */
export function acquireServerLock(dir: string): () => void {
  return acquireFileLock(dir, 'pksd.lock', `pksd: another pksd process is using ${dir}`);
}
