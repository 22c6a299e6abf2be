/** Markdown corpora of the figures tests and benchmark (CONTRACT §18.2 figures). */
import type { StoredImage } from '../../../src/server/papers/figures.js';

/** A paper of about 250 KiB: paragraphs, 60 figures of 1–3 images, captions below (and some above). */
export function sixtyFigurePaper(): { markdown: string; images: StoredImage[] } {
  const lines: string[] = ['# A paper', ''];
  const images: StoredImage[] = [];
  for (let f = 1; f <= 60; f++) {
    for (let p = 0; p < 5; p++) lines.push(`Paragraph ${f}.${p} ${'lorem ipsum dolor sit amet '.repeat(30)}`, '');
    const names = Array.from({ length: 1 + (f % 3) }, (_, k) => `fig${f}_${k}.jpg`);
    for (const name of names) images.push({ name, size: 1000 + f });
    if (f % 4 === 0) lines.push(`Figure ${f}: caption above the images.`, '');
    for (const name of names) lines.push(`![](images/${name})`, '');
    if (f % 4 !== 0) lines.push(`Figure ${f}: ${'a caption of the figure '.repeat(4)}`, '');
  }
  return { markdown: lines.join('\n'), images };
}
