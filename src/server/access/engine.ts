/**
 * The paper-access job engine (CONTRACT §11.5): one in-memory job per canonical id, joined by every trigger
 * (markdown, PDF, and ingest steps without `force_*`/`no_cache`); a markdown trigger upgrades a PDF job. A job
 * leaves the map when its asset is stored, or when the cooldown after a failure ends (60 s; daily limit: until
 * the earliest parser token recovers). Jobs live in this process only: a restart forgets them, and staged
 * downloads of a killed process are removed by the stager at the next start.
 *
 * Shutdown (issue 20): when the engine's `signal` aborts, every operation in progress — a wait for a slot, a
 * download, a parser call, a poll or backoff wait — ends at once; slots are released and staged files removed on
 * the way out, and `settled()` resolves once nothing runs any more.
 */
import type { Logger } from 'pino';
import { isObjectStoreError } from '../../shared/domain-errors.js';
import type { VersionedPreprintId } from '../../shared/ids.js';
import type { PaperService } from '../papers/service.js';
import { storedSha256 } from '../storage/write.js';
import type { Clock } from './clock.js';
import type { Converter, ConvertProgress } from './converter.js';
import { etaSeconds, queueEstimate, type DurationRing } from './duration-ring.js';
import { JobFailure, storeErrorText } from './failure.js';
import { Job, type MarkdownResult, type PdfResult } from './job.js';
import { WATCH_MS, type HeldLease, type JobLeases, type JobView } from './job-lease.js';
import type { JobLeaseRow } from '../db/job-lease-store.js';
import { jobSnapshot, type Snapshot } from './snapshot.js';
import { FetchFailure, type FetchProgress, type PreprintFetcher } from './preprint-fetcher.js';
import type { Slots, SlotTicket } from './slots.js';

export const FAILURE_COOLDOWN_MS = 60_000;

/** Ended jobs the registry still lists (§18.2, §19): the last this many, each for `RECENT_MS` after it ended. */
export const RECENT_MAX = 100;
export const RECENT_MS = 60 * 60_000;

export type AccessKind = 'pdf' | 'markdown';

/** Whether server-side conversion runs here (§11.6), and why not. */
export type ConversionAvailability =
  { readonly enabled: true; readonly reason: null } | { readonly enabled: false; readonly reason: string };

/** Fetch progress as an ingest step shows it (§10.3). */
export interface FetchStepProgress {
  readonly phase: 'waiting' | 'download' | 'storing' | 'complete';
  readonly attempt: number;
  readonly bytesReceived: number;
  readonly bytesTotal: number | null;
}

export interface QueueView {
  readonly position?: number;
  readonly ahead_of_me?: number;
  readonly running_count: number;
  readonly max_concurrent: number;
  readonly eta_seconds?: number;
  readonly avg_duration_seconds: number;
  readonly eta_basis: string;
}

export interface AccessEngineDeps {
  readonly logger: Logger;
  readonly papers: PaperService;
  readonly clock: Clock;
  readonly fetcher: PreprintFetcher;
  readonly fetchSlots: Slots;
  /** `null` when conversion is disabled. */
  readonly converter: Converter | null;
  readonly conversion: ConversionAvailability;
  readonly parserSlots: Slots;
  readonly durations: DurationRing;
  readonly parserTimeoutSeconds: number;
  /** Cooldown after a `fatal`/`retryable` failure (default 60 s). */
  readonly failureCooldownMs?: number;
  /** Aborted when the server stops (also given to the fetcher and the converter). */
  readonly signal?: AbortSignal;
  /**
   * Cluster mode (§21, `SVC_DB_URL`): the job leases shared by the instances, so a job runs on one of them at a
   * time. Absent (the embedded default): jobs live in this process only.
   */
  readonly leases?: JobLeases | null;
}

/** A job the engine holds, as the registry lists it (§18.2, §19). */
export interface HeldJob {
  readonly job: Job;
  /** `markdown` for a markdown job (or a PDF job a markdown trigger upgraded), else `pdf`. */
  readonly asset: AccessKind;
  /** Epoch ms of the job's last change. */
  readonly updatedAt: number;
  /** Epoch ms of when it ended (stored, or failed), else `null`. */
  readonly finishedAt: number | null;
}

/** The failure text of work the server's shutdown stopped. */
export const SHUTDOWN_DETAIL = 'server shutting down';

export class AccessEngine {
  private readonly jobs = new Map<string, Job>();
  /** When each job last changed and when it ended (what the §19 job list shows). */
  private readonly times = new WeakMap<Job, { updatedAt: number; finishedAt: number | null }>();
  /**
   * Jobs that left the map (stored, or their cooldown ended), latest last, by canonical id: the registry lists them
   * for a while so a client watching its jobs sees them end (`done`).
   */
  private readonly recent = new Map<string, Job>();
  /** Jobs and ingest operations in progress (what shutdown waits for). */
  private readonly work = new Set<Promise<unknown>>();
  /** Cluster mode: resolves once a new job knows where it runs (here, or followed on another instance). */
  private readonly placements = new WeakMap<Job, { readonly promise: Promise<void>; readonly resolve: () => void }>();
  readonly counters = {
    cache_hits: 0,
    cache_misses: 0,
    preprint_fetches: 0,
    preprint_fetch_succeeded: 0,
    preprint_fetch_failed: 0,
    inflight_preprint_fetches: 0,
  };
  /** Jobs that ended since the start: stored, or failed (`failed` and `cooldown`). */
  readonly totals = { succeeded: 0, failed: 0 };

  constructor(private readonly deps: AccessEngineDeps) {}

  get conversion(): ConversionAvailability {
    return this.deps.conversion;
  }

  get clock(): Clock {
    return this.deps.clock;
  }

  /** The job leases of cluster mode (§21), else `null`. */
  get leases(): JobLeases | null {
    return this.deps.leases ?? null;
  }

  /**
   * Cluster mode: resolves once `job` took its lease, or follows (or ended with) the job of the instance holding
   * it — when its snapshot is the cluster's. `undefined` without leases (a job is placed when created).
   */
  placement(job: Job): Promise<void> | undefined {
    return this.placements.get(job)?.promise;
  }

  /** The job of `id`, if one is in progress or cooling down. */
  job(id: VersionedPreprintId): Job | undefined {
    const job = this.jobs.get(id.id);
    if (job && !job.inProgress && job.failure && job.failure.until <= this.deps.clock.now()) {
      this.retire(job);
      return undefined;
    }
    return job;
  }

  /**
   * Joins or creates the job of `id`. A markdown trigger upgrades a PDF job still in progress. A job cooling down
   * after a failure is returned as it is (the caller answers with that failure).
   */
  start(id: VersionedPreprintId, kind: AccessKind): Job {
    const existing = this.job(id);
    if (existing) {
      if (kind === 'markdown' && existing.inProgress && !existing.wantMarkdown) {
        existing.wantMarkdown = true;
        existing.changed();
      }
      return existing;
    }
    this.sweep();
    const job = new Job(id, this.deps.clock.now(), kind === 'markdown');
    const times = { updatedAt: job.submittedAt, finishedAt: null as number | null };
    this.times.set(job, times);
    job.observe(() => void (times.updatedAt = this.deps.clock.now()));
    this.jobs.set(id.id, job);
    if (this.deps.leases) {
      let resolve = () => undefined as void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.placements.set(job, { promise, resolve });
    }
    void this.track(this.run(job).finally(() => this.placed(job)));
    return job;
  }

  /** Resolves once no job or operation of this engine is in progress (after shutdown aborted them). */
  async settled(): Promise<void> {
    while (this.work.size > 0) await Promise.allSettled([...this.work]);
  }

  private track<T>(operation: Promise<T>): Promise<T> {
    this.work.add(operation);
    const done = () => void this.work.delete(operation);
    operation.then(done, done);
    return operation;
  }

  /**
   * The jobs held — in progress, or cooling down after a failure — and those that ended recently (the last
   * `RECENT_MAX`, each for `RECENT_MS`; a held job of the same id hides its predecessor), oldest first: by
   * `submitted_at`, ties by id.
   */
  held(): HeldJob[] {
    this.sweep();
    const now = this.deps.clock.now();
    const listed = [...this.jobs.values()];
    for (const [id, job] of this.recent) {
      const finishedAt = this.times.get(job)?.finishedAt ?? null;
      if (finishedAt === null || finishedAt + RECENT_MS <= now) this.recent.delete(id);
      else if (!this.jobs.has(id)) listed.push(job);
    }
    const held = listed.map((job) => {
      const times = this.times.get(job) ?? { updatedAt: job.submittedAt, finishedAt: null };
      const asset: AccessKind = job.wantMarkdown ? 'markdown' : 'pdf';
      return { job, asset, updatedAt: times.updatedAt, finishedAt: times.finishedAt };
    });
    return held.sort((a, b) => a.job.submittedAt - b.job.submittedAt || (a.job.id < b.job.id ? -1 : 1));
  }

  /** A job leaves the map; the registry keeps listing it for a while. */
  private retire(job: Job): void {
    if (this.jobs.get(job.id) === job) this.jobs.delete(job.id);
    this.recent.delete(job.id);
    this.recent.set(job.id, job);
    for (const id of this.recent.keys()) {
      if (this.recent.size <= RECENT_MAX) break;
      this.recent.delete(id);
    }
  }

  /** Jobs in progress, and those of them waiting (state `queued`). */
  jobCounts(): { inflight: number; queued: number } {
    let inflight = 0;
    let queued = 0;
    for (const job of this.jobs.values()) {
      if (job.inProgress) inflight++;
      if (job.state === 'queued') queued++;
    }
    return { inflight, queued };
  }

  /** The place of `ticket` among the conversions waiting for a parser slot, or `null`. */
  parserQueuePosition(ticket: SlotTicket): number | null {
    return this.deps.parserSlots.position(ticket);
  }

  /** The `queue` field of a markdown job in progress (§11.2), else `null`. */
  queueView(job: Job): QueueView | null {
    if (!job.wantMarkdown || !job.inProgress) return null;
    const { parserSlots } = this.deps;
    const estimate = queueEstimate(this.deps.durations, this.deps.parserTimeoutSeconds);
    const running = parserSlots.running;
    if (!job.waitingForParser) {
      return { running_count: running, max_concurrent: parserSlots.max, ...estimate };
    }
    const position = parserSlots.position(job) ?? 1;
    return {
      position,
      ahead_of_me: position - 1,
      running_count: running,
      max_concurrent: parserSlots.max,
      eta_seconds: etaSeconds(position - 1, running, parserSlots.max, estimate.avg_duration_seconds),
      ...estimate,
    };
  }

  /**
   * Downloads the PDF of `id` from arXiv (a fetch slot, the limiter, retries) and stores it create-if-absent (or
   * over different content with `overwrite`), with index and graph write-through. Throws `JobFailure`.
   */
  fetchPdf(
    id: VersionedPreprintId,
    options: {
      readonly overwrite: boolean;
      readonly ticket: SlotTicket;
      readonly onSlot?: () => void;
      readonly onProgress?: (progress: FetchStepProgress) => void;
    },
  ): Promise<PdfResult> {
    return this.track(this.fetchHoldingSlot(id, options));
  }

  private async fetchHoldingSlot(
    id: VersionedPreprintId,
    options: Parameters<AccessEngine['fetchPdf']>[1],
  ): Promise<PdfResult> {
    const { deps, counters } = this;
    const release = await deps.fetchSlots.acquire(options.ticket, deps.signal);
    options.onSlot?.();
    counters.preprint_fetches++;
    counters.inflight_preprint_fetches++;
    let attempt = 1;
    try {
      const staged = await deps.fetcher.downloadPdf(id, (p: FetchProgress) => {
        attempt = p.attempt;
        options.onProgress?.(p);
      });
      try {
        options.onProgress?.({ phase: 'storing', attempt, bytesReceived: staged.size, bytesTotal: staged.size });
        const result = await deps.papers.storeFetchedPdf(id, staged, {
          overwrite: options.overwrite,
          now: () => new Date(deps.clock.now()),
        });
        options.onProgress?.({ phase: 'complete', attempt, bytesReceived: staged.size, bytesTotal: staged.size });
        counters.preprint_fetch_succeeded++;
        return result;
      } finally {
        await staged.remove();
      }
    } catch (err) {
      if (deps.signal?.aborted) throw shutdownFailure('fetch');
      counters.preprint_fetch_failed++;
      throw toFetchFailure(err);
    } finally {
      counters.inflight_preprint_fetches--;
      release();
    }
  }

  /** Converts the stored PDF of `id` outside any shared job (ingest `force_parse` / `no_cache`). */
  convert(
    id: VersionedPreprintId,
    options: {
      readonly overwrite: boolean;
      readonly noCache: boolean;
      readonly ticket: SlotTicket;
      readonly onSlot?: () => void;
      readonly onProgress?: (progress: ConvertProgress) => void;
    },
  ): Promise<MarkdownResult> {
    const converter = this.requireConverter();
    const conversion = converter
      .convert({
        id,
        ticket: options.ticket,
        overwrite: options.overwrite,
        noCache: options.noCache,
        observer: { onSlot: () => options.onSlot?.(), onProgress: (p) => options.onProgress?.(p) },
      })
      .then((r) => ({
        key: r.markdownKey,
        sha256: r.markdownSha256,
        imageCount: r.imageCount,
        parserTaskId: r.parserTaskId,
        reused: false,
      }))
      .catch((err: unknown) => {
        throw this.deps.signal?.aborted ? shutdownFailure('convert') : err;
      });
    return this.track(conversion);
  }

  private requireConverter(): Converter {
    if (this.deps.converter === null) {
      throw new JobFailure('fatal', 'convert', `server-side conversion disabled: ${this.deps.conversion.reason}`);
    }
    return this.deps.converter;
  }

  private async run(job: Job): Promise<void> {
    const { clock, leases } = this.deps;
    let lease: HeldLease | null = null;
    try {
      if (leases) {
        lease = await this.lead(job, leases);
        // The job ended on the instance that held it (a failure cooling down there).
        if (lease === null) return;
      }
      const stages = async () => {
        await this.fetchStage(job);
        // A lease lost during the download: the instance that takes the job over converts, not this one.
        if (lease?.isLost) return;
        if (job.wantMarkdown) await this.convertStage(job);
      };
      await (lease ? lease.whileHeld(stages()) : stages());
      if (lease?.isLost) throw new Error(lease.lostReason);
      this.succeed(job);
      await lease?.end(null, clock.now());
    } catch (err) {
      const stage = job.pdfReady ? 'convert' : 'fetch';
      const stopped = this.deps.signal?.aborted === true;
      // The lease lost (§21): the job ends here, retryable and without a cooldown — the id's row is another's or
      // free, and a retry follows (or takes) the job through it.
      const lost = !stopped && lease?.isLost === true;
      const failure = stopped
        ? shutdownFailure(stage)
        : lost
          ? new JobFailure('retryable', stage, lease!.lostReason)
          : err instanceof JobFailure
            ? err
            : new JobFailure('retryable', stage, (err as Error).message);
      if (!stopped && !lost && !(err instanceof JobFailure)) {
        this.deps.logger.error({ err, preprint_id: job.id }, 'paper-access job failed');
      }
      const times = this.times.get(job);
      if (times) times.finishedAt = clock.now();
      this.totals.failed++;
      job.failWith(failure, clock.now(), lost ? 0 : (this.deps.failureCooldownMs ?? FAILURE_COOLDOWN_MS));
      if (stopped || lost) await lease?.release();
      else if (lease && job.failure) {
        const { kind, detail, notFound, until } = job.failure;
        await lease.end({ kind, stage: failure.stage, detail, notFound }, until);
      }
    }
  }

  /** What the job's row shows: its asset and its snapshot now. */
  private view(job: Job): JobView {
    const snapshot = jobSnapshot(job, this.queueView(job), this.deps.clock.now());
    return { kind: job.wantMarkdown ? 'markdown' : 'pdf', snapshot: snapshot as unknown as Record<string, unknown> };
  }

  /**
   * Cluster mode: takes the job's lease, or — while another instance holds it — follows that instance's job,
   * looking at its row every second, until the lease is free (the job ended there, or its holder stopped renewing
   * for 60 s) and this instance takes it. `null` when the job ended there in a failure still cooling down: the
   * local job then ends with that failure.
   */
  private async lead(job: Job, leases: JobLeases): Promise<HeldLease | null> {
    const { clock, signal } = this.deps;
    for (;;) {
      const claim = await leases
        .acquire(job.id, () => this.view(job))
        .catch((err: unknown) => {
          const stage = job.pdfReady ? 'convert' : 'fetch';
          throw new JobFailure('retryable', stage, `paper-access job record unavailable: ${(err as Error).message}`);
        });
      if (claim.lease !== null) {
        const lease = claim.lease;
        job.heldElsewhere = false;
        job.remote = null;
        job.observe(() => lease.changed());
        job.changed();
        this.placed(job);
        return lease;
      }
      if (claim.row?.failure) {
        this.endAsElsewhere(job, claim.row, claim.row.failure);
        return null;
      }
      if (claim.row) this.follow(job, claim.row);
      this.placed(job);
      await clock.sleep(WATCH_MS, signal);
    }
  }

  /** The placement of `job` is known: its snapshot is now the cluster's. */
  private placed(job: Job): void {
    this.placements.get(job)?.resolve();
  }

  /** Shows the stored snapshot of the instance running the job; its stored PDF as soon as it has one. */
  private follow(job: Job, row: JobLeaseRow): void {
    const remote = row.snapshot as unknown as Snapshot;
    job.heldElsewhere = true;
    job.remote = remote;
    if (remote.pdf_ready && !job.pdfReady) {
      job.pdfReady = true;
      // Ingest's fetch step joined this job: it finishes once the PDF is stored, wherever it was fetched.
      this.deps.papers.findPdf(job.preprint).then(
        (stored) => {
          if (stored === null || job.pdfStored.settled) return;
          job.pdfResult = { key: stored.key, sha256: storedSha256(stored.metadata), bytes: stored.size, reused: true };
          job.pdfStored.resolve(job.pdfResult);
        },
        () => undefined,
      );
    }
    job.changed();
  }

  /** The job ended on another instance in `failure`: this one answers that failure until its cooldown ends. */
  private endAsElsewhere(job: Job, row: JobLeaseRow, failure: NonNullable<JobLeaseRow['failure']>): void {
    const now = this.deps.clock.now();
    job.heldElsewhere = true;
    job.remote = null;
    job.pdfReady = (row.snapshot as unknown as Snapshot).pdf_ready === true;
    const times = this.times.get(job);
    if (times) times.finishedAt = now;
    const ended = new JobFailure(failure.kind, failure.stage, failure.detail, {
      notFound: failure.notFound,
      retryAt: row.leaseUntil,
    });
    job.failWith(ended, now, row.leaseUntil - now);
  }

  private succeed(job: Job): void {
    job.state = 'done';
    job.phase = 'ready';
    this.totals.succeeded++;
    const times = this.times.get(job);
    if (times) times.finishedAt = this.deps.clock.now();
    this.retire(job);
    job.finished.resolve();
    job.changed();
  }

  private async fetchStage(job: Job): Promise<void> {
    const { papers, clock } = this.deps;
    let stored;
    try {
      stored = await papers.findPdf(job.preprint);
    } catch (err) {
      throw new JobFailure('retryable', 'fetch', storeErrorText(err));
    }
    if (stored !== null) {
      job.pdfReady = true;
      job.pdfResult = { key: stored.key, sha256: storedSha256(stored.metadata), bytes: stored.size, reused: true };
      job.pdfStored.resolve(job.pdfResult);
      return;
    }
    job.phase = 'fetching_pdf';
    job.state = 'queued';
    job.changed();
    const result = await this.fetchPdf(job.preprint, {
      overwrite: false,
      ticket: job,
      onSlot: () => {
        const now = clock.now();
        job.state = 'running';
        job.startedAt ??= now;
        job.fetch = {
          started_at: now,
          completed_at: null,
          bytes_received: 0,
          bytes_total: null,
          sha256: null,
          attempts: 0,
        };
        job.changed();
      },
      onProgress: (p) => {
        if (!job.fetch) return;
        job.fetch.attempts = p.attempt;
        job.fetch.bytes_received = p.bytesReceived;
        job.fetch.bytes_total = p.bytesTotal;
        job.changed();
      },
    });
    job.pdfReady = true;
    job.pdfResult = result;
    if (job.fetch) {
      job.fetch.completed_at = clock.now();
      job.fetch.sha256 = result.sha256;
    }
    job.pdfStored.resolve(result);
    job.changed();
  }

  private async convertStage(job: Job): Promise<void> {
    const { papers, clock } = this.deps;
    let md;
    try {
      md = await papers.findMarkdown(job.preprint);
    } catch (err) {
      throw new JobFailure('retryable', 'convert', storeErrorText(err));
    }
    if (md !== null) {
      job.mdReady = true;
      job.mdResult = {
        key: md.key,
        sha256: storedSha256(md.metadata),
        imageCount: 0,
        parserTaskId: null,
        reused: true,
      };
      return;
    }
    const converter = this.requireConverter();
    job.phase = 'converting_md';
    job.state = 'queued';
    job.waitingForParser = true;
    job.changed();
    const result = await converter.convert({
      id: job.preprint,
      ticket: job,
      overwrite: false,
      noCache: false,
      observer: {
        onSlot: () => {
          const now = clock.now();
          job.state = 'running';
          job.waitingForParser = false;
          job.startedAt ??= now;
          job.convert = {
            started_at: now,
            parser_task_id: null,
            stage: 'submitting',
            polled_count: 0,
            completed_at: null,
            extracted_pages: null,
            total_pages: null,
            submissions: 0,
          };
          job.changed();
        },
        onProgress: (p) => {
          if (!job.convert) return;
          job.convert.stage = p.stage;
          job.convert.parser_task_id = p.parserTaskId;
          job.convert.polled_count = p.polledCount;
          job.convert.submissions = p.submissions;
          if (p.extractedPages !== null) job.convert.extracted_pages = p.extractedPages;
          if (p.totalPages !== null) job.convert.total_pages = p.totalPages;
          job.changed();
        },
      },
    });
    job.mdReady = true;
    if (job.convert) job.convert.completed_at = clock.now();
    job.mdResult = {
      key: result.markdownKey,
      sha256: result.markdownSha256,
      imageCount: result.imageCount,
      parserTaskId: result.parserTaskId,
      reused: false,
    };
  }

  /** Retires jobs whose cooldown ended (bounded memory without a timer per job). */
  private sweep(): void {
    const now = this.deps.clock.now();
    for (const job of this.jobs.values()) {
      if (!job.inProgress && job.failure && job.failure.until <= now) this.retire(job);
    }
  }
}

/** Work the shutdown stopped fails `retryable` (a restarted server starts it again on the next trigger). */
const shutdownFailure = (stage: 'fetch' | 'convert') => new JobFailure('retryable', stage, SHUTDOWN_DETAIL);

/** A fetch error as a job failure (§11.5): the fetcher's classes, store failures retryable. */
function toFetchFailure(err: unknown): JobFailure {
  if (err instanceof JobFailure) return err;
  if (err instanceof FetchFailure) {
    const message = err.kind === 'retryable' ? `PDF download from arXiv failed: ${err.message}` : err.message;
    return new JobFailure(err.kind, 'fetch', message, { notFound: err.code === 'not_found' });
  }
  if (isObjectStoreError(err)) return new JobFailure('retryable', 'fetch', storeErrorText(err));
  return new JobFailure('retryable', 'fetch', `PDF fetch failed: ${(err as Error).message}`);
}
