/**
 * Step 2 of `papers sync` (CONTRACT §4.4): index rows from the listings. Sizes and LastModified come from the
 * listing; `sha256` from the previous row when the ETag is unchanged, else by HEAD (16 in parallel); metadata
 * columns of previous rows are preserved.
 */
import type { ObjectStore } from '../storage/object-store.js';
import { storedSha256 } from '../storage/write.js';
import { emptyRow, type IndexRow, type RowMutation } from './index/row.js';
import type { IndexTable } from './index/table.js';
import type { PaperListing } from './sync-listing.js';

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

function previousRow(previous: IndexTable, id: string): IndexRow | undefined {
  const i = previous.indexOf(id);
  return i === undefined ? undefined : previous.row(i);
}

/** The `sha256` of every listed PDF and markdown object, by key (`null` for an object without it). */
export async function readDigests(
  store: ObjectStore,
  papers: Iterable<PaperListing>,
  previous: IndexTable,
  options: { concurrency: number; progress: (line: string) => void },
): Promise<Map<string, string | null>> {
  const sha = new Map<string, string | null>();
  const heads: string[] = [];
  for (const p of papers) {
    const prev = previousRow(previous, p.id.id);
    for (const slot of ['pdf', 'md'] as const) {
      const a = p[slot];
      if (!a) continue;
      const prevEtag = slot === 'pdf' ? prev?.pdf_etag : prev?.md_etag;
      const prevSha = slot === 'pdf' ? prev?.pdf_sha256 : prev?.md_sha256;
      if (prevEtag && a.obj.etag && prevEtag === a.obj.etag && prevSha) sha.set(a.obj.key, prevSha);
      else heads.push(a.obj.key);
    }
  }
  options.progress(`reading sha256 metadata of ${heads.length} objects …`);
  await pool(heads, options.concurrency, async (key) => {
    const info = await store.head(key);
    sha.set(key, info ? storedSha256(info.metadata) : null);
  });
  return sha;
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a instanceof Date || b instanceof Date) {
    return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  }
  return (a ?? null) === (b ?? null);
}

/** The asset columns of a paper's row, exactly from the listing. */
function assetColumns(
  p: PaperListing,
  sha: ReadonlyMap<string, string | null>,
  categories: string | null,
): RowMutation {
  const imagesSize = p.images.reduce((n, o) => n + o.size, 0);
  const imagesAt = p.images.reduce<Date | null>(
    (latest, o) => (o.lastModified && (!latest || o.lastModified > latest) ? o.lastModified : latest),
    null,
  );
  return {
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
    categories,
  };
}

/** One row per listed paper; `updated_at` moves only when an asset column changed. */
export function rebuildRows(
  papers: Iterable<PaperListing>,
  previous: IndexTable,
  sha: ReadonlyMap<string, string | null>,
  now: Date,
): IndexRow[] {
  const rows: IndexRow[] = [];
  for (const p of papers) {
    const prev = previousRow(previous, p.id.id);
    const base = prev ? { ...prev } : emptyRow(p.id, now);
    const assets = assetColumns(p, sha, base.categories ?? p.id.category);
    const changed =
      !prev || Object.entries(assets).some(([k, v]) => !sameValue(v, (prev as unknown as Record<string, unknown>)[k]));
    rows.push({ ...base, ...assets, preprint_id: p.id.id, updated_at: changed ? now : base.updated_at } as IndexRow);
  }
  return rows;
}
