import { runPksd } from '../../src/server/main.js';

export interface CapturedRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `pksd` in-process with the given settings environment and working directory. */
export async function pksd(
  argv: readonly string[],
  env: Record<string, string> = {},
  cwd = '/nonexistent-cwd',
): Promise<CapturedRun> {
  let stdout = '';
  let stderr = '';
  const code = await runPksd(argv, {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    base: { env, cwd, home: '/home/tester' },
  });
  return { code, stdout, stderr };
}
