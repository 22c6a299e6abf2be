/**
 * The figures of a paper's markdown (CONTRACT §18.2 `GET /api/papers/{id}/figures`), a pure function of the
 * markdown text and the stored images:
 *
 * - an image line holds only image references `![…](images/<name>)`; consecutive image lines, blank lines between
 *   allowed, form one figure;
 * - its caption is the first line within 12 lines below that matches `CAPTION`, else the nearest within 4 lines
 *   above; a search stops at an image line (another figure) and at a non-caption line over 200 bytes (body text);
 *   a caption taken by one figure is not taken by another;
 * - `fig_no` is the caption's number, else 0; `context` is the nearest line above the figure that is not blank,
 *   an image line or a caption, cut to 200 characters;
 * - a referenced image that is not stored is left out, and a figure with no stored image is dropped; stored images
 *   that no figure references are `unmatched`.
 *
 * One pass over the lines plus bounded searches: linear in the markdown's size.
 */
import type { Figure, FigureImage } from '../../shared/api/registry.js';

/** A stored image of the paper: its name below the paper's images prefix and its size from the listing. */
export interface StoredImage {
  readonly name: string;
  readonly size: number;
}

export interface FigureList {
  readonly figures: Figure[];
  readonly unmatched_images: FigureImage[];
}

export const CAPTION = /^\s*\**\s*(FIG|Fig|Figure|图)\.?\s*(\d+)/;
const BELOW = 12;
const ABOVE = 4;
/** A line longer than this (UTF-8 bytes) that is not a caption is body text: a caption search stops there. */
const LONG_LINE_BYTES = 200;
const CONTEXT_CHARACTERS = 200;

const REFERENCE = String.raw`!\[[^\]\n]*\]\(\s*(<[^>\n]*>|[^)\s]+)(?:\s+"[^"\n]*")?\s*\)`;
const IMAGE_LINE = new RegExp(String.raw`^\s*(?:${REFERENCE}\s*)+$`);
const REFERENCES = new RegExp(REFERENCE, 'g');

/** The image names of an image line (`images/<name>` targets, percent-decoded), or `null` for any other line. */
export function imageLineNames(line: string): string[] | null {
  if (!line.includes('![') || !IMAGE_LINE.test(line)) return null;
  const names: string[] = [];
  for (const m of line.matchAll(REFERENCES)) {
    let target = m[1]!;
    if (target.startsWith('<')) target = target.slice(1, -1).trim();
    if (!target.startsWith('images/') || target.length === 'images/'.length) return null;
    names.push(decoded(target.slice('images/'.length)));
  }
  return names;
}

function decoded(name: string): string {
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}

const isBlank = (line: string) => line.trim() === '';
const isLong = (line: string) => line.length > LONG_LINE_BYTES || Buffer.byteLength(line, 'utf8') > LONG_LINE_BYTES;

/** The figures of `markdown` over the stored `images`; `urlOf` gives an image's URL (the §11.4 image route). */
export function extractFigures(
  markdown: string,
  images: readonly StoredImage[],
  urlOf: (name: string) => string,
): FigureList {
  const lines = markdown.split(/\r\n|\r|\n/);
  const n = lines.length;
  const names: (string[] | null)[] = lines.map(imageLineNames);
  const captions: (RegExpExecArray | null)[] = lines.map((line, i) => (names[i] ? null : CAPTION.exec(line)));
  const taken = new Set<number>();
  const stored = new Map(images.map((image) => [image.name, image]));
  const referenced = new Set<string>();
  const figures: Figure[] = [];

  /** The first free caption line from `from` stepping by `step`, at most `count` lines; -1 when none. */
  const findCaption = (from: number, step: 1 | -1, count: number): number => {
    for (let k = from, seen = 0; seen < count && k >= 0 && k < n; k += step, seen++) {
      if (names[k]) return -1;
      if (captions[k] && !taken.has(k)) return k;
      if (!captions[k] && isLong(lines[k]!)) return -1;
    }
    return -1;
  };

  // The nearest context line above each figure: tracked while walking down.
  let contextLine = -1;
  for (let i = 0; i < n; i++) {
    if (!names[i]) {
      if (!captions[i] && !isBlank(lines[i]!)) contextLine = i;
      continue;
    }
    const start = i;
    let end = i;
    for (let j = i + 1; j < n; j++) {
      if (names[j]) end = j;
      else if (!isBlank(lines[j]!)) break;
    }
    const figureNames: string[] = [];
    for (let k = start; k <= end; k++) for (const name of names[k] ?? []) figureNames.push(name);
    let caption = findCaption(end + 1, 1, BELOW);
    if (caption === -1) caption = findCaption(start - 1, -1, ABOVE);
    if (caption !== -1) taken.add(caption);
    const figureImages: FigureImage[] = [];
    const seen = new Set<string>();
    for (const name of figureNames) {
      const image = stored.get(name);
      if (!image || seen.has(name)) continue;
      seen.add(name);
      referenced.add(name);
      figureImages.push({ name, size: image.size, url: urlOf(name) });
    }
    if (figureImages.length > 0) {
      const figNo = caption === -1 ? 0 : Number(captions[caption]![2]);
      figures.push({
        fig_no: Number.isSafeInteger(figNo) ? figNo : 0,
        caption: caption === -1 ? '' : lines[caption]!.trim(),
        context: contextLine === -1 ? '' : [...lines[contextLine]!.trim()].slice(0, CONTEXT_CHARACTERS).join(''),
        images: figureImages,
      });
    }
    i = end;
  }

  const unmatched = images
    .filter((image) => !referenced.has(image.name))
    .map((image) => ({ name: image.name, size: image.size, url: urlOf(image.name) }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { figures, unmatched_images: unmatched };
}
