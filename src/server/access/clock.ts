/**
 * Time for the paper-access machinery: cooldowns, rate limiting, backoff and polling all read `now()` and wait
 * through `sleep()`, so tests can drive them with a controllable clock instead of sleeping.
 */
import { setTimeout as delay } from 'node:timers/promises';

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms` of this clock's time; rejects with the signal's reason when aborted. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => delay(Math.max(0, ms), undefined, signal ? { signal } : undefined),
};
