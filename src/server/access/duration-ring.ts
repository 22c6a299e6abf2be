/**
 * The queue estimate of CONTRACT §11.6: a ring of the last 20 successful conversion durations (slot taken →
 * markdown stored) and the ETA formula.
 */

export const DURATION_RING_SIZE = 20;

export class DurationRing {
  private readonly items: number[] = [];

  constructor(private readonly size = DURATION_RING_SIZE) {}

  push(seconds: number): void {
    this.items.push(seconds);
    if (this.items.length > this.size) this.items.shift();
  }

  get count(): number {
    return this.items.length;
  }

  /** Mean of the ring, rounded; `null` without history. */
  average(): number | null {
    if (this.items.length === 0) return null;
    return Math.round(this.items.reduce((a, b) => a + b, 0) / this.items.length);
  }
}

export interface QueueEstimate {
  readonly avg_duration_seconds: number;
  readonly eta_basis: string;
}

/** `avg_duration_seconds` and `eta_basis`: the ring's mean, or `PARSER_TIMEOUT / 2` without history. */
export function queueEstimate(ring: DurationRing, parserTimeoutSeconds: number): QueueEstimate {
  const avg = ring.average();
  if (avg === null)
    return { avg_duration_seconds: Math.round(parserTimeoutSeconds / 2), eta_basis: 'default_no_history' };
  return { avg_duration_seconds: avg, eta_basis: `observed_avg_of_${ring.count}_jobs` };
}

/** ⌈(ahead_of_me + running_count + 1) / max_concurrent⌉ × avg. */
export function etaSeconds(aheadOfMe: number, runningCount: number, maxConcurrent: number, avg: number): number {
  return Math.ceil((aheadOfMe + runningCount + 1) / maxConcurrent) * avg;
}
