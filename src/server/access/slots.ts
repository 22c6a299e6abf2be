/**
 * Bounded concurrency with an ordered waiting line: the preprint fetch slots (FIFO) and the parser slots (FIFO by
 * `submitted_at`, ties by id, CONTRACT §11.6). The waiting line is inspectable, for queue positions.
 */

export interface SlotTicket {
  /** Order key: earlier first. */
  readonly submittedAt: number;
  /** Tie breaker. */
  readonly id: string;
}

interface Waiting<T extends SlotTicket> {
  readonly ticket: T;
  readonly grant: () => void;
  readonly fail: (err: unknown) => void;
}

const before = (a: SlotTicket, b: SlotTicket) =>
  a.submittedAt < b.submittedAt || (a.submittedAt === b.submittedAt && a.id < b.id);

export class Slots<T extends SlotTicket = SlotTicket> {
  private readonly waiting: Waiting<T>[] = [];
  private holders = 0;

  constructor(readonly max: number) {}

  get running(): number {
    return this.holders;
  }

  /**
   * Waits for a slot; resolves to its release function (idempotent). Rejects, leaving the line, when `signal`
   * aborts while waiting.
   */
  acquire(ticket: T, signal?: AbortSignal): Promise<() => void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const entry: Waiting<T> = {
        ticket,
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve(this.releaser());
        },
        fail: reject,
      };
      const onAbort = () => {
        const i = this.waiting.indexOf(entry);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      let i = this.waiting.length;
      while (i > 0 && before(ticket, this.waiting[i - 1]!.ticket)) i--;
      this.waiting.splice(i, 0, entry);
      this.dispatch();
    });
  }

  /** 1-based place of `ticket` in the waiting line, or `null` when it is not waiting. */
  position(ticket: T): number | null {
    const i = this.waiting.findIndex((w) => w.ticket === ticket);
    return i < 0 ? null : i + 1;
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holders--;
      this.dispatch();
    };
  }

  private dispatch(): void {
    while (this.holders < this.max && this.waiting.length > 0) {
      this.holders++;
      this.waiting.shift()!.grant();
    }
  }
}
