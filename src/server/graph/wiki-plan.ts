/**
 * The graph state a wiki snapshot yields (CONTRACT §6.1–6.3): served pages mapped to nodes, wikilinks and
 * frontmatter lists mapped to relationships. Pure.
 */
import { linksOf, pageNode, type WikiNodeLabel, type WikiPage, type WikiSnapshot } from '../../wiki/index.js';

export const WIKI_NODE_LABELS: readonly WikiNodeLabel[] = ['Algorithm', 'Primitive', 'Author', 'Concept'];
export type SyncedLabel = WikiNodeLabel | 'Paper';

/** Relationship types written by the wiki sync (§6.2). */
export const WIKI_RELATIONSHIP_TYPES = [
  'DEPENDS_ON',
  'AUTHORED',
  'PUBLISHES',
  'USES',
  'REFERENCES',
  'RELATED_TO',
  'LINKS_TO',
] as const;
export type WikiRelationshipType = (typeof WIKI_RELATIONSHIP_TYPES)[number];

/** A node by its key: `wiki_id` for wiki labels, the versionless `preprint_id` for `Paper`. */
export interface NodeRef {
  readonly label: SyncedLabel;
  readonly key: string;
}

type PropValue = string | string[] | null;
export type Props = Record<string, PropValue>;

export interface PlannedNode {
  readonly ref: NodeRef;
  readonly pageId: string;
  /** Wiki labels: the node's properties; `Paper`: its `wiki_*` properties. `null` removes a property. */
  readonly props: Props;
}

export interface PlannedEdge {
  readonly type: WikiRelationshipType;
  readonly from: NodeRef;
  readonly to: NodeRef;
  /** The page that produced the edge. */
  readonly wiki_id: string;
}

export interface WikiGraphPlan {
  /** Served pages considered. */
  readonly pages: number;
  readonly nodes: readonly PlannedNode[];
  readonly edges: readonly PlannedEdge[];
  /** Served pages that yield no node (comparison pages, other sources, invalid paper ids, duplicate papers). */
  readonly skippedPages: number;
  /** Skips worth a warning (a paper page whose id yields no preprint id, two pages for one paper). */
  readonly warnings: readonly { page_id: string; reason: string }[];
}

/** The properties the wiki owns on its own nodes, and on `Paper` nodes. */
export const WIKI_NODE_KEYS = [
  'wiki_id',
  'title',
  'type',
  'category',
  'tags',
  'status',
  'created_at',
  'updated_at',
  'source',
];
export const PAPER_WIKI_KEYS = ['wiki_id', 'wiki_title', 'wiki_status', 'wiki_tags'];

/** `Label:key`: a node's identity across plan, graph state and diff. */
export const refId = (ref: NodeRef): string => `${ref.label}:${ref.key}`;
/** `TYPE|from|to`: a relationship's identity (at most one per type and ordered pair, §6.2). */
export const edgeId = (type: string, from: string, to: string): string => `${type}|${from}|${to}`;

/** The relationship type of a wikilink between two synced nodes (§6.2). */
export function linkType(from: SyncedLabel, to: SyncedLabel): WikiRelationshipType {
  if (from === 'Algorithm' && to === 'Primitive') return 'DEPENDS_ON';
  if (from === 'Author' && to === 'Paper') return 'AUTHORED';
  if (from === 'Paper' && to === 'Algorithm') return 'PUBLISHES';
  if (to === 'Concept') return 'USES';
  if (to === 'Paper') return 'REFERENCES';
  return 'LINKS_TO';
}

function nodeProps(page: WikiPage, label: SyncedLabel): Props {
  if (label === 'Paper') {
    return { wiki_id: page.id, wiki_title: page.title, wiki_status: page.status, wiki_tags: [...page.tags] };
  }
  return {
    wiki_id: page.id,
    title: page.title,
    type: page.type,
    category: page.category,
    tags: [...page.tags],
    status: page.status,
    created_at: page.created_at,
    updated_at: page.updated_at,
    source: 'wiki',
  };
}

/** The graph state a snapshot yields (§6.2–6.3). Pure. */
export function planWikiGraph(snapshot: WikiSnapshot): WikiGraphPlan {
  const nodes: PlannedNode[] = [];
  const nodeOfPage = new Map<string, NodeRef>();
  const pageOfPaper = new Map<string, string>();
  const warnings: { page_id: string; reason: string }[] = [];
  let skippedPages = 0;
  for (const page of snapshot.pages) {
    const mapped = pageNode(page);
    if (mapped.kind === 'none') {
      skippedPages++;
      continue;
    }
    if (mapped.kind === 'skipped') {
      skippedPages++;
      warnings.push({ page_id: page.id, reason: mapped.reason });
      continue;
    }
    const ref: NodeRef =
      mapped.kind === 'paper' ? { label: 'Paper', key: mapped.preprint_id } : { label: mapped.label, key: page.id };
    if (mapped.kind === 'paper') {
      const first = pageOfPaper.get(mapped.preprint_id);
      if (first !== undefined) {
        skippedPages++;
        warnings.push({ page_id: page.id, reason: `paper ${mapped.preprint_id} already has the page '${first}'` });
        continue;
      }
      pageOfPaper.set(mapped.preprint_id, page.id);
    }
    nodeOfPage.set(page.id, ref);
    nodes.push({ ref, pageId: page.id, props: nodeProps(page, ref.label) });
  }

  const edges: PlannedEdge[] = [];
  const seen = new Set<string>();
  for (const page of snapshot.pages) {
    const from = nodeOfPage.get(page.id);
    if (!from) continue;
    const add = (type: WikiRelationshipType | null, targetId: string): void => {
      const to = nodeOfPage.get(targetId);
      if (!to || targetId === page.id) return; // missing or unsynced target, self-link
      const key = edgeId(type ?? linkType(from.label, to.label), refId(from), refId(to));
      if (seen.has(key)) return;
      seen.add(key);
      edges.push({ type: type ?? linkType(from.label, to.label), from, to, wiki_id: page.id });
    };
    for (const target of linksOf(snapshot, page.id)) add(null, target);
    for (const target of page.related) add('RELATED_TO', target);
    if (from.label === 'Primitive') for (const target of page.prerequisites) add('DEPENDS_ON', target);
  }
  return { pages: snapshot.pages.length, nodes, edges, skippedPages, warnings };
}
