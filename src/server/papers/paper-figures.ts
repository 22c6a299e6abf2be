/** `GET /api/papers/{id}/figures` (CONTRACT §18.2): the stored markdown and images through `extractFigures`. */
import type { Figures } from '../../shared/api/registry.js';
import type { VersionedPreprintId } from '../../shared/ids.js';
import { extractFigures } from './figures.js';
import { storedImages, storedMarkdown } from './paper-images.js';
import type { PaperService } from './service.js';

/** The §11.4 image route of a stored image (each path segment of the name percent-encoded). */
export function imageUrl(id: VersionedPreprintId, name: string): string {
  return `/api/papers/${id.id}/images/${name.split('/').map(encodeURIComponent).join('/')}`;
}

/** The figures of a stored paper; without markdown `markdown_ready` is false and every image is unmatched. */
export async function paperFigures(papers: PaperService, id: VersionedPreprintId): Promise<Figures> {
  const [markdown, images] = await Promise.all([storedMarkdown(papers, id), storedImages(papers, id)]);
  const urlOf = (name: string) => imageUrl(id, name);
  const { figures, unmatched_images } = extractFigures(markdown ?? '', images, urlOf);
  return {
    preprint_id: id.id,
    markdown_ready: markdown !== null,
    figures,
    unmatched_images,
    image_count: images.length,
  };
}
