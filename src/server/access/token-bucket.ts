/**
 * The preprint rate limiter (CONTRACT §11.5): one token bucket shared by PDF downloads and abstract-page lookups.
 * `rate` tokens per second as a float, capacity `burst`, starts full; every HTTP request that leaves for arXiv takes
 * one token. Waiters of this process are served first come, first served.
 *
 * The bucket's state lives in a `TokenBucketRepository`: the user database's (`SVC_DB_URL` → PostgreSQL, one bucket
 * for every instance on it, §21; else SQLite), or in this process when none is given (tools and tests).
 *
 * Hand-written rather than taken from a rate-limit package: the contract fixes the exact semantics (float rate,
 * fixed burst, one token per request, FIFO) and tests drive it on a controllable clock.
 */
import type { TokenBucketRepository } from '../db/user-database.js';
import type { Clock } from './clock.js';
import { watchSent } from './sent-at.js';

/** The row of the preprint-fetch bucket in the user database. */
export const PREPRINT_BUCKET = 'preprint-fetch';

interface Waiter {
  readonly resolve: () => void;
  readonly reject: (err: unknown) => void;
}

/** Buckets in this process's memory: the same arithmetic as the database adapters' single UPDATE. */
class InProcessBuckets implements TokenBucketRepository {
  private readonly buckets = new Map<string, { tokens: number; last: number }>();

  async take(bucket: string, rate: number, capacity: number, now: number): Promise<number> {
    const b = this.refilled(bucket, rate, capacity, now);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - b.tokens) / rate) * 1000);
  }

  async debit(bucket: string, tokens: number, rate: number, capacity: number, now: number): Promise<void> {
    this.refilled(bucket, rate, capacity, now).tokens -= tokens;
  }

  private refilled(bucket: string, rate: number, capacity: number, now: number): { tokens: number; last: number } {
    let b = this.buckets.get(bucket);
    if (!b) this.buckets.set(bucket, (b = { tokens: capacity, last: now }));
    if (now > b.last) {
      b.tokens = Math.min(capacity, b.tokens + ((now - b.last) / 1000) * rate);
      b.last = now;
    }
    return b;
  }
}

export class TokenBucket {
  private readonly waiters: Waiter[] = [];
  private pumping = false;
  /** Late sends being counted in the store (`send`); takes wait for them. */
  private debits: Promise<void> = Promise.resolve();

  constructor(
    readonly rate: number,
    readonly capacity: number,
    private readonly clock: Clock,
    private readonly store: TokenBucketRepository = new InProcessBuckets(),
  ) {}

  /** Resolves once a token was taken for the caller; rejects when `signal` aborts first. */
  take(signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const waiter: Waiter = {
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        reject: (err) => {
          signal?.removeEventListener('abort', onAbort);
          reject(err);
        },
      };
      const onAbort = () => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
      void this.pump();
    });
  }

  /**
   * Takes a token, then `send`s the request, counting the token from when the request was written rather than when
   * it was granted: a request that left `d` ms after its grant (a fresh process's first connection, a busy event
   * loop) also takes the `d × rate` tokens that refilled meanwhile, so the bucket's limit holds at the upstream's
   * clock — in any window, the upstream sees no more requests than the bucket would have granted (§11.5, §21).
   */
  async send<T>(send: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.take(signal);
    const grantedAt = this.clock.now();
    return watchSent(
      () => this.clock.now(),
      send,
      (sentAt) => {
        const late = sentAt - grantedAt;
        if (late <= 0) return;
        // The next take of this process waits for the write; a failed one leaves the grant-time count (an
        // unreachable database fails the next take anyway).
        this.debits = this.debits
          .then(() => this.store.debit(PREPRINT_BUCKET, (late / 1000) * this.rate, this.rate, this.capacity, sentAt))
          .catch(() => undefined);
      },
    );
  }

  /** Callers waiting for a token. */
  get waiting(): number {
    return this.waiters.length;
  }

  /**
   * Takes tokens for the waiters in order. When the bucket is empty it sleeps until the next token is due and asks
   * again (on a shared bucket another instance may have taken it). A token taken for a waiter that aborted in the
   * meantime is spent, never more than the limit; a failing store fails the waiter at the head.
   */
  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.waiters.length > 0) {
        let waitMs: number;
        try {
          await this.debits;
          waitMs = await this.store.take(PREPRINT_BUCKET, this.rate, this.capacity, this.clock.now());
        } catch (err) {
          this.waiters.shift()?.reject(err);
          continue;
        }
        if (waitMs === 0) this.waiters.shift()?.resolve();
        else await this.clock.sleep(waitMs);
      }
    } finally {
      this.pumping = false;
    }
  }
}
