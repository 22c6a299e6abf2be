import { afterAll, beforeAll } from 'vitest';

/**
 * Starts `what` for the tests of the calling file or describe block (in `beforeAll`, so before the hooks registered
 * after this call) and stops it after them; returns a getter of the running thing, for use inside tests and hooks.
 */
export function useFixture<T>(
  what: string,
  start: () => Promise<T>,
  stop: (running: T) => Promise<void>,
  startTimeoutMs?: number,
): () => T {
  let running: T | undefined;
  beforeAll(async () => {
    running = await start();
  }, startTimeoutMs);
  afterAll(async () => {
    if (running !== undefined) await stop(running);
  });
  return () => {
    if (running === undefined) throw new Error(`${what} is not running (fixture used outside a test)`);
    return running;
  };
}
