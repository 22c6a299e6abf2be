/** What the user-database test files share: temp directories removed after the file. */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';

/** `tempDir()` for the calling file (call it at module level): fresh directories, all removed after the file. */
export function useTempDirs(prefix: string): () => Promise<string> {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });
  return async () => {
    const d = await mkdtemp(path.join(os.tmpdir(), prefix));
    dirs.push(d);
    return d;
  };
}
