/**
 * Wikilinks (CONTRACT §13.2): `[[id]]`, `[[id|text]]`, `[[#section]]`, `[[id#section]]`, `[[id#section|text]]`.
 * Links inside fenced code blocks and inline code spans are ignored.
 */
import { codeRanges, maskedSlice } from './markdown.js';
import type { WikiLink } from './types.js';

/** Parse the inside of `[[...]]`; `null` when it names neither a page nor a section. */
export function parseLinkInner(inner: string): Omit<WikiLink, 'raw' | 'offset'> | null {
  return parseLinkAt(inner, 0, inner.length);
}

/** `parseLinkInner(text.slice(start, end))`, without cutting the inner text first. */
function parseLinkAt(text: string, start: number, end: number): Omit<WikiLink, 'raw' | 'offset'> | null {
  let bar = text.indexOf('|', start);
  if (bar >= end) bar = -1;
  const targetEnd = bar === -1 ? end : bar;
  let hash = text.indexOf('#', start);
  if (hash >= targetEnd) hash = -1;
  const target = text.slice(start, hash === -1 ? targetEnd : hash).trim();
  const section = hash === -1 ? null : text.slice(hash + 1, targetEnd).trim();
  if (target === '' && (section === null || section === '')) return null;
  const linkText = bar === -1 ? null : text.slice(bar + 1, end).trim();
  return { target, section: section === '' ? null : section, text: linkText === '' ? null : linkText };
}

/**
 * Every wikilink of a markdown body, in order of appearance, code excluded: the links of `maskCode(body)`, found
 * through `codeRanges` without building the masked copy.
 */
export function extractWikilinks(body: string): WikiLink[] {
  let open = body.indexOf('[[');
  if (open === -1) return [];
  const code = codeRanges(body);
  /** The first code range that ends after the position last looked at. */
  let r = 0;
  /** Whether `at` is inside code (`maskCode` makes it a space, or keeps a newline). */
  const inCode = (at: number): boolean => {
    while (r > 0 && code[r - 1]! > at) r -= 2;
    while (r < code.length && code[r + 1]! <= at) r += 2;
    return r < code.length && code[r]! <= at;
  };
  const links: WikiLink[] = [];
  while (open !== -1) {
    if (inCode(open) || inCode(open + 1)) {
      // Masked: the next `[[` of the masked text is past this code range.
      open = body.indexOf('[[', Math.max(open + 1, code[r + 1]!));
      continue;
    }
    // The link is `[[` + inner + `]]` where inner has no brackets or line breaks (of the masked text); the innermost
    // `[[` wins.
    let i = open + 2;
    let close = -1;
    let hasCode = false;
    for (; i < body.length; i++) {
      const c = body.charCodeAt(i);
      if (c !== 0x0a && inCode(i)) {
        hasCode = true; // a space in the masked text
        continue;
      }
      if (c === 0x5d /* ] */) {
        if (body.charCodeAt(i + 1) === 0x5d && !inCode(i + 1) && i > open + 2) close = i;
        break;
      }
      if (c === 0x5b /* [ */ || c === 0x0a /* \n */) break;
    }
    if (close === -1) {
      open = body.indexOf('[[', open + 1);
      continue;
    }
    // Without code inside, the link's strings are cut from the body (they share its memory); with code, from the
    // masked text of the link, as `maskCode` gives it.
    const raw = hasCode ? maskedSlice(body, code, open, close + 2) : body.slice(open, close + 2);
    const parsed = parseLinkAt(raw, 2, raw.length - 2);
    if (parsed) links.push({ target: parsed.target, section: parsed.section, text: parsed.text, raw, offset: open });
    open = body.indexOf('[[', close + 2);
  }
  return links;
}

/**
 * Outgoing links of a page: the distinct target ids, sorted, without the page's own id and without same-page links.
 */
export function outgoingTargets(links: readonly WikiLink[], ownId: string | null): string[] {
  const targets: string[] = [];
  for (const link of links) {
    if (link.target !== '' && link.target !== ownId) targets.push(link.target);
  }
  // The default order of `sort` is code-unit order, as `compareStrings`, without a call per comparison; then the
  // repeats, now adjacent, are dropped in place (a page's few links need no set).
  targets.sort();
  let kept = 0;
  for (const target of targets) {
    if (kept === 0 || targets[kept - 1] !== target) targets[kept++] = target;
  }
  targets.length = kept;
  return targets;
}

/** Code-unit order (stable across locales). */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
