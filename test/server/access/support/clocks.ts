import type { Clock } from '../../../../src/server/access/clock.js';

interface Sleeper {
  readonly until: number;
  readonly resolve: () => void;
  readonly timer: NodeJS.Timeout | null;
}

/**
 * Real time plus an adjustable offset: work proceeds normally, and a test jumps ahead (ending cooldowns, the
 * 10 s resubmission wait, a parser timeout) with `advance`, or pins "now" to a calendar instant with `set`.
 * Sleepers whose end the jump passed wake at once.
 */
export class OffsetClock implements Clock {
  private offset = 0;
  private readonly sleepers = new Set<Sleeper>();

  now(): number {
    return Date.now() + this.offset;
  }

  advance(ms: number): void {
    this.offset += ms;
    this.wake();
  }

  set(epochMs: number): void {
    this.offset = epochMs - Date.now();
    this.wake();
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const sleeper: Sleeper = {
        until: this.now() + ms,
        resolve: () => {
          if (sleeper.timer) clearTimeout(sleeper.timer);
          this.sleepers.delete(sleeper);
          resolve();
        },
        timer: setTimeout(() => sleeper.resolve(), Math.max(0, ms)),
      };
      this.sleepers.add(sleeper);
      signal?.addEventListener('abort', () => {
        if (sleeper.timer) clearTimeout(sleeper.timer);
        this.sleepers.delete(sleeper);
        reject(signal.reason);
      });
    });
  }

  private wake(): void {
    const now = this.now();
    for (const s of [...this.sleepers]) if (s.until <= now) s.resolve();
  }
}

/**
 * Virtual time only: nothing passes until the test moves it. `advanceToNext()` jumps to the earliest sleeper's
 * end and wakes it — a discrete-event simulation for rate-limit tests.
 */
export class VirtualClock implements Clock {
  private current: number;
  private readonly sleepers: { until: number; resolve: () => void }[] = [];

  constructor(start = Date.UTC(2026, 4, 1, 12)) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  get sleeping(): number {
    return this.sleepers.length;
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.sleepers.push({ until: this.current + Math.max(0, ms), resolve });
    });
  }

  /** Jumps to the earliest pending wake-up and wakes every sleeper due then; `false` when none sleeps. */
  advanceToNext(): boolean {
    if (this.sleepers.length === 0) return false;
    const next = Math.min(...this.sleepers.map((s) => s.until));
    this.current = Math.max(this.current, next);
    for (let i = this.sleepers.length - 1; i >= 0; i--) {
      if (this.sleepers[i]!.until <= this.current) this.sleepers.splice(i, 1)[0]!.resolve();
    }
    return true;
  }
}

/** Resolves once `condition()` holds, checking after every turn of the event loop; fails after `timeoutMs`. */
export async function until(
  what: string,
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 20_000,
  intervalMs = 2,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
