/**
 * The preprint rate limiter (CONTRACT §11.5): one token bucket per process, shared by PDF downloads and
 * abstract-page lookups. `rate` tokens per second as a float, capacity `burst`, starts full; every HTTP request
 * that leaves for arXiv takes one token. Waiters are served first come, first served.
 *
 * Hand-written rather than taken from a rate-limit package: the contract fixes the exact semantics (float rate,
 * fixed burst, one token per request, FIFO) and tests drive it on a controllable clock.
 */
import type { Clock } from './clock.js';

interface Waiter {
  readonly resolve: () => void;
  readonly reject: (err: unknown) => void;
}

export class TokenBucket {
  private tokens: number;
  private last: number;
  private readonly waiters: Waiter[] = [];
  private pumping = false;

  constructor(
    readonly rate: number,
    readonly capacity: number,
    private readonly clock: Clock,
  ) {
    this.tokens = capacity;
    this.last = clock.now();
  }

  /** Resolves once a token was taken for the caller; rejects when `signal` aborts first. */
  take(signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const waiter: Waiter = {
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        reject,
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

  /** Callers waiting for a token. */
  get waiting(): number {
    return this.waiters.length;
  }

  private refill(): void {
    const now = this.clock.now();
    if (now > this.last) {
      this.tokens = Math.min(this.capacity, this.tokens + ((now - this.last) / 1000) * this.rate);
      this.last = now;
    }
  }

  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.waiters.length > 0) {
        this.refill();
        if (this.tokens >= 1) {
          this.tokens -= 1;
          this.waiters.shift()!.resolve();
          continue;
        }
        await this.clock.sleep(Math.ceil(((1 - this.tokens) / this.rate) * 1000));
      }
    } finally {
      this.pumping = false;
    }
  }
}
