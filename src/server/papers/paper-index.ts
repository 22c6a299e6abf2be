/**
 * The in-memory metadata index (CONTRACT §4): write-through of rows, exact §4.3 counters, the §9.2 needs-parser
 * order, debounced CAS flushes and periodic reloads (§4.2). Persistence (Parquet on the store) plugs in through
 * `IndexPersistence`.
 */
import type { Logger } from 'pino';
import { normaliseDoi } from '../../shared/doi.js';
import { UnavailableError } from '../../shared/domain-errors.js';
import { idFromStem, parsePreprintId, type VersionedPreprintId } from '../../shared/ids.js';
import { applyPending, definedOnly } from './index/pending.js';
import { emptyRow, type IndexRow, type RowMutation } from './index/row.js';
import { ColdReadError, IndexTable, type ListRow, type QueueRow } from './index/table.js';
import { freeNow } from './index/free-now.js';
import { rowsByTimeDescending } from './index/time-order.js';
import { SortedList } from './sorted-list.js';

/** Persistence of the index object (Parquet on the store); `null` persistence keeps the index in memory only. */
export interface IndexPersistence {
  /**
   * Loads the table; `null` when the object does not exist. Throws when it cannot be read. `lazy`: the table may
   * decode parts of the object on first use (a `ColdReadError` then, when they turn out unreadable).
   */
  load(lazy?: boolean): Promise<IndexTable | null>;
  /**
   * A table when the stored object changed since the last load/save, else `'unchanged'`. Throws when unreadable.
   * Lazy as `load(true)`.
   */
  reload(): Promise<IndexTable | null | 'unchanged'>;
  /**
   * The table (or `null`) that `load(true)`/`reload` last gave is now the index's: only from here on do reloads and
   * the CAS of saves compare against its object (a table the index could not take leaves the previous one).
   */
  accept?(): void;
  /**
   * Saves the table with compare-and-swap; on a lost race merges the remote rows with `pending` and retries.
   * Resolves to `'stored'` when `table` itself was written, to the merged table now stored, or to `'retry'` when
   * every attempt lost (keep the rows dirty). Writes made to `table` during the save are not included.
   */
  save(table: IndexTable, pending: ReadonlyMap<string, RowMutation>): Promise<'stored' | IndexTable | 'retry'>;
  /**
   * The table last loaded turned out unreadable after the load (a cold chunk of the file did not decode): a later
   * load of the same object must fail at once instead of handing out the same table again.
   */
  rejected?(): void;
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
  /** The table, for its hot columns (ids, flags); `row` and `eachTitle` read the others. */
  readonly table: IndexTable;
  readonly order: RowOrder;
  /** The order's comparison of two row numbers. */
  readonly compare: (a: number, b: number) => number;
  /** What a page shows of row `i`. */
  readonly row: (i: number) => ListRow;
  /** Calls `visit` with every row's title (null where it has none), in row order. */
  readonly eachTitle: (visit: (i: number, title: string | null) => void) => void;
}

interface ListOrders {
  readonly updatedAt: SortedList;
  readonly id: SortedList;
}

/** The answer while the index cannot be read (as `requireIndex` gives it). */
const unavailable = () =>
  new UnavailableError('metadata index unavailable (the server retries loading it every 60 s)', {
    retryAfterSeconds: 60,
  });

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The index was closed while a background check of its file ran. */
class Closed extends Error {}

/** The in-memory metadata index with write-through, debounced CAS flushes and periodic reloads (§4.2). */
export class PaperIndex {
  private table = new IndexTable();
  /** The §4.3 counters, kept exact on every row change (stats never scans). */
  private counts: Counters = zeroCounters();
  /** Row numbers with `has_pdf` and not `has_md`, in the §9.2 order (needs-parser never scans or sorts). */
  private readonly candidates = new SortedList((a, b) => this.compareCandidates(a, b));
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
  private closed = false;
  /**
   * The index was available and a cold chunk's failure made it unavailable: reads throw the unavailable error, so a
   * request that checked `available` before awaiting never answers from the pending-only table.
   */
  private lost = false;
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
    const at = this.table.pdfUploadedAt;
    const ta = at[a]!;
    const tb = at[b]!;
    const na = Number.isNaN(ta);
    const nb = Number.isNaN(tb);
    if (na !== nb) return na ? 1 : -1;
    if (!na && ta !== tb) return ta < tb ? 1 : -1;
    return this.compareIds(a, b);
  }

  /**
   * `updated_at` descending, then `preprint_id` ascending (row numbers of the current table). Only the list order
   * compares so, which exists once `listing` decoded the column: its raw cells are read.
   */
  private compareUpdated(a: number, b: number): number {
    const at = this.table.raw.times.updated_at;
    const ta = at[a]!;
    const tb = at[b]!;
    if (ta !== tb) return ta < tb ? 1 : -1;
    return this.compareIds(a, b);
  }

  private compareIds(a: number, b: number): number {
    // Rows of the sorted prefix compare by number, without reading two strings (a load sorts 1.5M candidates).
    const sorted = this.table.sortedRows;
    if (a < sorted && b < sorted) return a - b;
    const ia = this.table.idAt(a);
    const ib = this.table.idAt(b);
    return ia < ib ? -1 : ia > ib ? 1 : 0;
  }

  /** Adds (`sign` 1) or removes (`sign` -1) row `i`'s contribution to the §4.3 counters. */
  private count(i: number, sign: 1 | -1): void {
    const f = this.table.flags;
    if (f.has_pdf[i] === 1) this.counts.hasPdf += sign;
    if (f.has_md[i] === 1) this.counts.hasMd += sign;
    if (f.has_json[i] === 1) this.counts.hasJson += sign;
    if (this.isCandidate(i)) this.counts.needsParser += sign;
    this.counts.images += sign * this.table.imageCountAt(i);
  }

  private replace(table: IndexTable): void {
    // The replaced table's file is closed now (nothing reads a replaced table's rows: list orders and snapshots
    // read whole columns, which decodes them first), not when the collector gets to it.
    if (this.table !== table) this.table.release();
    this.table = table;
    if (table.partlyDecoded) this.validate(table);
    // `count` and `isCandidate` of every row, over the columns directly (2.6M rows at a start).
    const { has_pdf: pdf, has_md: md, has_json: json } = table.flags;
    const counts = zeroCounters();
    counts.images = table.imageTotal();
    for (let i = 0; i < table.length; i++) {
      if (json[i] === 1) counts.hasJson++;
      if (md[i] === 1) counts.hasMd++;
      if (pdf[i] !== 1) continue;
      counts.hasPdf++;
      if (md[i] !== 1) counts.needsParser++;
    }
    this.counts = counts;
    // The candidates' row numbers in typed arrays freed at once: a load leaves no 1.5M-element garbage behind.
    const candidates = new Int32Array(counts.needsParser);
    for (let i = 0, k = 0; k < candidates.length; i++) if (pdf[i] === 1 && md[i] !== 1) candidates[k++] = i;
    // Candidates in row order: inside the sorted prefix that is id order, so a stable sort by `pdf_uploaded_at`
    // alone gives the §9.2 order (the radix sort's, property-tested in time-order.property.test.ts).
    const inIdOrder = candidates.length === 0 || candidates[candidates.length - 1]! < table.sortedRows;
    if (inIdOrder) {
      const order = rowsByTimeDescending(candidates, table.pdfUploadedAt);
      this.candidates.resetSorted(order);
      freeNow(order);
    } else this.candidates.reset(Array.from(candidates));
    freeNow(candidates);
    this.orders = null;
    this.doiRows = null;
  }

  /**
   * Decodes the cold chunks of a newly opened table's file in the background, a slice per turn, and drops them: a
   * file that does not decode makes the index unavailable, as it would have at the load.
   */
  private validate(table: IndexTable): void {
    const pause = () => (this.closed ? Promise.reject(new Closed()) : nextTurn());
    table.validate(pause).catch((err: unknown) => {
      if (err instanceof ColdReadError) this.coldFailure(table, err);
      else if (!(err instanceof Closed)) this.logger.warn({ err: (err as Error).message }, 'index check failed');
    });
  }

  /**
   * The current table's file could not be read (or changed since it was opened): the index becomes unavailable
   * exactly as after a load that failed — an empty table holding only the pending writes, retried by the reload
   * tick. A changed file is reloaded at once; an unreadable one is not loaded again until it changes.
   */
  private coldFailure(table: IndexTable, err: ColdReadError): void {
    if (table !== this.table) return;
    this.available = false;
    this.lost = true;
    this.logger.error({ err: err.message }, 'metadata index unavailable; retrying every 60 s');
    // A read error (EIO…) is left to the 60 s retry; only a file that does not decode is not loaded again.
    if (!err.fileChanged && !err.transient) this.persistence?.rejected?.();
    this.replace(new IndexTable());
    for (const [id, mutation] of this.pending) this.applyMutation(id, mutation);
    if (err.fileChanged) void this.reload();
  }

  /** Runs a read of the table; a file that cannot be read makes the index unavailable and the read a 503. */
  private read<T>(fn: (table: IndexTable) => T): T {
    this.readable();
    const table = this.table;
    try {
      return fn(table);
    } catch (err) {
      if (!(err instanceof ColdReadError)) throw err;
      this.coldFailure(table, err);
      throw unavailable();
    }
  }

  /** Throws the unavailable error while the index is `lost`. */
  private readable(): void {
    if (this.lost) throw unavailable();
  }

  /** The table (from the persistence) is installed: the index is available again. */
  private installed(): void {
    this.persistence?.accept?.();
    this.available = true;
    this.lost = false;
    this.loadedAt = new Date();
  }

  /** Initial load; a missing object is an empty, available index; an unreadable one is unavailable. */
  load(): Promise<void> {
    return this.serial(async () => {
      if (this.persistence === null) {
        this.available = true;
        this.loadedAt = new Date();
        return;
      }
      let table: IndexTable | null = null;
      try {
        table = await this.persistence.load(true);
        if (table === null) {
          this.logger.warn(
            'metadata index not found; starting empty (run `pksd papers sync --full --from-objects` to rebuild it)',
          );
        }
        this.replace(applyPending(table ?? new IndexTable(), this.pending, this.table));
        this.installed();
      } catch (err) {
        if (table !== this.table) table?.release();
        this.available = false;
        this.logger.error({ err: (err as Error).message }, 'metadata index unavailable; retrying every 60 s');
      }
    });
  }

  /** The periodic tick: retry an unavailable index, or merge a remotely changed one. */
  reload(): Promise<void> {
    // After `close` (which released the table's file) nothing opens the file again.
    if (this.closed) return Promise.resolve();
    if (!this.available || this.persistence === null) return this.load();
    const persistence = this.persistence;
    return this.serial(async () => {
      let result: IndexTable | null | 'unchanged' = null;
      try {
        result = await persistence.reload();
        if (result === 'unchanged') return;
        this.replace(applyPending(result ?? new IndexTable(), this.pending, this.table));
        // Also after the old table failed while this reload ran (it left an unavailable, pending-only index).
        this.installed();
      } catch (err) {
        if (result instanceof IndexTable && result !== this.table) result.release();
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
    if (i !== undefined) {
      // The columns the write reads (the counters' `image_count`, the list order's `updated_at`) and writes are
      // decoded before anything changes: a file that cannot be read leaves the counters and orders as they were,
      // makes the index unavailable, and the write is taken as one while it is unavailable.
      const table = this.table;
      try {
        table.prepareColumns(i, ['image_count', 'updated_at', ...Object.keys(mutation)]);
      } catch (err) {
        if (!(err instanceof ColdReadError)) throw err;
        this.coldFailure(table, err);
        this.applyMutation(preprintId, mutation);
        return;
      }
    }
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
    return this.read((table) => {
      const i = table.indexOf(preprintId);
      return i === undefined ? undefined : table.row(i);
    });
  }

  /** Every row as an object (O(rows): for tests and tools, not for request paths). */
  all(): IndexRow[] {
    return this.read((table) => [...table.rows()]);
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
    let rows: IndexRow[];
    try {
      rows = this.versionsOf(versionless);
    } catch (err) {
      // An unreadable index has no rows to describe (as after a failed load).
      if (err instanceof UnavailableError) return;
      throw err;
    }
    for (const row of rows) {
      const same =
        row.title === fields.title &&
        row.authors === fields.authors &&
        row.publication_date === fields.publication_date;
      const id = same ? null : idFromStem(row.key);
      if (id) this.update(id, { ...fields, updated_at: row.updated_at });
    }
  }

  versionsOf(versionless: string): IndexRow[] {
    return this.read((table) => table.versionsOf(versionless).map((i) => table.row(i)));
  }

  /** The newest stored version's row of a paper (same versionless id), if any. */
  newestVersion(versionless: string): IndexRow | undefined {
    return this.read((table) => {
      const rows = table.versionsOf(versionless);
      return rows.length === 0 ? undefined : table.row(rows[rows.length - 1]!);
    });
  }

  /** The rows whose `doi` column holds the normalised DOI `doi` (§2.3; the column's values normalised too), by id. */
  rowsByDoi(doi: string): IndexRow[] {
    return this.read((table) => this.rowsByDoiOf(table, doi));
  }

  private rowsByDoiOf(table: IndexTable, doi: string): IndexRow[] {
    if (this.doiRows === null) {
      const map = new Map<string, number[]>();
      // Only the `doi` column is decoded (an opened table's other cold columns stay in the file).
      table.forEachText('doi', (i, value) => {
        const normal = normaliseDoi(value);
        const key = normal.ok ? normal.doi : value.toLowerCase();
        const rows = map.get(key);
        if (rows) rows.push(i);
        else map.set(key, [i]);
      });
      this.doiRows = map;
    }
    const rows = this.doiRows.get(doi) ?? [];
    return rows.map((i) => table.row(i)).sort((a, b) => (a.preprint_id < b.preprint_id ? -1 : 1));
  }

  /** The table and its rows in a list order (§18.2); the order is built on the first call after a load. */
  listing(sort: ListSort): RowListing {
    // Of an opened table's cold columns, the order decodes `updated_at` alone (a page its rows' groups' few columns
    // and a filter the titles, each through `read`, where a failure is an unavailable index).
    if (this.orders === null) {
      const updated = this.read((table) => table.timeColumn('updated_at'));
      const all = Array.from({ length: this.table.length }, (_, i) => i);
      const updatedAt = new SortedList((a, b) => this.compareUpdated(a, b));
      const id = new SortedList((a, b) => this.compareIds(a, b));
      // All rows in the sorted prefix: row order is id order (see `replace`); `updated_at` is never null.
      const inIdOrder = this.table.length === this.table.sortedRows;
      if (inIdOrder) {
        const order = rowsByTimeDescending(all, updated);
        updatedAt.resetSorted(order);
        freeNow(order);
        id.resetSorted(all);
      } else {
        updatedAt.reset(all.slice());
        id.reset(all);
      }
      this.orders = { updatedAt, id };
    }
    const table = this.table;
    const reads = {
      table,
      row: (i: number) => this.read(() => table.listRow(i)),
      eachTitle: (visit: (i: number, title: string | null) => void) =>
        this.read(() => table.forEachCell('title', visit)),
    };
    return sort === 'id'
      ? { ...reads, order: this.orders.id, compare: (a, b) => this.compareIds(a, b) }
      : { ...reads, order: this.orders.updatedAt, compare: (a, b) => this.compareUpdated(a, b) };
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
  *needsParser(): IterableIterator<QueueRow> {
    this.readable();
    const table = this.table;
    for (const i of this.candidates) yield this.read(() => table.queueRow(i));
  }

  get needsParserCount(): number {
    this.readable();
    return this.candidates.size;
  }

  /** Whether the row of `preprint_id` waits for a parser result (has a PDF, no markdown). */
  isNeedsParser(preprintId: string): boolean {
    this.readable();
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
      const table = this.table;
      let result: 'stored' | IndexTable | 'retry';
      try {
        result = await persistence.save(table, snapshot);
      } catch (err) {
        // The save decodes the cold columns first: a file that cannot be read is an unavailable index.
        if (!(err instanceof ColdReadError)) throw err;
        this.coldFailure(table, err);
        return;
      }
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
    this.closed = true;
    if (this.flushTimer !== null) clearTimeout(this.flushTimer);
    if (this.reloadTimer !== null) clearInterval(this.reloadTimer);
    this.flushTimer = null;
    this.reloadTimer = null;
    try {
      await this.flush();
    } finally {
      // A table still reading its file gives the descriptor back now.
      this.table.release();
    }
  }
}
