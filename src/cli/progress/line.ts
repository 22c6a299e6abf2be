/**
 * Progress on stderr: on a terminal one line redrawn in place (`\r` + erase line); elsewhere the plain
 * line-per-event text (`event`) and nothing for live-only updates (`live`). `quiet` silences both.
 */
import type { CliIO } from '../context.js';
import { fit, oneLine } from '../text.js';

export interface ProgressSink {
  readonly write: (text: string) => void;
  /** Writes the erase sequence (which `write`, filtered for the terminal, would drop). */
  readonly control: (sequence: string) => void;
  readonly tty: boolean;
  readonly quiet: boolean;
  /** Terminal width (redrawn text is cut to fit one row). */
  readonly columns?: () => number;
}

const ERASE_LINE = '\r\x1b[2K';

export class ProgressLine {
  private shown = false;
  private lastEvent: string | null = null;

  constructor(private readonly sink: ProgressSink) {}

  private draw(text: string): void {
    this.sink.control(ERASE_LINE);
    this.sink.write(fit(oneLine(text), Math.max(20, (this.sink.columns?.() ?? 80) - 1)));
    this.shown = true;
  }

  /** A live figure (bytes, rate): redrawn on a terminal, not printed elsewhere. */
  live(text: string): void {
    if (this.sink.quiet || !this.sink.tty) return;
    this.draw(text);
  }

  /** A state change: redrawn on a terminal, one line elsewhere. */
  event(text: string): void {
    if (this.sink.quiet) return;
    if (this.sink.tty) return this.draw(text);
    this.sink.write(`${oneLine(text)}\n`); // a line break in server text must not fake a line of its own
  }

  /** Like `event`, but elsewhere printed only when the text differs from the previous event. */
  eventOnChange(text: string): void {
    if (this.sink.quiet) return;
    if (!this.sink.tty && text === this.lastEvent) return;
    this.lastEvent = text;
    this.event(text);
  }

  /** A permanent message (not progress, never silenced): printed above the live line. */
  message(text: string): void {
    this.end();
    this.sink.write(text.endsWith('\n') ? text : `${text}\n`);
  }

  /** Ends the live line, keeping its last text on screen. */
  end(): void {
    if (!this.shown) return;
    this.sink.write('\n');
    this.shown = false;
  }
}

/** The progress line of a command on the run's stderr. */
export function stderrProgress(io: CliIO, quiet: boolean): ProgressLine {
  return new ProgressLine({
    write: io.stderr,
    control: io.stderrControl,
    tty: io.stderrIsTTY,
    quiet,
    columns: io.columns,
  });
}

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

/** `1536` → `1.5 KiB`. */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${UNITS[unit]}`;
}

/** Bytes moved so far, of the total when known, and the average rate: `12.0 MiB / 100.0 MiB (12%) 40.1 MiB/s`. */
export class ByteMeter {
  private readonly started: number;
  private lastDraw = 0;

  constructor(
    private readonly line: ProgressLine,
    private readonly label: string,
    private readonly total: number | null,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.started = now();
  }

  text(bytes: number): string {
    const seconds = Math.max((this.now() - this.started) / 1000, 1e-3);
    const rate = `${formatBytes(Math.round(bytes / seconds))}/s`;
    if (this.total === null || this.total <= 0) return `${this.label} ${formatBytes(bytes)} ${rate}`;
    const percent = Math.min(100, Math.floor((bytes / this.total) * 100));
    return `${this.label} ${formatBytes(bytes)} / ${formatBytes(this.total)} (${percent}%) ${rate}`;
  }

  /** Redraws at most every 100 ms, and always for the final byte. */
  update(bytes: number): void {
    const t = this.now();
    if (t - this.lastDraw < 100 && bytes !== this.total) return;
    this.lastDraw = t;
    this.line.live(this.text(bytes));
  }
}
