/**
 * The paper catalog: the in-memory metadata index (CONTRACT §4) plus the graph write-through (§6.5).
 *
 * Write-through updates the in-memory row immediately (stats and needs-parser see it in the same request cycle)
 * and marks it dirty; persistence of the index (Parquet, §4.2) plugs in through `IndexPersistence`.
 */
import type { Logger } from 'pino';
import { idFromStem, parsePreprintId, type VersionedPreprintId } from '../../shared/ids.js';
import type { GraphClient } from '../graph/driver.js';

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
  /** Saves the rows for the pending mutations (CAS and merge are the persistence's business). */
  save(rows: readonly IndexRow[], pending: ReadonlyMap<string, RowMutation>): Promise<IndexRow[] | 'retry'>;
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

export class PaperIndex {
  private readonly rows = new Map<string, IndexRow>();
  private readonly pending = new Map<string, RowMutation>();
  available = false;
  loadedAt: Date | null = null;

  constructor(
    private readonly logger: Logger,
    private readonly persistence: IndexPersistence | null,
  ) {}

  async load(): Promise<void> {
    if (this.persistence === null) {
      this.available = true;
      this.loadedAt = new Date();
      return;
    }
    try {
      const rows = await this.persistence.load();
      if (rows === null) {
        this.logger.warn('metadata index not found; starting empty (run `pksd papers sync --full --from-objects` to rebuild it)');
      }
      this.rows.clear();
      for (const r of rows ?? []) this.rows.set(r.preprint_id, r);
      for (const [id, m] of this.pending) this.applyMutation(id, m);
      this.available = true;
      this.loadedAt = new Date();
    } catch (err) {
      this.available = false;
      this.logger.error({ err: (err as Error).message }, 'metadata index unavailable');
    }
  }

  private applyMutation(preprintId: string, mutation: RowMutation): IndexRow | null {
    let row = this.rows.get(preprintId);
    if (!row) {
      const id = parsePreprintId(preprintId) ?? idFromStem(preprintId);
      if (id === null || id.version === null) return null;
      row = emptyRow(id as VersionedPreprintId, mutation.updated_at ?? new Date());
      this.rows.set(preprintId, row);
    }
    Object.assign(row, mutation);
    return row;
  }

  /** Write-through: updates the row now and records the mutation for the next flush. */
  update(id: VersionedPreprintId, mutation: RowMutation): void {
    const m: RowMutation = { ...mutation, updated_at: mutation.updated_at ?? new Date() };
    this.applyMutation(id.id, m);
    this.pending.set(id.id, { ...(this.pending.get(id.id) ?? {}), ...m });
  }

  get(preprintId: string): IndexRow | undefined {
    return this.rows.get(preprintId);
  }

  all(): IndexRow[] {
    return [...this.rows.values()];
  }

  /** Rows of every version of a paper (same versionless id). */
  versionsOf(versionless: string): IndexRow[] {
    return this.all().filter((r) => parsePreprintId(r.preprint_id)?.versionless === versionless);
  }

  stats(): CatalogStats {
    if (!this.available) return { available: false };
    let hasPdf = 0;
    let hasMd = 0;
    let hasJson = 0;
    let needs = 0;
    let images = 0;
    for (const r of this.rows.values()) {
      if (r.has_pdf) hasPdf++;
      if (r.has_md) hasMd++;
      if (r.has_json) hasJson++;
      if (r.has_pdf && !r.has_md) needs++;
      images += r.image_count ?? 0;
    }
    return {
      available: true,
      total: this.rows.size,
      has_pdf: hasPdf,
      has_md: hasMd,
      has_json: hasJson,
      needs_parser: needs,
      total_images: images,
      loaded_at: this.loadedAt,
    };
  }

  get dirty(): boolean {
    return this.pending.size > 0;
  }

  async flush(): Promise<void> {
    if (this.persistence === null || this.pending.size === 0 || !this.available) return;
    const snapshot = new Map(this.pending);
    const result = await this.persistence.save(this.all(), snapshot);
    if (result === 'retry') return;
    for (const [id, m] of snapshot) if (this.pending.get(id) === m) this.pending.delete(id);
    this.rows.clear();
    for (const r of result) this.rows.set(r.preprint_id, r);
    for (const [id, m] of this.pending) this.applyMutation(id, m);
  }
}

/** Graph asset properties of one `Paper` node, computed from the index rows of all its versions (§6.1). */
export function paperAssetProperties(rows: readonly IndexRow[], now: Date): Record<string, unknown> {
  const byVersion = rows
    .map((r) => ({ r, v: parsePreprintId(r.preprint_id)?.version ?? 0 }))
    .sort((a, b) => a.v - b.v);
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

/** MERGE + SET of a `Paper` node's asset properties. */
export async function syncPaperNode(graph: GraphClient, versionless: string, props: Record<string, unknown>): Promise<void> {
  const session = graph.driver.session({ defaultAccessMode: 'WRITE', ...(graph.database ? { database: graph.database } : {}) });
  try {
    await session.executeWrite((tx) =>
      tx.run(
        `MERGE (p:Paper {preprint_id: $id})
         SET p += $props, p.assets_updated_at = datetime($props.assets_updated_at)`,
        { id: versionless, props },
      ),
    );
  } finally {
    await session.close();
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
        await syncPaperNode(this.graph, id.versionless, paperAssetProperties(this.index.versionsOf(id.versionless), now));
      } catch (err) {
        this.logger.warn({ err: (err as Error).message, preprint_id: id.id }, 'graph write-through failed; catalog sync deferred');
        deferred = true;
      }
    }
    return deferred;
  }
}
