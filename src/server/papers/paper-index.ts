/**
 * The in-memory metadata index (CONTRACT §4): write-through of rows, exact §4.3 counters, the §9.2 needs-parser
 * order, debounced CAS flushes and periodic reloads (§4.2). Persistence (Parquet on the store) plugs in through
 * `IndexPersistence`.
 */
import type { Logger } from 'pino';
import { normaliseDoi } from '../../shared/doi.js';
import { idFromStem, parsePreprintId, type VersionedPreprintId } from '../../shared/ids.js';
import { applyPending, definedOnly } from './index/pending.js';
import { emptyRow, type IndexRow, type RowMutation } from './index/row.js';
import { IndexTable } from './index/table.js';
import { rowsByTimeDescending } from './index/time-order.js';
import { SortedList } from './sorted-list.js';

/** Persistence of the index object (Parquet on the store); `null` persistence keeps the index in memory only. */
export interface IndexPersistence {
  /** Loads the table; `null` when the object does not exist. Throws when it cannot be read. */
  load(): Promise<IndexTable | null>;
  /** A table when the stored object changed since the last load/save, else `'unchanged'`. Throws when unreadable. */
  reload(): Promise<IndexTable | null | 'unchanged'>;
  /**
   * Saves the table with compare-and-swap; on a lost race merges the remote rows with `pending` and retries.
   * Resolves to `'stored'` when `table` itself was written, to the merged table now stored, or to `'retry'` when
   * every attempt lost (keep the rows dirty). Writes made to `table` during the save are not included.
   */
  save(table: IndexTable, pending: ReadonlyMap<string, RowMutation>): Promise<'stored' | IndexTable | 'retry'>;
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

interface Counters {
  hasPdf: number;
  hasMd: number;
  hasJson: number;
  needsParser: number;
  images: number;
}

const zeroCounters = (): Counters => ({ hasPdf: 0, hasMd: 0, hasJson: 0, needsParser: 0, images: 0 });

/** The orders of `GET /api/papers` (CONTRACT §18.2): `updated_at` newest first, or `preprint_id`. */
export type ListSort = 'updated_at' | 'id';

/** Row numbers in one list order, from a position on; valid until the next write (read it synchronously). */
export interface RowOrder {
  readonly size: number;
  from(start: number): IterableIterator<number>;
}

/** What a list query reads: the table's columns and the rows in the asked order (valid until the next write). */
export interface RowListing {
  readonly table: IndexTable;
  readonly order: RowOrder;
  /** The order's comparison of two row numbers. */
  readonly compare: (a: number, b: number) => number;
}

interface ListOrders {
  readonly updatedAt: SortedList<number>;
  readonly id: SortedList<number>;
}

/** The in-memory metadata index with write-through, debounced CAS flushes and periodic reloads (§4.2). */
export class PaperIndex {
  private table = new IndexTable();
  /** The §4.3 counters, kept exact on every row change (stats never scans). */
  private counts: Counters = zeroCounters();
  /** Row numbers with `has_pdf` and not `has_md`, in the §9.2 order (needs-parser never scans or sorts). */
  private readonly candidates = new SortedList<number>((a, b) => this.compareCandidates(a, b));
  /**
   * The §18.2 list orders: built at the first list request after a load (a load does not pay for them), then kept
   * exact on every row change like the needs-parser order, so a page never sorts the table.
   */
  private orders: ListOrders | null = null;
  /** The DOI → row numbers map of this table, built on first use, dropped when a row is added or a DOI changes. */
  private doiRows: Map<string, number[]> | null = null;
  private readonly pending = new Map<string, RowMutation>();
  private flushTimer: NodeJS.Timeout | null = null;
  private reloadTimer: NodeJS.Timeout | null = null;
  private chain: Promise<void> = Promise.resolve();
  private readonly flushDelayMs: number;
  private readonly reloadIntervalMs: number;
  private flushed: (() => void) | null = null;
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

  private isCandidate(i: number): boolean {
    return this.table.flags.has_pdf[i] === 1 && this.table.flags.has_md[i] !== 1;
  }

  /** The §9.2 order: `pdf_uploaded_at` descending with nulls last, then `preprint_id` ascending. */
  private compareCandidates(a: number, b: number): number {
    const at = this.table.times.pdf_uploaded_at;
    const ta = at[a]!;
    const tb = at[b]!;
    const na = Number.isNaN(ta);
    const nb = Number.isNaN(tb);
    if (na !== nb) return na ? 1 : -1;
    if (!na && ta !== tb) return ta < tb ? 1 : -1;
    return this.compareIds(a, b);
  }

  /** `updated_at` descending, then `preprint_id` ascending (row numbers of the current table). */
  private compareUpdated(a: number, b: number): number {
    const at = this.table.times.updated_at;
    const ta = at[a]!;
    const tb = at[b]!;
    if (ta !== tb) return ta < tb ? 1 : -1;
    return this.compareIds(a, b);
  }

  private compareIds(a: number, b: number): number {
    // Rows of the sorted prefix compare by number, without reading two strings (a load sorts 1.5M candidates).
    const sorted = this.table.sortedRows;
    if (a < sorted && b < sorted) return a - b;
    const ia = this.table.ids[a]!;
    const ib = this.table.ids[b]!;
    return ia < ib ? -1 : ia > ib ? 1 : 0;
  }

  /** Adds (`sign` 1) or removes (`sign` -1) row `i`'s contribution to the §4.3 counters. */
  private count(i: number, sign: 1 | -1): void {
    const f = this.table.flags;
    if (f.has_pdf[i] === 1) this.counts.hasPdf += sign;
    if (f.has_md[i] === 1) this.counts.hasMd += sign;
    if (f.has_json[i] === 1) this.counts.hasJson += sign;
    if (this.isCandidate(i)) this.counts.needsParser += sign;
    this.counts.images += sign * this.table.imageCount[i]!;
  }

  private replace(table: IndexTable): void {
    this.table = table;
    this.counts = zeroCounters();
    const candidates: number[] = [];
    for (let i = 0; i < table.length; i++) {
      this.count(i, 1);
      if (this.isCandidate(i)) candidates.push(i);
    }
    // Candidates in row order: inside the sorted prefix that is id order, so a stable sort by `pdf_uploaded_at`
    // alone gives the §9.2 order (and `reset`'s own sort then only checks it, in one pass).
    const inIdOrder = candidates.length === 0 || candidates[candidates.length - 1]! < table.sortedRows;
    this.candidates.reset(inIdOrder ? rowsByTimeDescending(candidates, table.times.pdf_uploaded_at) : candidates);
    this.orders = null;
    this.doiRows = null;
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
        const table = await this.persistence.load();
        if (table === null) {
          this.logger.warn(
            'metadata index not found; starting empty (run `pksd papers sync --full --from-objects` to rebuild it)',
          );
        }
        this.replace(applyPending(table ?? new IndexTable(), this.pending, this.table));
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
        this.replace(applyPending(result ?? new IndexTable(), this.pending, this.table));
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

  /** Changes (or adds) one row, keeping the counters and the needs-parser order exact. */
  private applyMutation(preprintId: string, mutation: RowMutation): void {
    const i = this.table.indexOf(preprintId);
    if (i === undefined) {
      const id = parsePreprintId(preprintId) ?? idFromStem(preprintId);
      if (id === null || id.version === null) return;
      const row = {
        ...emptyRow(id as VersionedPreprintId, mutation.updated_at ?? new Date()),
        ...definedOnly(mutation),
      };
      const added = this.table.upsert(row);
      this.count(added, 1);
      if (this.isCandidate(added)) this.candidates.insert(added);
      this.orders?.updatedAt.insert(added);
      this.orders?.id.insert(added);
      this.doiRows = null;
      return;
    }
    // Out of the order before the sort keys change.
    this.count(i, -1);
    if (this.isCandidate(i)) this.candidates.remove(i);
    this.orders?.updatedAt.remove(i);
    this.table.set(i, mutation);
    this.count(i, 1);
    if (this.isCandidate(i)) this.candidates.insert(i);
    this.orders?.updatedAt.insert(i);
    if (mutation.doi !== undefined) this.doiRows = null;
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
    const i = this.table.indexOf(preprintId);
    return i === undefined ? undefined : this.table.row(i);
  }

  /** Every row as an object (O(rows): for tests and tools, not for request paths). */
  all(): IndexRow[] {
    return [...this.table.rows()];
  }

  get size(): number {
    return this.table.length;
  }

  /** Rows of every version of a paper (same versionless id). */
  /**
   * Sets the bibliographic columns (§4.1) of every stored version of a preprint when its metadata is known (§18.1),
   * keeping each row's `updated_at`: a title is not an asset change. Rows that already say the same are left alone.
   */
  describe(versionless: string, fields: Required<Pick<RowMutation, 'title' | 'authors' | 'publication_date'>>): void {
    for (const row of this.versionsOf(versionless)) {
      const same =
        row.title === fields.title &&
        row.authors === fields.authors &&
        row.publication_date === fields.publication_date;
      const id = same ? null : idFromStem(row.key);
      if (id) this.update(id, { ...fields, updated_at: row.updated_at });
    }
  }

  versionsOf(versionless: string): IndexRow[] {
    return this.table.versionsOf(versionless).map((i) => this.table.row(i));
  }

  /** The newest stored version's row of a paper (same versionless id), if any. */
  newestVersion(versionless: string): IndexRow | undefined {
    const rows = this.table.versionsOf(versionless);
    return rows.length === 0 ? undefined : this.table.row(rows[rows.length - 1]!);
  }

  /** The rows whose `doi` column holds the normalised DOI `doi` (§2.3; the column's values normalised too), by id. */
  rowsByDoi(doi: string): IndexRow[] {
    if (this.doiRows === null) {
      const map = new Map<string, number[]>();
      const dois = this.table.text.doi;
      for (let i = 0; i < this.table.length; i++) {
        const value = dois[i];
        if (value === null || value === undefined) continue;
        const normal = normaliseDoi(value);
        const key = normal.ok ? normal.doi : value.toLowerCase();
        const rows = map.get(key);
        if (rows) rows.push(i);
        else map.set(key, [i]);
      }
      this.doiRows = map;
    }
    const rows = this.doiRows.get(doi) ?? [];
    return rows.map((i) => this.table.row(i)).sort((a, b) => (a.preprint_id < b.preprint_id ? -1 : 1));
  }

  /** The table and its rows in a list order (§18.2); the order is built on the first call after a load. */
  listing(sort: ListSort): RowListing {
    if (this.orders === null) {
      const all = Array.from({ length: this.table.length }, (_, i) => i);
      const updatedAt = new SortedList<number>((a, b) => this.compareUpdated(a, b));
      const id = new SortedList<number>((a, b) => this.compareIds(a, b));
      // All rows in the sorted prefix: row order is id order (see `replace`); `updated_at` is never null.
      const inIdOrder = this.table.length === this.table.sortedRows;
      updatedAt.reset(inIdOrder ? rowsByTimeDescending(all, this.table.times.updated_at) : all.slice());
      id.reset(all);
      this.orders = { updatedAt, id };
    }
    return sort === 'id'
      ? { table: this.table, order: this.orders.id, compare: (a, b) => this.compareIds(a, b) }
      : { table: this.table, order: this.orders.updatedAt, compare: (a, b) => this.compareUpdated(a, b) };
  }

  stats(): CatalogStats {
    if (!this.available) return { available: false };
    return {
      available: true,
      total: this.table.length,
      has_pdf: this.counts.hasPdf,
      has_md: this.counts.hasMd,
      has_json: this.counts.hasJson,
      needs_parser: this.counts.needsParser,
      total_images: this.counts.images,
      loaded_at: this.loadedAt,
    };
  }

  /** Rows with `has_pdf` and not `has_md`, `pdf_uploaded_at` descending (nulls last), then `preprint_id` (§9.2). */
  *needsParser(): IterableIterator<IndexRow> {
    const table = this.table;
    for (const i of this.candidates) yield table.row(i);
  }

  get needsParserCount(): number {
    return this.candidates.size;
  }

  /** Whether the row of `preprint_id` waits for a parser result (has a PDF, no markdown). */
  isNeedsParser(preprintId: string): boolean {
    const i = this.table.indexOf(preprintId);
    return i !== undefined && this.isCandidate(i);
  }

  get dirty(): boolean {
    return this.pending.size > 0;
  }

  /** Calls `listener` after each flush that stored the index object (other instances reload then, CONTRACT §21). */
  onFlushed(listener: () => void): void {
    this.flushed = listener;
  }

  /** Writes the whole table if dirty (CAS; merge and retry on a lost race). Store errors reject. */
  flush(): Promise<void> {
    const persistence = this.persistence;
    if (persistence === null) return Promise.resolve();
    return this.serial(async () => {
      if (this.pending.size === 0 || !this.available) return;
      const snapshot = new Map(this.pending);
      const result = await persistence.save(this.table, snapshot);
      if (result === 'retry') {
        this.logger.warn('metadata index flush lost the race 5 times; keeping rows dirty for the next tick');
        return;
      }
      for (const [id, m] of snapshot) if (this.pending.get(id) === m) this.pending.delete(id);
      this.flushed?.();
      // Our own table was stored (no remote merge): memory already holds it plus any mutation that arrived during
      // the save, so there is nothing to rebuild.
      if (result === 'stored') return;
      // Mutations that arrived during the save stay pending and are re-applied on top.
      this.replace(applyPending(result, this.pending, this.table));
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
