/**
 * The contributor's parser tokens (CONTRACT §16.5): used round-robin; a token that hit its daily limit cools
 * until 00:01 local time of the next day.
 */
import { nextLocalDayAt0001 } from '../../shared/local-day.js';

export class KeyRing {
  private next = 0;
  private readonly coolingUntil = new Map<number, number>();

  constructor(
    private readonly tokens: readonly string[],
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The next token that is not cooling, or `null` when every token is. */
  take(): string | null {
    const t = this.now().getTime();
    for (let i = 0; i < this.tokens.length; i++) {
      const index = (this.next + i) % this.tokens.length;
      const until = this.coolingUntil.get(index);
      if (until !== undefined && until > t) continue;
      this.coolingUntil.delete(index);
      this.next = (index + 1) % this.tokens.length;
      return this.tokens[index]!;
    }
    return null;
  }

  /** Marks `token` as having hit its daily limit. */
  cool(token: string): void {
    const index = this.tokens.indexOf(token);
    if (index >= 0) this.coolingUntil.set(index, nextLocal0001(this.now()).getTime());
  }
}

/** 00:01 local time of the day after `now` (the server's token ring uses the same rule). */
export const nextLocal0001 = (now: Date): Date => new Date(nextLocalDayAt0001(now.getTime()));
