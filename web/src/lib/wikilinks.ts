import { slugify } from './slug.js';

/** A parsed `[[…]]` link (CONTRACT §13.2): `[[id]]`, `[[id|text]]`, `[[#section]]`, `[[id#section|text]]`. */
export interface Wikilink {
  /** Target page id; empty for a link to a section of the current page. */
  target: string;
  section: string;
  text: string;
  /** The text was written in the link (`[[id|text]]`); otherwise it is derived from the id and may become the title. */
  labelled: boolean;
}

export const WIKILINK = /\[\[([^[\]\n]+?)\]\]/g;

export function parseWikilink(inner: string): Wikilink {
  const bar = inner.indexOf('|');
  const ref = bar >= 0 ? inner.slice(0, bar) : inner;
  const label = bar >= 0 ? inner.slice(bar + 1).trim() : '';
  const hash = ref.indexOf('#');
  const target = (hash >= 0 ? ref.slice(0, hash) : ref).trim();
  const section = hash >= 0 ? ref.slice(hash + 1).trim() : '';
  const text = label || (target ? (section ? `${target} § ${section}` : target) : section);
  return { target, section, text, labelled: label !== '' };
}

export function wikilinkHref(link: Wikilink): string {
  const anchor = link.section ? `#${slugify(link.section)}` : '';
  return link.target ? `/wiki/${encodeURIComponent(link.target)}${anchor}` : anchor;
}

/** `paper-preprint-quant-ph-9508027v2` → `quant-ph/9508027v2` (CONTRACT §6.3), else null. */
export function preprintIdOfPage(pageId: string): string | null {
  if (!pageId.startsWith('paper-preprint-')) return null;
  const rest = pageId.slice('paper-preprint-'.length);
  const old = /^(.+)-(\d{7}(?:v\d+)?)$/.exec(rest);
  return old ? `${old[1]}/${old[2]}` : rest;
}
