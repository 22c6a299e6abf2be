import type { Figures } from '../../../shared/api/registry.js';
import { oneLine } from '../../text.js';
import type { RegisterCommand } from '../host.js';
import { paperPath, registerPaperRead } from './registry.js';

/** `pks paper figures <id>`: the figures of a paper's markdown (CONTRACT §16.8, `GET /api/papers/{id}/figures`). */
export const registerPaperFigures: RegisterCommand = (parent, host) => {
  registerPaperRead<Figures>(parent, host, {
    name: 'figures',
    description: "list a paper's figures (caption and image names), read from its stored markdown",
    path: (id) => `${paperPath(id)}/figures`,
    render: renderFigures,
  });
};

/**
 * The caption line as the markdown has it starts with its own label (`Figure 1:`, `**Fig. 2.**`); shown after
 * `Figure <n>:` the label would repeat, so it is dropped.
 */
const LABEL = /^\s*\**\s*(?:FIG|Fig|Figure|图)\.?\s*\d+\s*\**\s*[.:：|—–-]?\s*\**\s*/;
const withoutLabel = (caption: string): string => caption.replace(LABEL, '');

/**
 * One block per figure (`Figure <n>: <caption>`, then its image names indented), blocks separated by a blank
 * line; images in no figure last. A figure without a number shows `?`, one without a caption `(no caption)`.
 * A caption that is only its label is also `(no caption)`.
 */
export function renderFigures(f: Figures): string {
  if (!f.markdown_ready) {
    return `No markdown stored for ${f.preprint_id}; figures are read from the markdown (pks paper get markdown ${f.preprint_id}).\n`;
  }
  const blocks = f.figures.map((figure) => {
    const caption = withoutLabel(oneLine(figure.caption)) || '(no caption)';
    const head = `Figure ${figure.fig_no === 0 ? '?' : figure.fig_no}: ${caption}`;
    return [head, ...figure.images.map((image) => `  ${image.name}`)].join('\n');
  });
  if (f.unmatched_images.length > 0) {
    blocks.push(['Images in no figure:', ...f.unmatched_images.map((image) => `  ${image.name}`)].join('\n'));
  }
  if (blocks.length === 0) return `No figures or images in ${f.preprint_id}.\n`;
  return `${blocks.join('\n\n')}\n`;
}
