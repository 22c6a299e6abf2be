/** Page → graph node mapping used by `wiki sync` (CONTRACT §6.3). Pure; no graph access. */
import { preprintIdFromPageId } from './ids.js';
import type { WikiPage } from './types.js';

export type WikiNodeLabel = 'Algorithm' | 'Primitive' | 'Author' | 'Concept';

export type PageNode =
  /** A wiki node keyed by `wiki_id`. */
  | { kind: 'wiki'; label: WikiNodeLabel; wiki_id: string }
  /** A `Paper` node merged on the versionless preprint id. */
  | { kind: 'paper'; label: 'Paper'; preprint_id: string; wiki_id: string }
  /** A paper page whose id yields no valid preprint id: skipped with a warning. */
  | { kind: 'skipped'; reason: string }
  /** Not synced (comparison pages, sources with another category). */
  | { kind: 'none' };

/** The node a served page maps to. */
export function pageNode(page: Pick<WikiPage, 'id' | 'type' | 'category'>): PageNode {
  const { type, category, id } = page;
  if (type === 'comparison') return { kind: 'none' };
  if (category === 'paper' && (type === 'source' || type === 'concept')) {
    const preprintId = preprintIdFromPageId(id);
    return preprintId === null
      ? { kind: 'skipped', reason: `page id '${id}' yields no valid preprint id` }
      : { kind: 'paper', label: 'Paper', preprint_id: preprintId, wiki_id: id };
  }
  if (type === 'source') return { kind: 'none' };
  // type is concept or entity
  if (category === 'algorithm') return { kind: 'wiki', label: 'Algorithm', wiki_id: id };
  if (category === 'primitive') return { kind: 'wiki', label: 'Primitive', wiki_id: id };
  if (category === 'person' || category === 'people') return { kind: 'wiki', label: 'Author', wiki_id: id };
  return { kind: 'wiki', label: 'Concept', wiki_id: id };
}
