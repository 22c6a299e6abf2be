import { RateLimitedError } from '../../shared/domain-errors.js';
import type { RateCounterRepository, RateWindow } from '../db/user-database.js';
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

/** What the route hooks and services need of a limiter, whichever keeps the counts. */
export interface Limiter {
  /** Counts one request; throws 429 when it is over the limit. */
  hit(rule: RateRule, key: string): void | Promise<void>;
  /** Throws 429 when the key already used up its window (without counting). */
  check(rule: RateRule, key: string): void | Promise<void>;
  /** Takes back one counted request (an attempt that turned out not to count, e.g. a successful sign-in). */
  refund(rule: RateRule, key: string): void | Promise<void>;
  /** Counts one event without judging it (failure counters judged later by `check`). */
  record(rule: RateRule, key: string): void | Promise<void>;
}

const retryAfter = (w: RateWindow, now: number): number => Math.max(1, Math.ceil((w.start + WINDOW_MS - now) / 1000));

/**
 * The limits of §7.7 counted in the user database, so every instance on one database shares each window (§21).
 * Each call is one atomic statement; only rate-limited routes pay for the round trip. The calls of one key are
 * made in the order they arrive here (on a pool of connections they could otherwise overtake each other), so of
 * 31 requests sent in a row to a 30-per-minute rule the 31st is the one refused.
 */
export class SharedLimiter implements Limiter {
  private readonly queues = new Map<string, Promise<void>>();

  constructor(
    private readonly counters: RateCounterRepository,
    private readonly now: Clock,
  ) {}

  hit(rule: RateRule, key: string): Promise<void> {
    return this.inOrder(rule, key, async () => {
      const now = this.now();
      const w = await this.counters.count(rule.name, key, now, WINDOW_MS);
      if (w.count > rule.limit) throw rateLimitExceeded(rule, retryAfter(w, now));
    });
  }

  check(rule: RateRule, key: string): Promise<void> {
    return this.inOrder(rule, key, async () => {
      const now = this.now();
      const w = await this.counters.peek(rule.name, key, now, WINDOW_MS);
      if (w && w.count >= rule.limit) throw rateLimitExceeded(rule, retryAfter(w, now));
    });
  }

  refund(rule: RateRule, key: string): Promise<void> {
    return this.inOrder(rule, key, () => this.counters.refund(rule.name, key, this.now(), WINDOW_MS));
  }

  record(rule: RateRule, key: string): Promise<void> {
    return this.inOrder(rule, key, async () => {
      await this.counters.count(rule.name, key, this.now(), WINDOW_MS);
    });
  }

  /** Runs `op` after the earlier calls for the same rule and key have settled. */
  private inOrder(rule: RateRule, key: string, op: () => Promise<void>): Promise<void> {
    const id = `${rule.name}\u0000${key}`;
    const run = (this.queues.get(id) ?? Promise.resolve()).then(op);
    const settled = run.catch(() => undefined);
    this.queues.set(id, settled);
    void settled.then(() => {
      if (this.queues.get(id) === settled) this.queues.delete(id);
    });
    return run;
  }
}

interface Window {
  start: number;
  count: number;
}

/**
 * In-process fixed windows: a key's window starts at its first request and lasts 60 s; not shared between
 * instances or processes (the per-process limits outside §7.7: DOI resolutions, metadata fetches).
 */
export class FixedWindowLimiter implements Limiter {
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

  /** Counts one request; throws 429 when it is over the limit. */
  hit(rule: RateRule, key: string): void {
    const { w, now } = this.window(rule, key, true);
    w!.count += 1;
    if (w!.count > rule.limit) throw rateLimitExceeded(rule, retryAfter(w!, now));
  }

  /** Throws 429 when the key already used up its window (without counting). */
  check(rule: RateRule, key: string): void {
    const { w, now } = this.window(rule, key, false);
    if (w && w.count >= rule.limit) throw rateLimitExceeded(rule, retryAfter(w, now));
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
