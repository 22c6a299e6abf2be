/**
 * Fault injection on real processes: stop (SIGSTOP, the process freezes with its state), continue (SIGCONT), kill
 * (SIGKILL), and waiting for a condition without sleeping blindly.
 */
import type { ChildProcess } from 'node:child_process';

/** Resolves once `condition` holds (checked every `everyMs`); rejects after `timeoutMs` naming `what`. */
export async function until(
  what: string,
  condition: () => Promise<boolean> | boolean,
  timeoutMs = 30_000,
  everyMs = 50,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** Resolves when the child has exited (at once when it already has). */
export function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

export function isRunning(child: ChildProcess): boolean {
  return child.pid !== undefined && child.exitCode === null && child.signalCode === null;
}

/** SIGKILL and wait for the exit. */
export async function killHard(child: ChildProcess): Promise<void> {
  if (!isRunning(child)) return;
  const done = exited(child);
  child.kill('SIGKILL');
  await done;
}
