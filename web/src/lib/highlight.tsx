import type { ReactNode } from 'react';

/** The query's terms as the server tokenises them (CONTRACT §13.4): lower-cased runs of letters and digits. */
export const queryTerms = (query: string): string[] => [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `text` with every occurrence of a query term wrapped in `<mark>`. */
export function highlight(text: string, terms: string[]): ReactNode[] {
  if (terms.length === 0) return [text];
  const re = new RegExp(
    `(${terms
      .sort((a, b) => b.length - a.length)
      .map(escapeRe)
      .join('|')})`,
    'giu',
  );
  return text.split(re).map((part, i) => (i % 2 === 1 ? <mark key={i}>{part}</mark> : part));
}
