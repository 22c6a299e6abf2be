/**
 * Wikilinks (CONTRACT §13.2): `[[id]]`, `[[id|text]]`, `[[#section]]`, `[[id#section]]`, `[[id#section|text]]`.
 * Links inside fenced code blocks and inline code spans are ignored.
 */
import { maskCode } from './markdown.js';
import type { WikiLink } from './types.js';

/** Parse the inside of `[[...]]`; `null` when it names neither a page nor a section. */
export function parseLinkInner(inner: string): Omit<WikiLink, 'raw' | 'offset'> | null {
  const bar = inner.indexOf('|');
  const targetPart = bar === -1 ? inner : inner.slice(0, bar);
  const text = bar === -1 ? null : inner.slice(bar + 1).trim();
  const hash = targetPart.indexOf('#');
  const target = (hash === -1 ? targetPart : targetPart.slice(0, hash)).trim();
  const section = hash === -1 ? null : targetPart.slice(hash + 1).trim();
  if (target === '' && (section === null || section === '')) return null;
  return { target, section: section === '' ? null : section, text: text === '' ? null : text };
}

/** Every wikilink of a markdown body, in order of appearance, code excluded. */
export function extractWikilinks(body: string): WikiLink[] {
  let open = body.indexOf('[[');
  if (open === -1) return [];
  const masked = maskCode(body);
  const links: WikiLink[] = [];
  open = masked.indexOf('[[');
  while (open !== -1) {
    // The link is `[[` + inner + `]]` where inner has no brackets or line breaks; the innermost `[[` wins.
    let i = open + 2;
    let close = -1;
    for (; i < masked.length; i++) {
      const c = masked.charCodeAt(i);
      if (c === 0x5d /* ] */) {
        if (masked.charCodeAt(i + 1) === 0x5d && i > open + 2) close = i;
        break;
      }
      if (c === 0x5b /* [ */ || c === 0x0a /* \n */) break;
    }
    if (close === -1) {
      open = masked.indexOf('[[', open + 1);
      continue;
    }
    // The link's strings are cut from the body when the masked text equals it there (no code inside the link), so
    // they share the body's memory instead of keeping the masked copy alive.
    let raw = masked.slice(open, close + 2);
    if (masked !== body) {
      const fromBody = body.slice(open, close + 2);
      if (fromBody === raw) raw = fromBody;
    }
    const parsed = parseLinkInner(raw.slice(2, -2));
    if (parsed) {
      links.push({ target: parsed.target, section: parsed.section, text: parsed.text, raw, offset: open });
    }
    open = masked.indexOf('[[', close + 2);
  }
  return links;
}

/**
 * Outgoing links of a page: the distinct target ids, sorted, without the page's own id and without same-page links.
 */
export function outgoingTargets(links: readonly WikiLink[], ownId: string | null): string[] {
  const set = new Set<string>();
  for (const link of links) {
    if (link.target !== '' && link.target !== ownId) set.add(link.target);
  }
  // The default order of `sort` is code-unit order, as `compareStrings`, without a call per comparison.
  return [...set].sort();
}

/** Code-unit order (stable across locales). */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
