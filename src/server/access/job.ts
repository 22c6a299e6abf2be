/**
 * One paper-access job (CONTRACT §11.2–11.5): the shared work for one canonical id — fetch the PDF, and for a
 * markdown job convert it afterwards. Holds what the snapshot shows; the engine moves it along.
 */
import type { VersionedPreprintId } from '../../shared/ids.js';
import type { SlotTicket } from './slots.js';
import type { FailureKind, JobFailure } from './failure.js';
import type { Snapshot } from './snapshot.js';

export type JobState = 'queued' | 'running' | 'failed' | 'cooldown' | 'done';
export type JobPhase = 'fetching_pdf' | 'converting_md' | 'ready' | 'error_fetching' | 'error_converting';

export interface FetchInfo {
  started_at: number;
  completed_at: number | null;
  bytes_received: number;
  bytes_total: number | null;
  sha256: string | null;
  attempts: number;
}

export interface ConvertInfo {
  started_at: number;
  parser_task_id: string | null;
  stage: string;
  polled_count: number;
  completed_at: number | null;
  extracted_pages: number | null;
  total_pages: number | null;
  submissions: number;
}

export interface PdfResult {
  readonly key: string;
  readonly sha256: string | null;
  readonly bytes: number;
  /** The PDF was already stored; nothing was fetched. */
  readonly reused: boolean;
}

export interface MarkdownResult {
  readonly key: string;
  readonly sha256: string | null;
  readonly imageCount: number;
  readonly parserTaskId: string | null;
  readonly reused: boolean;
}

export interface JobFailureInfo {
  readonly kind: FailureKind;
  readonly detail: string;
  readonly notFound: boolean;
  /** End of the cooldown (epoch ms): 60 s after the failure, or the earliest token recovery. */
  readonly until: number;
}

/** A promise with its settle functions; rejections are pre-handled so an unobserved failure is not fatal. */
class Deferred<T> {
  readonly promise: Promise<T>;
  resolve!: (value: T) => void;
  reject!: (err: unknown) => void;
  settled = false;
  constructor() {
    this.promise = new Promise<T>((resolve, reject) => {
      this.resolve = (v) => {
        this.settled = true;
        resolve(v);
      };
      this.reject = (e) => {
        this.settled = true;
        reject(e);
      };
    });
    this.promise.catch(() => undefined);
  }
}

export class Job implements SlotTicket {
  /** Canonical id (the slot tie breaker). */
  readonly id: string;
  state: JobState = 'queued';
  phase: JobPhase = 'fetching_pdf';
  startedAt: number | null = null;
  pdfReady = false;
  mdReady = false;
  /** Waiting for a parser slot (queue position shown). */
  waitingForParser = false;
  fetch: FetchInfo | null = null;
  convert: ConvertInfo | null = null;
  failure: JobFailureInfo | null = null;
  pdfResult: PdfResult | null = null;
  mdResult: MarkdownResult | null = null;
  /**
   * Cluster mode (§21): the job runs on another instance, which holds its lease; this is the snapshot it stored,
   * what this instance answers meanwhile. `null` when the job runs here.
   */
  remote: Snapshot | null = null;
  /** The job was run by another instance (followed, or ended there in failure): the cluster's list shows its row. */
  heldElsewhere = false;
  /** Resolves when the PDF is stored (or was already). */
  readonly pdfStored = new Deferred<PdfResult>();
  /** Resolves when the whole job succeeded. */
  readonly finished = new Deferred<void>();
  private readonly listeners = new Set<() => void>();

  constructor(
    readonly preprint: VersionedPreprintId,
    readonly submittedAt: number,
    /** A markdown job converts after the fetch; a PDF job is upgraded by a markdown trigger. */
    public wantMarkdown: boolean,
  ) {
    this.id = preprint.id;
  }

  get inProgress(): boolean {
    return this.state === 'queued' || this.state === 'running';
  }

  /** Calls `listener` on every change until the returned function is called. */
  observe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  changed(): void {
    for (const listener of this.listeners) listener();
  }

  failWith(failure: JobFailure, now: number, cooldownMs: number): void {
    const until = failure.kind === 'daily_limit' && failure.extra.retryAt ? failure.extra.retryAt : now + cooldownMs;
    this.failure = { kind: failure.kind, detail: failure.message, notFound: failure.extra.notFound ?? false, until };
    this.state = failure.kind === 'daily_limit' ? 'cooldown' : 'failed';
    this.phase = failure.stage === 'fetch' ? 'error_fetching' : 'error_converting';
    this.waitingForParser = false;
    if (!this.pdfStored.settled) this.pdfStored.reject(failure);
    this.finished.reject(failure);
    this.changed();
  }
}
