import { RateLimitedError } from '../../shared/domain-errors.js';
import type { Clock } from './time.js';

/** A named limit: at most `limit` requests per fixed 60 s window per key (CONTRACT §7.7). */
export interface RateRule {
  /** Shown in the 429 body: `… per minute for <name>; …`. */
  readonly name: string;
  readonly limit: number;
}

const WINDOW_MS = 60_000;

export const RATE_RULES = {
  patCreate: { name: 'POST /api/pat', limit: 10 },
  write: { name: 'write requests', limit: 60 },
  deviceCode: { name: 'POST /api/oauth/device/code', limit: 30 },
  userCodeFailures: { name: 'failed user-code attempts', limit: 5 },
  superuserLogin: { name: 'failed superuser sign-ins', limit: 10 },
  /** Paper-access DOI resolutions that ask OpenAlex (issue 20), per credential; cache hits do not count. */
  doiLookup: { name: 'DOI resolutions through OpenAlex (cached DOIs do not count)', limit: 30 },
} as const satisfies Record<string, RateRule>;

export function rateLimitExceeded(rule: RateRule, retryAfterS: number): RateLimitedError {
  return new RateLimitedError(
    `rate limit exceeded: at most ${rule.limit} requests per minute for ${rule.name}; retry in ${retryAfterS} s`,
    { retryAfterSeconds: retryAfterS },
  );
}

interface Window {
  start: number;
  count: number;
}

/**
 * In-process fixed windows: a key's window starts at its first request and lasts 60 s; not shared between
 * instances or processes.
 */
export class FixedWindowLimiter {
  private readonly windows = new Map<string, Window>();
  private lastSweep = 0;

  constructor(private readonly now: Clock) {}

  private window(rule: RateRule, key: string, create: boolean): { w: Window | undefined; now: number } {
    const now = this.now();
    if (now - this.lastSweep >= WINDOW_MS) {
      this.lastSweep = now;
      for (const [k, w] of this.windows) if (now - w.start >= WINDOW_MS) this.windows.delete(k);
    }
    const id = `${rule.name}\u0000${key}`;
    let w = this.windows.get(id);
    if (w && now - w.start >= WINDOW_MS) {
      this.windows.delete(id);
      w = undefined;
    }
    if (!w && create) {
      w = { start: now, count: 0 };
      this.windows.set(id, w);
    }
    return { w, now };
  }

  private retryAfter(w: Window, now: number): number {
    return Math.max(1, Math.ceil((w.start + WINDOW_MS - now) / 1000));
  }

  /** Counts one request; throws 429 when it is over the limit. */
  hit(rule: RateRule, key: string): void {
    const { w, now } = this.window(rule, key, true);
    w!.count += 1;
    if (w!.count > rule.limit) throw rateLimitExceeded(rule, this.retryAfter(w!, now));
  }

  /** Throws 429 when the key already used up its window (without counting). */
  check(rule: RateRule, key: string): void {
    const { w, now } = this.window(rule, key, false);
    if (w && w.count >= rule.limit) throw rateLimitExceeded(rule, this.retryAfter(w, now));
  }

  /** Takes back one counted request (an attempt that turned out not to count, e.g. a successful sign-in). */
  refund(rule: RateRule, key: string): void {
    const { w } = this.window(rule, key, false);
    if (w && w.count > 0) w.count -= 1;
  }

  /** Counts one event without judging it (failure counters judged later by `check`). */
  record(rule: RateRule, key: string): void {
    this.window(rule, key, true).w!.count += 1;
  }
}
