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

/** A service process a fault test stops, kills and starts again on the same address. */
export interface FaultProcess {
  /** The current process (replaced by `restart`). */
  readonly child: ChildProcess;
  /** SIGSTOP: the service stops answering but keeps its state. */
  freeze(): void;
  /** SIGCONT. */
  thaw(): void;
  /** SIGKILL: whatever the service held only in memory is gone. */
  kill(): Promise<void>;
  /** A new process with the same settings (after `kill`). */
  restart(): Promise<void>;
  /** Kills it for good and runs the wrapper's own cleanup. */
  stop(): Promise<void>;
}

/**
 * Starts `spawnService()` and waits for `ready(child)`; `restart` does both again. The process is killed when the
 * test process exits, in case `stop` is never reached.
 */
export async function startFaultProcess(
  spawnService: () => ChildProcess,
  ready: (child: ChildProcess) => Promise<void>,
  cleanup: () => Promise<void> = async () => undefined,
): Promise<FaultProcess> {
  let child: ChildProcess;
  const launch = async (): Promise<void> => {
    child = spawnService();
    await ready(child);
  };
  await launch();
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  return {
    get child() {
      return child;
    },
    freeze: () => void child.kill('SIGSTOP'),
    thaw: () => void child.kill('SIGCONT'),
    kill: () => killHard(child),
    restart: launch,
    async stop() {
      process.removeListener('exit', killOnExit);
      // A frozen process would otherwise keep its signals pending until continued.
      child.kill('SIGCONT');
      await killHard(child);
      await cleanup();
    },
  };
}
