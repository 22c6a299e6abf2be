/**
 * Temp files that name their owner, and the start-time cleanup of those a crash left behind.
 *
 * Only `pksd serve` takes `pksd.lock`, and it is on `SVC_DB_DATA_DIR`: other pksd commands (and, misconfigured, a
 * second server with its own database directory) may use the same `SVC_DATA_DIR` / `SVC_RAW_DIR` at the same time.
 * Removing every temp file at start could therefore delete a file another live process is still writing. Instead
 * each temp file is named `<prefix><pid>-<host>-<random>`, and the cleanup removes a file when
 *
 * - its owner ran on this host and is gone (no such pid), or has this process's pid (a restarted container's
 *   server usually gets the pid its killed predecessor had: the file cannot be ours, we have not written any), or
 * - it was last modified more than `maxAgeMs` ago (owners on other hosts sharing the directory, reused pids,
 *   names without an owner).
 */
import { randomBytes } from 'node:crypto';
import { readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** The host part of owner tags: the host name reduced to `[A-Za-z0-9-]`, at most 40 characters. */
function hostTag(): string {
  return (
    os
      .hostname()
      .replace(/[^A-Za-z0-9-]/g, '-')
      .slice(0, 40) || 'host'
  );
}

const HOST = hostTag();

/** A fresh temp file name owned by this process: `<prefix><pid>-<host>-<24 hex>`. */
export function ownedTempName(prefix = ''): string {
  return `${prefix}${process.pid}-${HOST}-${randomBytes(12).toString('hex')}`;
}

function parseOwner(name: string, prefix: string): { pid: number; host: string } | null {
  if (!name.startsWith(prefix)) return null;
  const m = /^(\d+)-([A-Za-z0-9-]*)-[0-9a-f]{24}$/.exec(name.slice(prefix.length));
  return m ? { pid: Number(m[1]), host: m[2]! } : null;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether a temp file named `name` belongs to a process that is certainly gone (see the module comment). */
export function ownerGone(name: string, prefix = ''): boolean {
  const owner = parseOwner(name, prefix);
  if (owner === null || owner.host !== HOST || owner.pid <= 0) return false;
  return owner.pid === process.pid || !processAlive(owner.pid);
}

export interface StaleTempOptions {
  /** Only entries whose name starts with this are considered (default: every entry). */
  readonly prefix?: string;
  /** Entries last modified longer ago than this are removed whoever owns them. */
  readonly maxAgeMs: number;
  readonly now?: number;
}

/** Removes the stale entries (files or directories) of `dir`; returns the names removed. Never throws for an entry. */
export async function removeStaleTemps(dir: string, options: StaleTempOptions): Promise<string[]> {
  const prefix = options.prefix ?? '';
  const cutoff = (options.now ?? Date.now()) - options.maxAgeMs;
  const removed: string[] = [];
  for (const name of await readdir(dir)) {
    if (!name.startsWith(prefix)) continue;
    const p = path.join(dir, name);
    try {
      if (ownerGone(name, prefix) || (await stat(p)).mtimeMs < cutoff) {
        await rm(p, { recursive: true, force: true });
        removed.push(name);
      }
    } catch {
      // raced with its owner finishing or another cleanup: nothing to do
    }
  }
  return removed;
}
