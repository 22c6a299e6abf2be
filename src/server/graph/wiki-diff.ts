/**
 * What a wiki sync must write (CONTRACT §15.7): the difference between the planned graph state and the wiki-owned
 * state the graph holds. Pure, so "a second run with no changes changes nothing" is a property of this function.
 */
import type { WikiNodeLabel } from '../../wiki/index.js';
import {
  edgeId,
  PAPER_WIKI_KEYS,
  refId,
  WIKI_NODE_KEYS,
  type NodeRef,
  type PlannedEdge,
  type PlannedNode,
  type Props,
  type SyncedLabel,
  type WikiGraphPlan,
} from './wiki-plan.js';

/** A `source: "wiki"` relationship as the graph holds it. */
export interface ExistingEdge {
  /** elementId. */
  readonly id: string;
  /** `edgeId` of its type and end nodes; `null` when an end node is no synced kind. */
  readonly key: string | null;
  /** The page that produced it, as stored. */
  readonly wikiId: unknown;
}

/** The wiki-owned part of the graph. */
export interface WikiGraphState {
  /** By `refId`: the wiki properties of wiki nodes with `source: "wiki"` and of `Paper` nodes with a `wiki_id`. */
  readonly nodes: ReadonlyMap<string, Readonly<Record<string, unknown>>>;
  readonly edges: readonly ExistingEdge[];
}

export interface WikiGraphDiff {
  /** Planned nodes that are missing or whose wiki properties differ: MERGE and set. */
  readonly nodeWrites: readonly PlannedNode[];
  /** Wiki nodes whose page is gone: delete (with their relationships). */
  readonly staleNodes: readonly { readonly label: WikiNodeLabel; readonly key: string }[];
  /** Versionless ids of `Paper` nodes whose page is gone: remove their `wiki_*` properties. */
  readonly stalePapers: readonly string[];
  /** elementIds of relationships no page yields any more, duplicates, or ones now produced by another page. */
  readonly staleEdgeIds: readonly string[];
  /** Planned relationships the graph lacks. */
  readonly newEdges: readonly PlannedEdge[];
}

/** A stable comparison form of a property value as stored (absent = null; list items compared as strings). */
function canonical(value: unknown): string {
  if (value === undefined || value === null) return 'null';
  if (Array.isArray(value)) return JSON.stringify(value.map((v) => String(v)));
  return JSON.stringify(value);
}

function sameProps(
  existing: Readonly<Record<string, unknown>> | undefined,
  wanted: Props,
  label: SyncedLabel,
): boolean {
  if (existing === undefined) return false;
  const keys = label === 'Paper' ? PAPER_WIKI_KEYS : WIKI_NODE_KEYS;
  return keys.every((k) => canonical(existing[k]) === canonical(wanted[k]));
}

function parseRef(id: string): NodeRef {
  const colon = id.indexOf(':');
  return { label: id.slice(0, colon) as SyncedLabel, key: id.slice(colon + 1) };
}

export function diffWikiGraph(plan: WikiGraphPlan, state: WikiGraphState): WikiGraphDiff {
  const nodeWrites = plan.nodes.filter((n) => !sameProps(state.nodes.get(refId(n.ref)), n.props, n.ref.label));

  const wantedNodes = new Set(plan.nodes.map((n) => refId(n.ref)));
  const staleNodes: { label: WikiNodeLabel; key: string }[] = [];
  const stalePapers: string[] = [];
  for (const id of state.nodes.keys()) {
    if (wantedNodes.has(id)) continue;
    const ref = parseRef(id);
    if (ref.label === 'Paper') stalePapers.push(ref.key);
    else staleNodes.push({ label: ref.label, key: ref.key });
  }

  const wantedEdges = new Map(plan.edges.map((e) => [edgeId(e.type, refId(e.from), refId(e.to)), e]));
  const kept = new Set<string>();
  const staleEdgeIds: string[] = [];
  for (const edge of state.edges) {
    const wanted = edge.key === null ? undefined : wantedEdges.get(edge.key);
    if (wanted && edge.key !== null && !kept.has(edge.key) && edge.wikiId === wanted.wiki_id) kept.add(edge.key);
    else staleEdgeIds.push(edge.id);
  }
  const newEdges = [...wantedEdges].filter(([key]) => !kept.has(key)).map(([, e]) => e);

  return { nodeWrites, staleNodes, stalePapers, staleEdgeIds, newEdges };
}
