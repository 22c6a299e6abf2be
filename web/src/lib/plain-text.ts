/**
 * A wiki search snippet (CONTRACT §13.4: up to 160 characters of page body, whitespace collapsed, `...` where cut)
 * as readable plain text: markdown marks go, links and images become their text, `[[wikilinks]]` the linked page's
 * title, and LaTeX the symbols it stands for. The snippet is a fragment that may cut any construct in two, so this
 * reads it piece by piece instead of parsing it as a document; the result is text (React escapes it), never HTML.
 */
import { latexText } from './latex-text.js';
import { parseWikilink, preprintIdOfPage, WIKILINK } from './wikilinks.js';

/** The title of a wiki page, when the page is known. */
export type TitleOf = (pageId: string) => string | undefined;

/** A page id as words when its title is unknown: `paper-preprint-2501.00010` → "arXiv 2501.00010". */
function idWords(pageId: string): string {
  const preprint = preprintIdOfPage(pageId);
  return preprint ? `arXiv ${preprint}` : pageId.replace(/[-_]+/g, ' ');
}

function wikilinkText(inner: string, titleOf: TitleOf): string {
  const link = parseWikilink(inner);
  if (link.labelled) return link.text;
  const page = link.target ? (titleOf(link.target) ?? idWords(link.target)) : '';
  return page && link.section ? `${page} § ${link.section}` : page || link.section;
}

/** Markdown marks of one stretch of prose (no mathematics in it). */
function proseText(text: string): string {
  return (
    text
      // Images and links: their text (reference-style links too); autolinks: the address.
      .replace(/!\[([^\]]*)\]\([^)]*\)?/g, '$1')
      .replace(/\[([^\]]*)\](?:\([^)]*\)|\[[^\]]*\])/g, '$1')
      .replace(/<((?:https?|mailto):[^>\s]+)>/g, '$1')
      // HTML tags and comments.
      .replace(/<!--.*?(?:-->|$)|<\/?[A-Za-z][^>]*>/g, '')
      // Headings, quotes and table marks where a line began (the snippet joins lines with spaces).
      .replace(/(^|\s)(?:#{1,6}|>+)(?=\s)/g, '$1')
      .replace(/\s*\|(?:\s*:?-{3,}:?\s*\|)+/g, ' ')
      .replace(/(?:^|\s)\|(?:\s+\|)*(?=\s|$)/g, ' ·')
      // Emphasis, strike-through and code marks.
      .replace(/(\*\*|__|~~)(?=\S)(.+?)(?<=\S)\1/g, '$2')
      .replace(/(^|[^\p{L}\p{N}\\*])([*_])(?=\S)(.+?)(?<=\S)\2(?![\p{L}\p{N}*])/gu, '$1$3')
      .replace(/`+([^`]*)`+/g, '$1')
      .replace(/(^|\s)(?:\*\*|__|~~|`)+|(?:\*\*|__|~~|`)+(?=\s|$)/g, '$1')
      // Escaped punctuation stands for itself.
      .replace(/\\([!-/:-@[-`{-~])/g, '$1')
  );
}

/**
 * The stretches of `text` that are mathematics: `$$…$$` and `$…$` pairs, `\(…\)` and `\[…\]`. A lone `$` left by
 * the cut opens mathematics to the end, or closes it from the start when what comes before it reads as LaTeX.
 */
function splitMath(text: string): { math: boolean; text: string }[] {
  const parts: { math: boolean; text: string }[] = [];
  const re =
    /\$\$([\s\S]*?)\$\$|(?<![\\$])\$(?!\s)((?:\\\$|[^$])*?)(?<![\s\\])\$(?!\d)|\\\(([\s\S]*?)\\\)|\\\[([\s\S]*?)\\\]/g;
  let last = 0;
  for (const m of text.matchAll(re)) {
    if (m.index > last) parts.push({ math: false, text: text.slice(last, m.index) });
    parts.push({ math: true, text: m[1] ?? m[2] ?? m[3] ?? m[4] ?? '' });
    last = m.index + m[0].length;
  }
  if (last < text.length) parts.push({ math: false, text: text.slice(last) });
  // A delimiter the snippet cut off from its partner.
  return parts.flatMap((p) => {
    if (p.math) return [p];
    // (`$5` is money, not mathematics.)
    const lone = /(?<![\\$])\${1,2}(?![\d$])/.exec(p.text);
    if (!lone) return [p];
    const before = p.text.slice(0, lone.index);
    const after = p.text.slice(lone.index + lone[0].length);
    const closesMath = parts[0] === p && /\\[A-Za-z]|[\^_{}]/.test(before) && !/\\[A-Za-z]/.test(after);
    return closesMath
      ? [
          { math: true, text: before },
          { math: false, text: after },
        ]
      : [
          { math: false, text: before },
          { math: true, text: after },
        ];
  });
}

/** `snippet` as plain text; `titleOf` names linked pages (their id in words otherwise). */
export function plainText(snippet: string, titleOf: TitleOf = () => undefined): string {
  const linked = snippet.replace(WIKILINK, (_m, inner: string) => wikilinkText(inner, titleOf));
  return splitMath(linked)
    .map((p) => (p.math ? latexText(p.text) : proseText(p.text)))
    .join('')
    .replace(/\s+/g, ' ')
    .trim();
}
