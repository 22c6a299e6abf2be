/**
 * What a person pastes to open a paper: a preprint id in any accepted form, a DOI, an arxiv.org `abs`/`pdf` link or a
 * doi.org link (CONTRACT §2.1, §2.3, §18.2). The classification is the shared one (src/shared/paper-ref.ts, the
 * server's and `pks`'s too), so the page opens exactly what the server accepts; here it becomes a page to open.
 */
import { parsePreprintId } from '../../../src/shared/ids.js';
import { parsePaperRef as classify } from '../../../src/shared/paper-ref.js';

/** A paper to open: a canonical preprint id (version kept when given) or a normalised DOI. */
export type PaperRef = { kind: 'id'; id: string } | { kind: 'doi'; doi: string };

/** The paper `input` names, or why it names none (the shared parser's words). */
export function readPaperRef(input: string): { ref: PaperRef } | { problem: string } {
  const c = classify(input);
  if (c.kind === 'invalid') return { problem: c.problem };
  // An id from a link is canonical already; one typed by hand becomes canonical here (`arXiv:`, `V`, bare numbers).
  const id = c.kind === 'doi' ? null : parsePreprintId(c.ref);
  return { ref: id ? { kind: 'id', id: id.id } : { kind: 'doi', doi: c.ref } };
}

/** The paper `input` names, or null. */
export function parsePaperRef(input: string): PaperRef | null {
  const r = readPaperRef(input);
  return 'ref' in r ? r.ref : null;
}

/** The app path of a paper page; `/` inside old-style ids and DOIs stays a separator (CONTRACT §0.2). */
export const paperPath = (ref: PaperRef | string): string => {
  const id = typeof ref === 'string' ? ref : ref.kind === 'id' ? ref.id : ref.doi;
  return `/papers/${id.split('/').map(encodeURIComponent).join('/')}`;
};
