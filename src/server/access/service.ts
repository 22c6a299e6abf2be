/**
 * Paper access as the routes use it (CONTRACT §11.4): status (no side effects), triggers (bytes, or a job), and
 * the images of a paper.
 */
import type { Readable } from 'node:stream';
import { NotFoundError } from '../../shared/domain-errors.js';
import { imageKey, legacyPaperKeys, paperKeys, type VersionedPreprintId } from '../../shared/ids.js';
import { contentTypeFor } from '../storage/keys.js';
import type { ByteRange, GotObject, ObjectInfo } from '../storage/object-store.js';
import type { PaperService } from '../papers/service.js';
import { unsafeNameReason } from '../papers/zip-bundle.js';
import { imageNameProblem } from '../papers/zip-bundle-names.js';
import type { Converter } from './converter.js';
import { RECENT_MAX, RECENT_MS, SHUTDOWN_DETAIL, type AccessEngine, type AccessKind } from './engine.js';
import type { Resolution, Resolver } from './resolver.js';
import {
  accepted,
  cachedSnapshot,
  jobSnapshot,
  noneSnapshot,
  unavailableSnapshot,
  withResolution,
  type Snapshot,
} from './snapshot.js';
import type { TokenRing } from '../../parser-api/token-ring.js';

/** Stored bytes to send. */
export interface Content {
  readonly type: 'content';
  readonly contentType: string;
  readonly size: number;
  readonly body: Readable;
  /** The stored object's key (the PDF's file name comes from it). */
  readonly key: string;
  readonly etag: string | null;
  /** For a ranged read: the bytes `body` holds (`size` is the whole object's), or `unsatisfiable`. */
  readonly range?: GotObject['range'];
}

/** How a trigger ended when no bytes are sent (the route picks the status from `outcome`). */
export interface TriggerSnapshot {
  readonly type: 'snapshot';
  /** `accepted` 202, `not_found` 404, `failed` 502, `cooldown` 503, `unavailable` 503. */
  readonly outcome: 'accepted' | 'not_found' | 'failed' | 'cooldown' | 'unavailable';
  readonly snapshot: Snapshot;
  /** `Retry-After` seconds: 5 for 202, cooldown end + 1 for failures, none for `unavailable`. */
  readonly retryAfterSeconds: number | null;
}

export type TriggerResult = Content | TriggerSnapshot;

/** One batch-fetch item after resolution: how its trigger ended. */
export interface EnqueueResult {
  readonly snapshot: Snapshot;
  /** This item started a new job (it was not joined, and no failed job was cooling down). */
  readonly created: boolean;
  /** This item started or joined a job in progress. */
  readonly enqueued: boolean;
  /** The trigger's failure (`failed`, `cooldown`, `unavailable`): the snapshot's detail; else `null`. */
  readonly error: string | null;
}

/** A job as the registry lists it (§18.2, §19). */
export interface ListedJob {
  readonly asset: AccessKind;
  readonly snapshot: Snapshot;
  /** Queued or running. */
  readonly active: boolean;
  /** Epoch ms of the last change. */
  readonly updatedAt: number;
  /** Epoch ms of the failure that ended it, else `null`. */
  readonly finishedAt: number | null;
}

const MAX_IMAGE_SEGMENT = 255;

/**
 * Whether `name` is an image key of §9.4 as an upload stores it (segments 1..255 chars, no `.`/`..`, no `\`, NUL,
 * absolute path; no segment named like a local-store `.meta.json` sidecar): the route serves images, never the
 * store's own files.
 */
export function validImageName(name: string): boolean {
  return name !== '' && unsafeNameReason(name) === null && imageNameProblem(name, MAX_IMAGE_SEGMENT) === null;
}

/** What the health endpoint reports as `data.parser` (§8.1). */
export interface ParserCounters {
  readonly submitted: number;
  readonly succeeded: number;
  readonly failed_fatal: number;
  readonly failed_retryable: number;
  readonly failed_daily_limit: number;
  readonly cache_hits: number;
  readonly cache_misses: number;
  readonly inflight_jobs: number;
  readonly queued_jobs: number;
  readonly preprint_fetches: number;
  readonly preprint_fetch_succeeded: number;
  readonly preprint_fetch_failed: number;
  readonly inflight_preprint_fetches: number;
  readonly tokens_total: number;
  readonly tokens_cooling: number;
}

export interface AccessInternals {
  readonly converter: Converter | null;
  readonly ring: TokenRing;
  /** Aborted by `close()`: the fetcher, converter and engine end their work in progress. */
  readonly lifetime: AbortController;
}

export class PaperAccess {
  constructor(
    readonly resolver: Resolver,
    readonly engine: AccessEngine,
    private readonly papers: PaperService,
    /** The token ring and converter (health counters). */
    readonly internals: AccessInternals,
  ) {}

  /** Fetch items answered from the store with nothing to do, since the start (`skipped` of §19's counters). */
  readonly fetchTotals = { skipped: 0 };

  /**
   * Shutdown: aborts every download, parser call and wait in progress and resolves once all jobs (and ingest
   * operations through the engine) have ended — their slots released, their staged files removed. Triggers after
   * this fail at once (`server shutting down`).
   */
  async close(): Promise<void> {
    this.internals.lifetime.abort(new Error(SHUTDOWN_DETAIL));
    await this.engine.settled();
  }

  /** `data.parser` of `GET /api/health` with paper access on. */
  counters(): ParserCounters {
    const { converter, ring } = this.internals;
    const conversions = converter?.counts ?? {
      submitted: 0,
      succeeded: 0,
      failed_fatal: 0,
      failed_retryable: 0,
      failed_daily_limit: 0,
    };
    const jobs = this.engine.jobCounts();
    return {
      ...conversions,
      cache_hits: this.engine.counters.cache_hits,
      cache_misses: this.engine.counters.cache_misses,
      inflight_jobs: jobs.inflight,
      queued_jobs: jobs.queued,
      preprint_fetches: this.engine.counters.preprint_fetches,
      preprint_fetch_succeeded: this.engine.counters.preprint_fetch_succeeded,
      preprint_fetch_failed: this.engine.counters.preprint_fetch_failed,
      inflight_preprint_fetches: this.engine.counters.inflight_preprint_fetches,
      tokens_total: ring.size,
      tokens_cooling: ring.cooling(),
    };
  }

  /** `GET …/<kind>/status`: stored → cached; a job → its snapshot; markdown without conversion → unavailable; else none. */
  async status(resolution: Resolution, kind: AccessKind): Promise<Snapshot> {
    const { id } = resolution;
    const now = this.engine.clock.now();
    const job = this.engine.job(id);
    // A job in progress knows what is stored better than a HEAD would tell cheaply: its asset is not stored yet —
    // except the PDF of a job that has stored it and is converting, which §11.4 answers as cached.
    const pdfStoredByJob = kind === 'pdf' && job?.pdfReady === true;
    if (job?.inProgress && !pdfStoredByJob) {
      return withResolution(jobSnapshot(job, this.engine.queueView(job), now), resolution);
    }
    const [pdf, md] = await Promise.all([this.find(id, 'pdf'), this.find(id, 'markdown')]);
    const pdfReady = pdf !== null;
    const mdReady = md !== null;
    let snapshot: Snapshot;
    let elsewhere: Snapshot | null = null;
    if ((kind === 'pdf' ? pdf : md) !== null) snapshot = cachedSnapshot(id, kind, pdfReady, mdReady);
    else if (job) snapshot = { ...jobSnapshot(job, null, now), pdf_ready: pdfReady || job.pdfReady, md_ready: mdReady };
    else if (this.engine.leases && (elsewhere = await this.elsewhere(id)) !== null) {
      // Cluster mode: the job another instance runs, or its failure while the cooldown lasts (§21).
      snapshot = { ...elsewhere, pdf_ready: pdfReady || elsewhere.pdf_ready, md_ready: mdReady };
    } else if (kind === 'markdown' && !this.engine.conversion.enabled) {
      snapshot = unavailableSnapshot(id, pdfReady, `server-side conversion disabled: ${this.engine.conversion.reason}`);
    } else snapshot = noneSnapshot(id, kind, pdfReady, mdReady);
    return withResolution(snapshot, resolution);
  }

  /**
   * `GET …/markdown` and `GET …/pdf`: the stored bytes (of `range` only, when given), else the job's answer (§11.4
   * trigger table).
   */
  async trigger(resolution: Resolution, kind: AccessKind, range?: ByteRange): Promise<TriggerResult> {
    const { id } = resolution;
    const { engine } = this;
    const content = await this.content(id, kind, range);
    if (content !== null) {
      engine.counters.cache_hits++;
      return content;
    }
    engine.counters.cache_misses++;
    if (kind === 'markdown' && !engine.conversion.enabled) {
      const pdf = await this.find(id, 'pdf');
      const detail = `markdown not cached and server-side conversion is disabled: ${engine.conversion.reason}`;
      return {
        type: 'snapshot',
        outcome: 'unavailable',
        snapshot: withResolution(unavailableSnapshot(id, pdf !== null, detail), resolution),
        retryAfterSeconds: null,
      };
    }
    return (await this.startJob(resolution, kind)).result;
  }

  /**
   * One item of a batch fetch (§18.2 `POST /api/papers/fetch`, §19 `POST /api/downloader/fetch`): what the trigger
   * `GET …/<kind>` would do, without opening the stored bytes — a stored asset is `cached` (and counted as skipped),
   * otherwise the job is started or joined, or the trigger's failure is reported.
   */
  async enqueue(resolution: Resolution, kind: AccessKind): Promise<EnqueueResult> {
    const { id } = resolution;
    const { engine } = this;
    const [pdf, md] = await Promise.all([this.find(id, 'pdf'), this.find(id, 'markdown')]);
    if ((kind === 'pdf' ? pdf : md) !== null) {
      engine.counters.cache_hits++;
      this.fetchTotals.skipped++;
      const snapshot = withResolution(cachedSnapshot(id, kind, pdf !== null, md !== null), resolution);
      return { snapshot, created: false, enqueued: false, error: null };
    }
    engine.counters.cache_misses++;
    if (kind === 'markdown' && !engine.conversion.enabled) {
      const detail = `markdown not cached and server-side conversion is disabled: ${engine.conversion.reason}`;
      const snapshot = withResolution(unavailableSnapshot(id, pdf !== null, detail), resolution);
      return { snapshot, created: false, enqueued: false, error: detail };
    }
    const { result, created } = await this.startJob(resolution, kind);
    const enqueued = result.outcome === 'accepted';
    return { snapshot: result.snapshot, created, enqueued, error: enqueued ? null : (result.snapshot.detail ?? null) };
  }

  /**
   * The jobs this instance holds (§18.2 `GET /api/papers/jobs`) — in cluster mode those of every instance —
   * oldest first, each with its §11.2 snapshot.
   */
  async jobs(): Promise<ListedJob[]> {
    const now = this.engine.clock.now();
    const held = this.engine.held();
    const local: ListedJob[] = held
      .filter((h) => !h.job.heldElsewhere)
      .map((h) => ({
        asset: h.asset,
        snapshot: jobSnapshot(h.job, this.engine.queueView(h.job), now),
        active: h.job.inProgress,
        updatedAt: h.updatedAt,
        finishedAt: h.finishedAt,
      }));
    const { leases } = this.engine;
    if (!leases) return local;
    // Cluster mode: the jobs other instances run or ended lately, from their rows; a job running here wins.
    const rows = await leases.listed(now - RECENT_MS, RECENT_MAX);
    const remote = new Set(rows.map((r) => r.preprintId));
    const running = new Set(local.filter((j) => j.active).map((j) => j.snapshot.preprint_id));
    const listed = [
      ...local.filter((j) => j.active || !remote.has(j.snapshot.preprint_id)),
      ...rows
        .filter((r) => !running.has(r.preprintId))
        .map((r) => ({
          asset: r.kind,
          snapshot: r.snapshot as unknown as Snapshot,
          active: r.endedAt === null,
          updatedAt: r.updatedAt,
          finishedAt: r.endedAt,
        })),
    ];
    const submitted = (j: ListedJob) => Date.parse(j.snapshot.submitted_at ?? '') || j.updatedAt;
    const id = (j: ListedJob) => j.snapshot.preprint_id;
    return listed.sort((a, b) => submitted(a) - submitted(b) || (id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0));
  }

  /** Cluster mode: the snapshot of the job of `id` another instance runs (or ended in a cooling failure). */
  private async elsewhere(id: VersionedPreprintId): Promise<Snapshot | null> {
    const row = await this.engine.leases?.elsewhere(id.id);
    return row ? (row.snapshot as unknown as Snapshot) : null;
  }

  /** Jobs ended since the start (stored; failed or cooling down), and fetch items already stored (§19 counters). */
  jobTotals(): { succeeded: number; failed: number; skipped: number } {
    return { ...this.engine.totals, skipped: this.fetchTotals.skipped };
  }

  /** Starts or joins the job of a trigger whose asset is not stored, and answers as the trigger does. */
  private async startJob(
    resolution: Resolution,
    kind: AccessKind,
  ): Promise<{ result: TriggerSnapshot; created: boolean }> {
    const { id } = resolution;
    const { engine } = this;
    const created = engine.job(id) === undefined;
    const job = engine.start(id, kind);
    if (created) this.papers.fillMetadata(id);
    // Cluster mode: a new job first learns whether it runs here or follows another instance's (§21).
    const placement = engine.placement(job);
    if (placement) await placement;
    const now = engine.clock.now();
    const snapshot = withResolution(jobSnapshot(job, engine.queueView(job), now), resolution);
    if (job.inProgress || job.state === 'done') {
      const result = {
        type: 'snapshot',
        outcome: 'accepted',
        snapshot: accepted(snapshot, id, kind, now),
        retryAfterSeconds: 5,
      } as const;
      return { result, created };
    }
    const failure = job.failure!;
    const retryAfterSeconds = Math.max(0, Math.ceil((failure.until - now) / 1000)) + 1;
    const outcome = failure.notFound ? 'not_found' : failure.kind === 'daily_limit' ? 'cooldown' : 'failed';
    return { result: { type: 'snapshot', outcome, snapshot, retryAfterSeconds }, created };
  }

  /** A stored image of the paper (§11.4 ★); `NotFoundError('image not found')` otherwise. */
  async image(id: VersionedPreprintId, name: string): Promise<Content> {
    if (!validImageName(name)) throw new NotFoundError('image not found');
    const legacy = legacyPaperKeys(id);
    const keys = [imageKey(id, name), ...(legacy ? [`${legacy.imagesPrefix}${name}`] : [])];
    for (const key of keys) {
      const got = await this.get(key);
      if (got !== null) return got;
    }
    throw new NotFoundError('image not found');
  }

  /** The asset's bytes (app key, then the legacy key of an old-style id), or `null`. */
  private async content(id: VersionedPreprintId, kind: AccessKind, range?: ByteRange): Promise<Content | null> {
    const key = kind === 'pdf' ? paperKeys(id).pdf : paperKeys(id).markdown;
    const found = await this.get(key, range);
    if (found !== null) return found;
    const legacy = legacyPaperKeys(id);
    return legacy ? this.get(kind === 'pdf' ? legacy.pdf : legacy.markdown, range) : null;
  }

  private async get(key: string, range?: ByteRange): Promise<Content | null> {
    // A store failure is already the domain's `UpstreamError('object_store')` (HTTP 500).
    const got = await this.papers.readObject(key, range);
    if (got === null) return null;
    return {
      type: 'content',
      contentType: got.info.contentType ?? contentTypeFor(key),
      size: got.info.size,
      body: got.body,
      key,
      etag: got.info.etag,
      ...(got.range !== undefined ? { range: got.range } : {}),
    };
  }

  /** A store failure is already the domain's `UpstreamError('object_store')` (HTTP 500). */
  private find(id: VersionedPreprintId, kind: AccessKind): Promise<ObjectInfo | null> {
    return kind === 'pdf' ? this.papers.findPdf(id) : this.papers.findMarkdown(id);
  }
}
