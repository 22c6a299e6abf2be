/** Step 4 of `papers sync` (CONTRACT §15.6): invariant checks over the listings (reported, never fixed). */
import type { AssetKind } from '../../shared/ids.js';
import { ASSET_KINDS, type PaperListing } from './sync-listing.js';

export function checkInvariants(
  papers: ReadonlyMap<string, PaperListing>,
  counts: Readonly<Record<AssetKind, number>>,
): string[] {
  const all = [...papers.values()];
  const violations: string[] = [];
  for (const p of all.sort((a, b) => (a.id.id < b.id.id ? -1 : 1))) {
    if (p.md && !p.pdf) violations.push(`markdown without PDF: ${p.id.id} (${p.md.obj.key})`);
    if (p.images.length > 0 && !p.md)
      violations.push(`images without markdown: ${p.id.id} (${p.images.length} objects)`);
  }
  const listed: Record<AssetKind, number> = {
    pdf: all.filter((p) => p.pdf).length,
    markdown: all.filter((p) => p.md).length,
    images: all.reduce((n, p) => n + p.images.length, 0),
  };
  for (const kind of ASSET_KINDS) {
    if (counts[kind] < listed[kind]) {
      violations.push(
        `${kind}: objects in bucket (${counts[kind]}) < objects listed under the prefix (${listed[kind]})`,
      );
    }
  }
  const withImages = all.filter((p) => p.images.length > 0).length;
  if (withImages > listed.markdown) {
    violations.push(`papers with images (${withImages}) > markdown files (${listed.markdown})`);
  }
  return violations;
}
