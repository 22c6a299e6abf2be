/**
 * A paper's stored images and markdown as the registry reads them (CONTRACT §18.2 figures and images/zip): the
 * images under the app-key prefix (else the legacy prefix of an old-style id, §3.2), named below that prefix.
 */
import { text } from 'node:stream/consumers';
import { legacyPaperKeys, paperKeys, type VersionedPreprintId } from '../../shared/ids.js';
import type { StoredImage } from './figures.js';
import type { PaperService } from './service.js';
import { unsafeNameReason } from './zip-bundle.js';
import { imageNameProblem } from './zip-bundle-names.js';

/** Characters per name segment, as the §11.4 image route accepts them. */
const MAX_IMAGE_SEGMENT = 255;

export interface PaperImage extends StoredImage {
  /** The object's app key. */
  readonly key: string;
}

/**
 * The paper's images, sorted by name (code-unit order). Objects whose name no upload could have stored (a `..`
 * segment, a backslash, an empty segment — written by another tool) are left out: they have no image URL and no
 * safe zip member name. A listing error rejects (object store error, HTTP 500).
 */
export async function storedImages(papers: PaperService, id: VersionedPreprintId): Promise<PaperImage[]> {
  const prefixes = [paperKeys(id).imagesPrefix, legacyPaperKeys(id)?.imagesPrefix].filter((p) => p !== undefined);
  const images: PaperImage[] = [];
  for (const object of await papers.listImages(id)) {
    const prefix = prefixes.find((p) => object.key.startsWith(p));
    if (prefix === undefined) continue;
    const name = object.key.slice(prefix.length);
    if (name === '' || unsafeNameReason(name) !== null || imageNameProblem(name, MAX_IMAGE_SEGMENT) !== null) continue;
    images.push({ name, size: object.size, key: object.key });
  }
  return images.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The paper's markdown as text (app key, then the legacy key), or `null` when none is stored. */
export async function storedMarkdown(papers: PaperService, id: VersionedPreprintId): Promise<string | null> {
  const keys = [paperKeys(id).markdown, legacyPaperKeys(id)?.markdown].filter((k) => k !== undefined);
  for (const key of keys) {
    const got = await papers.readObject(key);
    if (got !== null) return text(got.body);
  }
  return null;
}
