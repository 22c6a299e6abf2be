/**
 * `pksd papers sync --full --from-objects` (CONTRACT §15.6, §4.4): rebuild the metadata index and the graph's
 * asset properties from listings of the three buckets.
 */
import type { Logger } from 'pino';
import { parseAssetKey, parsePreprintId, type AssetKind, type VersionedPreprintId } from '../../shared/ids.js';
import type { GraphClient } from '../graph/driver.js';
import type { ListedObject, ObjectStore } from '../storage/object-store.js';
import { storedSha256 } from '../storage/write.js';
import { emptyRow, IndexTable, paperAssetProperties, type IndexRow, type RowMutation } from './catalog.js';
import { StoreIndexPersistence } from './index-parquet.js';

export interface SyncOptions {
  readonly dryRun: boolean;
  /** `null` = graph step skipped (`--no-graph` or unconfigured). */
  readonly graph: GraphClient | null;
  readonly progress: (line: string) => void;
  readonly now?: () => Date;
  readonly headConcurrency?: number;
}

export interface SyncReport {
  readonly pdfObjects: number;
  readonly markdownObjects: number;
  readonly imageObjects: number;
  readonly papers: number;
  readonly skippedKeys: readonly string[];
  readonly violations: readonly string[];
  readonly graphPapersTouched: number;
}

interface Asset {
  readonly obj: ListedObject;
  readonly legacy: boolean;
}

interface PaperAssetsFound {
  id: VersionedPreprintId;
  pdf?: Asset;
  md?: Asset;
  images: ListedObject[];
  imagesLegacy: boolean;
}

const GRAPH_BATCH = 500;

/** Runs `fn` over `items` with at most `limit` in flight. */
async function pool<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

export async function syncFromObjects(store: ObjectStore, logger: Logger, options: SyncOptions): Promise<SyncReport> {
  const now = (options.now ?? (() => new Date()))();
  const papers = new Map<string, PaperAssetsFound>();
  const skipped: string[] = [];
  const counts: Record<AssetKind, number> = { pdf: 0, markdown: 0, images: 0 };
  const paper = (id: VersionedPreprintId) => {
    let p = papers.get(id.id);
    if (!p) papers.set(id.id, (p = { id, images: [], imagesLegacy: false }));
    return p;
  };

  // 1. Listings (any error is fatal).
  for (const kind of ['pdf', 'markdown', 'images'] as const) {
    options.progress(`listing ${kind}/ …`);
    for await (const obj of store.list(`${kind}/`)) {
      counts[kind]++;
      const parsed = parseAssetKey(obj.key);
      if (parsed === null) {
        skipped.push(obj.key);
        continue;
      }
      const p = paper(parsed.id);
      const asset: Asset = { obj, legacy: parsed.legacy };
      if (kind === 'images') {
        // App key wins over legacy for the same stem: keep one family of image objects.
        if (p.images.length > 0 && p.imagesLegacy !== parsed.legacy) {
          if (parsed.legacy) continue;
          p.images = [];
        }
        p.imagesLegacy = parsed.legacy;
        p.images.push(obj);
      } else {
        const slot = kind === 'pdf' ? 'pdf' : 'md';
        const current = p[slot];
        if (current === undefined || (current.legacy && !parsed.legacy)) p[slot] = asset;
      }
    }
    options.progress(`listed ${counts[kind]} ${kind} objects`);
  }

  // 2. Rows (§4.4): sizes and LastModified from the listing; sha256 from the previous row when the ETag is
  // unchanged, else by HEAD (16 in parallel); metadata columns of previous rows preserved.
  const persistence = new StoreIndexPersistence(store, logger);
  let previous = new IndexTable();
  try {
    previous = (await persistence.load()) ?? previous;
  } catch (err) {
    options.progress(`previous index unreadable (${(err as Error).message}); rebuilding without it`);
  }
  const prevById = {
    get: (id: string): IndexRow | undefined => {
      const i = previous.indexOf(id);
      return i === undefined ? undefined : previous.row(i);
    },
  };
  const heads: { p: PaperAssetsFound; slot: 'pdf' | 'md' }[] = [];
  const sha = new Map<string, string | null>(); // key → sha256
  for (const p of papers.values()) {
    const prev = prevById.get(p.id.id);
    for (const slot of ['pdf', 'md'] as const) {
      const a = p[slot];
      if (!a) continue;
      const prevEtag = slot === 'pdf' ? prev?.pdf_etag : prev?.md_etag;
      const prevSha = slot === 'pdf' ? prev?.pdf_sha256 : prev?.md_sha256;
      if (prev && prevEtag && a.obj.etag && prevEtag === a.obj.etag && prevSha) sha.set(a.obj.key, prevSha);
      else heads.push({ p, slot });
    }
  }
  options.progress(`reading sha256 metadata of ${heads.length} objects …`);
  await pool(heads, options.headConcurrency ?? 16, async ({ p, slot }) => {
    const key = p[slot]!.obj.key;
    const info = await store.head(key);
    sha.set(key, info ? storedSha256(info.metadata) : null);
  });

  const rows: IndexRow[] = [];
  for (const p of papers.values()) {
    const prev = prevById.get(p.id.id);
    const base = prev ? { ...prev } : emptyRow(p.id, now);
    const imagesSize = p.images.reduce((n, o) => n + o.size, 0);
    const imagesAt = p.images.reduce<Date | null>(
      (latest, o) => (o.lastModified && (!latest || o.lastModified > latest) ? o.lastModified : latest),
      null,
    );
    const assets: RowMutation = {
      key: p.id.stem,
      yymm: p.id.yymm,
      has_pdf: p.pdf !== undefined,
      has_md: p.md !== undefined,
      has_json: false,
      image_count: p.images.length,
      pdf_size_bytes: p.pdf?.obj.size ?? null,
      md_size_bytes: p.md?.obj.size ?? null,
      images_size_bytes: p.images.length > 0 ? imagesSize : null,
      pdf_sha256: p.pdf ? (sha.get(p.pdf.obj.key) ?? null) : null,
      md_sha256: p.md ? (sha.get(p.md.obj.key) ?? null) : null,
      pdf_etag: p.pdf?.obj.etag ?? null,
      md_etag: p.md?.obj.etag ?? null,
      pdf_uploaded_at: p.pdf?.obj.lastModified ?? null,
      md_uploaded_at: p.md?.obj.lastModified ?? null,
      images_uploaded_at: imagesAt,
      categories: base.categories ?? p.id.category,
    };
    const changed =
      !prev || Object.entries(assets).some(([k, v]) => !sameValue(v, (prev as unknown as Record<string, unknown>)[k]));
    rows.push({ ...base, ...assets, preprint_id: p.id.id, updated_at: changed ? now : base.updated_at } as IndexRow);
  }

  // 4. Checks (never fixes).
  const violations: string[] = [];
  for (const p of [...papers.values()].sort((a, b) => (a.id.id < b.id.id ? -1 : 1))) {
    if (p.md && !p.pdf) violations.push(`markdown without PDF: ${p.id.id} (${p.md.obj.key})`);
    if (p.images.length > 0 && !p.md)
      violations.push(`images without markdown: ${p.id.id} (${p.images.length} objects)`);
  }
  const listed = {
    pdf: [...papers.values()].filter((p) => p.pdf).length,
    markdown: [...papers.values()].filter((p) => p.md).length,
    images: [...papers.values()].reduce((n, p) => n + p.images.length, 0),
  };
  for (const kind of ['pdf', 'markdown', 'images'] as const) {
    if (counts[kind] < listed[kind])
      violations.push(
        `${kind}: objects in bucket (${counts[kind]}) < objects listed under the prefix (${listed[kind]})`,
      );
  }
  const withImages = [...papers.values()].filter((p) => p.images.length > 0).length;
  if (withImages > listed.markdown) {
    violations.push(`papers with images (${withImages}) > markdown files (${listed.markdown})`);
  }

  // Write the index with CAS (a concurrent writer's rows survive through the merge).
  if (!options.dryRun) {
    options.progress(`writing the index (${rows.length} rows) …`);
    const pending = new Map<string, RowMutation>(rows.map((r) => [r.preprint_id, r]));
    const result = await persistence.save(IndexTable.fromRows(rows), pending);
    if (result === 'retry') throw new Error('the metadata index kept changing during the write; run the sync again');
  }

  // 3. Graph: asset properties exactly from the listing.
  let touched = 0;
  if (options.graph !== null) {
    const byPaper = new Map<string, IndexRow[]>();
    for (const r of rows) {
      const versionless = parsePreprintId(r.preprint_id)!.versionless;
      (byPaper.get(versionless) ?? byPaper.set(versionless, []).get(versionless)!).push(r);
    }
    const updates = [...byPaper.entries()].map(([id, rs]) => ({ id, props: paperAssetProperties(rs, now) }));
    touched = updates.length;
    if (!options.dryRun) {
      options.progress(`updating ${updates.length} Paper nodes …`);
      touched += await writeGraph(options.graph, updates, now);
    }
  }

  return {
    pdfObjects: counts.pdf,
    markdownObjects: counts.markdown,
    imageObjects: counts.images,
    papers: papers.size,
    skippedKeys: skipped,
    violations,
    graphPapersTouched: touched,
  };
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a instanceof Date || b instanceof Date) {
    return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  }
  return (a ?? null) === (b ?? null);
}

/** MERGE every listed paper; clear asset properties of Paper nodes no longer backed. Returns extra nodes cleared. */
async function writeGraph(
  graph: GraphClient,
  updates: { id: string; props: Record<string, unknown> }[],
  now: Date,
): Promise<number> {
  const session = graph.driver.session({
    defaultAccessMode: 'WRITE',
    ...(graph.database ? { database: graph.database } : {}),
  });
  try {
    for (let i = 0; i < updates.length; i += GRAPH_BATCH) {
      const batch = updates.slice(i, i + GRAPH_BATCH);
      const tx = session.beginTransaction();
      try {
        await tx.run(
          `UNWIND $rows AS row
           MERGE (p:Paper {preprint_id: row.id})
           SET p += row.props, p.assets_updated_at = datetime(row.props.assets_updated_at)`,
          { rows: batch },
        );
        await tx.commit();
      } catch (err) {
        if (tx.isOpen()) await tx.rollback().catch(() => undefined);
        throw err;
      }
    }
    // Nodes with asset properties not backed by any object: flags false, empty version lists (not deleted).
    const ids = updates.map((u) => u.id);
    const tx = session.beginTransaction();
    try {
      const res = await tx.run(
        `MATCH (p:Paper)
         WHERE (p.has_pdf = true OR p.has_md = true OR size(coalesce(p.versions, [])) > 0) AND NOT p.preprint_id IN $ids
         SET p.has_pdf = false, p.has_md = false, p.versions = [], p.pdf_versions = [], p.md_versions = [],
             p.latest_pdf_version = null, p.latest_md_version = null, p.pdf_size = null, p.pdf_sha256 = null,
             p.md_size = null, p.md_sha256 = null, p.image_count = 0, p.assets_updated_at = datetime($now)
         RETURN count(p) AS n`,
        { ids, now: now.toISOString() },
      );
      await tx.commit();
      const n = res.records[0]?.get('n') as { toNumber?: () => number } | number | undefined;
      return typeof n === 'number' ? n : (n?.toNumber?.() ?? 0);
    } catch (err) {
      if (tx.isOpen()) await tx.rollback().catch(() => undefined);
      throw err;
    }
  } finally {
    await session.close().catch(() => undefined);
  }
}
