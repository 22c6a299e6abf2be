/** Step 1 of `papers sync` (CONTRACT §15.6): the three listings grouped by paper. Any listing error is fatal. */
import { parseAssetKey, type AssetKind, type VersionedPreprintId } from '../../shared/ids.js';
import type { ListedObject, ObjectStore } from '../storage/object-store.js';

export interface ListedAsset {
  readonly obj: ListedObject;
  readonly legacy: boolean;
}

/** The objects found for one versioned paper. */
export interface PaperListing {
  readonly id: VersionedPreprintId;
  pdf?: ListedAsset;
  md?: ListedAsset;
  images: ListedObject[];
  imagesLegacy: boolean;
}

export interface Listings {
  /** By versioned id. */
  readonly papers: ReadonlyMap<string, PaperListing>;
  /** Objects seen under each prefix. */
  readonly counts: Readonly<Record<AssetKind, number>>;
  /** Keys that are neither app nor legacy keys. */
  readonly skipped: readonly string[];
}

export const ASSET_KINDS = ['pdf', 'markdown', 'images'] as const;

/** Lists `pdf/`, `markdown/`, `images/`; an app key wins over a legacy key of the same paper and kind. */
export async function listPaperAssets(store: ObjectStore, progress: (line: string) => void): Promise<Listings> {
  const papers = new Map<string, PaperListing>();
  const skipped: string[] = [];
  const counts: Record<AssetKind, number> = { pdf: 0, markdown: 0, images: 0 };
  const paper = (id: VersionedPreprintId): PaperListing => {
    let p = papers.get(id.id);
    if (!p) papers.set(id.id, (p = { id, images: [], imagesLegacy: false }));
    return p;
  };
  for (const kind of ASSET_KINDS) {
    progress(`listing ${kind}/ …`);
    for await (const obj of store.list(`${kind}/`)) {
      counts[kind]++;
      const parsed = parseAssetKey(obj.key);
      if (parsed === null) {
        skipped.push(obj.key);
        continue;
      }
      const p = paper(parsed.id);
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
        if (current === undefined || (current.legacy && !parsed.legacy)) p[slot] = { obj, legacy: parsed.legacy };
      }
    }
    progress(`listed ${counts[kind]} ${kind} objects`);
  }
  return { papers, counts, skipped };
}
