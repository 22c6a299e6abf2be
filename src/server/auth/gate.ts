/** A counting gate: at most `capacity` holders at once; a caller that finds it full is turned away, not queued. */
export class ConcurrencyGate {
  private held = 0;

  constructor(readonly capacity: number) {}

  /** Takes a place, or returns `false` when every place is taken. */
  tryEnter(): boolean {
    if (this.held >= this.capacity) return false;
    this.held += 1;
    return true;
  }

  leave(): void {
    this.held = Math.max(0, this.held - 1);
  }
}
