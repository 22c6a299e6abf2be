/**
 * The parser token pool (CONTRACT §11.6, §16.5): a round-robin ring; a token at its daily limit cools down until
 * 00:01 local time of the next day and is skipped meanwhile. One ring for the server's conversions and
 * `pks contrib parser`.
 */
import { nextLocalDayAt0001 } from '../shared/local-day.js';

/** What the ring reads the time from (the server's `Clock` is one). */
export interface RingClock {
  /** Milliseconds since the epoch. */
  now(): number;
}

interface TokenState {
  readonly token: string;
  coolingUntil: number;
}

export class TokenRing {
  private readonly tokens: TokenState[];
  private cursor = 0;

  constructor(
    tokens: readonly string[],
    private readonly clock: RingClock,
  ) {
    this.tokens = tokens.map((token) => ({ token, coolingUntil: 0 }));
  }

  get size(): number {
    return this.tokens.length;
  }

  /** Tokens in cooldown now. */
  cooling(): number {
    const now = this.clock.now();
    return this.tokens.filter((t) => t.coolingUntil > now).length;
  }

  /** The next token not in cooldown (round robin), or `null` when every token cools down. */
  next(): string | null {
    const now = this.clock.now();
    for (let i = 0; i < this.tokens.length; i++) {
      const t = this.tokens[(this.cursor + i) % this.tokens.length]!;
      if (t.coolingUntil <= now) {
        this.cursor = (this.cursor + i + 1) % this.tokens.length;
        return t.token;
      }
    }
    return null;
  }

  /** Puts `token` in cooldown until 00:01 local of the next day. */
  coolDown(token: string): void {
    const t = this.tokens.find((s) => s.token === token);
    if (t) t.coolingUntil = Math.max(t.coolingUntil, nextLocalDayAt0001(this.clock.now()));
  }

  /** The earliest recovery among cooling tokens (epoch ms), or `null`. */
  earliestRecovery(): number | null {
    const now = this.clock.now();
    const times = this.tokens.map((t) => t.coolingUntil).filter((t) => t > now);
    return times.length === 0 ? null : Math.min(...times);
  }
}
