/**
 * The paper catalog: the in-memory metadata index (CONTRACT §4) plus the graph write-through (§6.5).
 *
 * Write-through updates the in-memory row immediately (stats and needs-parser see it in the same request cycle)
 * and marks it dirty; persistence of the index (Parquet, §4.2) plugs in through `IndexPersistence`.
 */
import type { Logger } from 'pino';
import { idFromStem, parsePreprintId, type VersionedPreprintId } from '../../shared/ids.js';
import type { GraphClient } from '../graph/driver.js';
import { SortedList } from './sorted-list.js';

/** One row of `index/papers.parquet` (§4.1). */
export interface IndexRow {
  preprint_id: string;
  key: string;
  yymm: string;
  has_pdf: boolean;
  has_md: boolean;
  has_json: boolean;
  image_count: number;
  pdf_size_bytes: number | null;
  md_size_bytes: number | null;
  images_size_bytes: number | null;
  pdf_sha256: string | null;
  md_sha256: string | null;
  pdf_etag: string | null;
  md_etag: string | null;
  pdf_uploaded_at: Date | null;
  md_uploaded_at: Date | null;
  images_uploaded_at: Date | null;
  updated_at: Date;
  title: string | null;
  authors: string | null;
  categories: string | null;
  doi: string | null;
  openalex_id: string | null;
  publication_date: string | null;
}

/** A per-row set of column values (§4.2: the unit re-applied on top of a remote index after a 412). */
export type RowMutation = Partial<Omit<IndexRow, 'preprint_id'>>;

export function emptyRow(id: VersionedPreprintId, now: Date): IndexRow {
  return {
    preprint_id: id.id,
    key: id.stem,
    yymm: id.yymm,
    has_pdf: false,
    has_md: false,
    has_json: false,
    image_count: 0,
    pdf_size_bytes: null,
    md_size_bytes: null,
    images_size_bytes: null,
    pdf_sha256: null,
    md_sha256: null,
    pdf_etag: null,
    md_etag: null,
    pdf_uploaded_at: null,
    md_uploaded_at: null,
    images_uploaded_at: null,
    updated_at: now,
    title: null,
    authors: null,
    categories: id.category,
    doi: null,
    openalex_id: null,
    publication_date: null,
  };
}

/** Persistence of the index object (Parquet on the store); `null` persistence keeps the index in memory only. */
export interface IndexPersistence {
  /** Loads all rows; `null` when the object does not exist. Throws when it cannot be read. */
  load(): Promise<IndexRow[] | null>;
  /** Rows when the stored object changed since the last load/save, else `'unchanged'`. Throws when unreadable. */
  reload(): Promise<IndexRow[] | null | 'unchanged'>;
  /**
   * Saves the rows with compare-and-swap; on a lost race merges the remote rows with `pending` and retries.
   * Resolves to the rows now stored — `rows` itself when they were written without a merge — or `'retry'` when
   * every attempt lost (keep the rows dirty).
   */
  save(rows: readonly IndexRow[], pending: ReadonlyMap<string, RowMutation>): Promise<readonly IndexRow[] | 'retry'>;
}

export interface CatalogStats {
  readonly available: boolean;
  readonly total?: number;
  readonly has_pdf?: number;
  readonly has_md?: number;
  readonly has_json?: number;
  readonly needs_parser?: number;
  readonly total_images?: number;
  readonly loaded_at?: Date | null;
}

export interface PaperIndexOptions {
  /** Debounce of the flush after a write-through (§4.2: 5 s). */
  readonly flushDelayMs?: number;
  /** Reload / retry period (§4.2: 60 s). */
  readonly reloadIntervalMs?: number;
}

/** Re-applies pending mutations on top of `rows` (local values win for the columns a mutation sets). */
export function applyPending(
  rows: readonly IndexRow[],
  pending: ReadonlyMap<string, RowMutation>,
  local: ReadonlyMap<string, IndexRow>,
): IndexRow[] {
  // Rows are never changed in place, so unmutated rows are shared rather than copied (2.6M rows on a reload).
  if (pending.size === 0) return [...rows];
  const byId = new Map(rows.map((r) => [r.preprint_id, r]));
  for (const [id, mutation] of pending) {
    const base = byId.get(id) ?? local.get(id) ?? null;
    if (base !== null) byId.set(id, { ...base, ...mutation, preprint_id: id });
  }
  return [...byId.values()];
}

interface Counters {
  hasPdf: number;
  hasMd: number;
  hasJson: number;
  needsParser: number;
  images: number;
}

const zeroCounters = (): Counters => ({ hasPdf: 0, hasMd: 0, hasJson: 0, needsParser: 0, images: 0 });

function needsParser(row: IndexRow): boolean {
  return row.has_pdf === true && row.has_md !== true;
}

/** Adds (`sign` 1) or removes (`sign` -1) a row's contribution to the §4.3 counters. */
function count(c: Counters, row: IndexRow, sign: 1 | -1): void {
  if (row.has_pdf === true) c.hasPdf += sign;
  if (row.has_md === true) c.hasMd += sign;
  if (row.has_json === true) c.hasJson += sign;
  if (needsParser(row)) c.needsParser += sign;
  c.images += sign * (Number.isFinite(row.image_count) ? row.image_count : 0);
}

/** `pdf_uploaded_at` as a sort key: milliseconds, or -∞ for null (and invalid dates), so nulls sort last. */
function uploadedKey(row: IndexRow): number {
  const t = row.pdf_uploaded_at?.getTime();
  return t === undefined || Number.isNaN(t) ? -Infinity : t;
}

/** The §9.2 order: `pdf_uploaded_at` descending with nulls last, then `preprint_id` ascending. */
export function compareNeedsParser(a: IndexRow, b: IndexRow): number {
  const ta = uploadedKey(a);
  const tb = uploadedKey(b);
  if (ta !== tb) return ta < tb ? 1 : -1;
  return a.preprint_id < b.preprint_id ? -1 : a.preprint_id > b.preprint_id ? 1 : 0;
}

/** The in-memory metadata index with write-through, debounced CAS flushes and periodic reloads (§4.2). */
export class PaperIndex {
  private rows = new Map<string, IndexRow>();
  /** versionless id → versioned ids (for the graph write-through). */
  private byPaper = new Map<string, Set<string>>();
  /** The §4.3 counters, kept exact on every row change (stats never scans). */
  private counts: Counters = zeroCounters();
  /** Rows with `has_pdf` and not `has_md`, in the §9.2 order (needs-parser never scans or sorts). */
  private readonly candidates = new SortedList<IndexRow>(compareNeedsParser);
  private readonly pending = new Map<string, RowMutation>();
  private flushTimer: NodeJS.Timeout | null = null;
  private reloadTimer: NodeJS.Timeout | null = null;
  private chain: Promise<void> = Promise.resolve();
  private readonly flushDelayMs: number;
  private readonly reloadIntervalMs: number;
  available = false;
  loadedAt: Date | null = null;

  constructor(
    private readonly logger: Logger,
    private readonly persistence: IndexPersistence | null,
    options: PaperIndexOptions = {},
  ) {
    this.flushDelayMs = options.flushDelayMs ?? 5_000;
    this.reloadIntervalMs = options.reloadIntervalMs ?? 60_000;
  }

  /** Serialises load/reload/flush. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.chain.then(fn);
    this.chain = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  private replace(rows: readonly IndexRow[]): void {
    this.rows = new Map();
    this.byPaper = new Map();
    this.counts = zeroCounters();
    const candidates: IndexRow[] = [];
    for (const r of rows) {
      const previous = this.rows.get(r.preprint_id);
      if (previous) count(this.counts, previous, -1);
      this.index(r);
      count(this.counts, r, 1);
    }
    for (const r of this.rows.values()) if (needsParser(r)) candidates.push(r);
    this.candidates.reset(candidates);
  }

  private index(row: IndexRow): void {
    this.rows.set(row.preprint_id, row);
    const versionless = parsePreprintId(row.preprint_id)?.versionless ?? row.preprint_id;
    let ids = this.byPaper.get(versionless);
    if (!ids) this.byPaper.set(versionless, (ids = new Set()));
    ids.add(row.preprint_id);
  }

  /** Sets one row, updating the counters and the needs-parser order. Rows are never changed in place. */
  private put(row: IndexRow): void {
    const previous = this.rows.get(row.preprint_id);
    if (previous) {
      count(this.counts, previous, -1);
      if (needsParser(previous)) this.candidates.remove(previous);
    }
    this.index(row);
    count(this.counts, row, 1);
    if (needsParser(row)) this.candidates.insert(row);
  }

  /** Initial load; a missing object is an empty, available index; an unreadable one is unavailable. */
  load(): Promise<void> {
    return this.serial(async () => {
      if (this.persistence === null) {
        this.available = true;
        this.loadedAt = new Date();
        return;
      }
      try {
        const rows = await this.persistence.load();
        if (rows === null) {
          this.logger.warn(
            'metadata index not found; starting empty (run `pksd papers sync --full --from-objects` to rebuild it)',
          );
        }
        this.replace(applyPending(rows ?? [], this.pending, this.rows));
        this.available = true;
        this.loadedAt = new Date();
      } catch (err) {
        this.available = false;
        this.logger.error({ err: (err as Error).message }, 'metadata index unavailable; retrying every 60 s');
      }
    });
  }

  /** The periodic tick: retry an unavailable index, or merge a remotely changed one. */
  reload(): Promise<void> {
    if (!this.available || this.persistence === null) return this.load();
    const persistence = this.persistence;
    return this.serial(async () => {
      try {
        const result = await persistence.reload();
        if (result === 'unchanged') return;
        this.replace(applyPending(result ?? [], this.pending, this.rows));
        this.loadedAt = new Date();
      } catch (err) {
        this.logger.warn({ err: (err as Error).message }, 'metadata index reload failed');
      }
    });
  }

  /** Starts the reload timer (unref'd). */
  startTimers(): void {
    if (this.persistence === null || this.reloadTimer !== null) return;
    this.reloadTimer = setInterval(() => {
      void this.reload()
        .then(() => (this.dirty ? this.flush() : undefined))
        .catch(() => undefined);
    }, this.reloadIntervalMs);
    this.reloadTimer.unref();
  }

  private applyMutation(preprintId: string, mutation: RowMutation): void {
    let row = this.rows.get(preprintId);
    if (!row) {
      const id = parsePreprintId(preprintId) ?? idFromStem(preprintId);
      if (id === null || id.version === null) return;
      row = emptyRow(id as VersionedPreprintId, mutation.updated_at ?? new Date());
    }
    this.put({ ...row, ...mutation });
  }

  /** Write-through: updates the row now and records the mutation for the next flush. */
  update(id: VersionedPreprintId, mutation: RowMutation): void {
    const m: RowMutation = { ...mutation, updated_at: mutation.updated_at ?? new Date() };
    this.applyMutation(id.id, m);
    this.pending.set(id.id, { ...(this.pending.get(id.id) ?? {}), ...m });
    this.scheduleFlush();
  }

  private scheduleFlush(): void {
    if (this.persistence === null || this.flushTimer !== null) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = null;
      this.flush().catch((err: unknown) =>
        this.logger.warn({ err: (err as Error).message }, 'metadata index flush failed'),
      );
    }, this.flushDelayMs);
    this.flushTimer.unref();
  }

  get(preprintId: string): IndexRow | undefined {
    return this.rows.get(preprintId);
  }

  all(): IndexRow[] {
    return [...this.rows.values()];
  }

  /** Rows of every version of a paper (same versionless id). */
  versionsOf(versionless: string): IndexRow[] {
    return [...(this.byPaper.get(versionless) ?? [])].flatMap((id) => this.rows.get(id) ?? []);
  }

  stats(): CatalogStats {
    if (!this.available) return { available: false };
    return {
      available: true,
      total: this.rows.size,
      has_pdf: this.counts.hasPdf,
      has_md: this.counts.hasMd,
      has_json: this.counts.hasJson,
      needs_parser: this.counts.needsParser,
      total_images: this.counts.images,
      loaded_at: this.loadedAt,
    };
  }

  /** Rows with `has_pdf` and not `has_md`, `pdf_uploaded_at` descending (nulls last), then `preprint_id` (§9.2). */
  needsParser(): Iterable<IndexRow> {
    return this.candidates;
  }

  get needsParserCount(): number {
    return this.candidates.size;
  }

  /** Whether the row of `preprint_id` waits for a parser result (has a PDF, no markdown). */
  isNeedsParser(preprintId: string): boolean {
    const row = this.rows.get(preprintId);
    return row !== undefined && needsParser(row);
  }

  get dirty(): boolean {
    return this.pending.size > 0;
  }

  /** Writes the whole table if dirty (CAS; merge and retry on a lost race). Store errors reject. */
  flush(): Promise<void> {
    const persistence = this.persistence;
    if (persistence === null) return Promise.resolve();
    return this.serial(async () => {
      if (this.pending.size === 0 || !this.available) return;
      const snapshot = new Map(this.pending);
      const written = this.all();
      const result = await persistence.save(written, snapshot);
      if (result === 'retry') {
        this.logger.warn('metadata index flush lost the race 5 times; keeping rows dirty for the next tick');
        return;
      }
      for (const [id, m] of snapshot) if (this.pending.get(id) === m) this.pending.delete(id);
      // Our own rows were stored as they are (no remote merge): memory already holds them plus any mutation that
      // arrived during the save, so there is nothing to rebuild.
      if (result === written) return;
      // Mutations that arrived during the save stay pending and are re-applied on top.
      this.replace(applyPending(result, this.pending, this.rows));
    });
  }

  /** Stops the timers and flushes (shutdown). */
  async close(): Promise<void> {
    if (this.flushTimer !== null) clearTimeout(this.flushTimer);
    if (this.reloadTimer !== null) clearInterval(this.reloadTimer);
    this.flushTimer = null;
    this.reloadTimer = null;
    await this.flush();
  }
}

/** Graph asset properties of one `Paper` node, computed from the index rows of all its versions (§6.1). */
export function paperAssetProperties(rows: readonly IndexRow[], now: Date): Record<string, unknown> {
  const byVersion = rows.map((r) => ({ r, v: parsePreprintId(r.preprint_id)?.version ?? 0 })).sort((a, b) => a.v - b.v);
  const withAsset = byVersion.filter(({ r }) => r.has_pdf || r.has_md || r.image_count > 0);
  const pdf = byVersion.filter(({ r }) => r.has_pdf);
  const md = byVersion.filter(({ r }) => r.has_md);
  const latestPdf = pdf.at(-1);
  const latestMd = md.at(-1);
  return {
    yymm: rows[0]?.yymm ?? null,
    versions: withAsset.map(({ r }) => r.preprint_id),
    pdf_versions: pdf.map(({ r }) => r.preprint_id),
    md_versions: md.map(({ r }) => r.preprint_id),
    has_pdf: pdf.length > 0,
    has_md: md.length > 0,
    latest_pdf_version: latestPdf ? latestPdf.v : null,
    pdf_size: latestPdf?.r.pdf_size_bytes ?? null,
    pdf_sha256: latestPdf?.r.pdf_sha256 ?? null,
    latest_md_version: latestMd ? latestMd.v : null,
    md_size: latestMd?.r.md_size_bytes ?? null,
    md_sha256: latestMd?.r.md_sha256 ?? null,
    image_count: latestMd?.r.image_count ?? 0,
    assets_updated_at: now.toISOString(),
  };
}

/** MERGE + SET of a `Paper` node's asset properties (one explicit transaction: no 30 s managed retries). */
export async function syncPaperNode(
  graph: GraphClient,
  versionless: string,
  props: Record<string, unknown>,
): Promise<void> {
  const session = graph.driver.session({
    defaultAccessMode: 'WRITE',
    ...(graph.database ? { database: graph.database } : {}),
  });
  try {
    const tx = session.beginTransaction();
    try {
      await tx.run(
        `MERGE (p:Paper {preprint_id: $id})
         SET p += $props, p.assets_updated_at = datetime($props.assets_updated_at)`,
        { id: versionless, props },
      );
      await tx.commit();
    } catch (err) {
      if (tx.isOpen()) await tx.rollback().catch(() => undefined);
      throw err;
    }
  } finally {
    await session.close().catch(() => undefined);
  }
}

/** Index + graph write-through. */
export class Catalog {
  constructor(
    readonly index: PaperIndex,
    private readonly graph: GraphClient | null,
    private readonly logger: Logger,
  ) {}

  /**
   * Applies a successful object write to the index row and the graph. Resolves to `true` when the catalog sync
   * is deferred (`X-Catalog-Sync: deferred`): index unavailable, or the graph is configured and failed.
   */
  async recordWrite(id: VersionedPreprintId, mutation: RowMutation): Promise<boolean> {
    const now = new Date();
    this.index.update(id, { ...mutation, updated_at: now });
    let deferred = !this.index.available;
    if (this.graph !== null) {
      if (!this.index.available) return true;
      try {
        await syncPaperNode(
          this.graph,
          id.versionless,
          paperAssetProperties(this.index.versionsOf(id.versionless), now),
        );
      } catch (err) {
        this.logger.warn(
          { err: (err as Error).message, preprint_id: id.id },
          'graph write-through failed; catalog sync deferred',
        );
        deferred = true;
      }
    }
    return deferred;
  }
}
