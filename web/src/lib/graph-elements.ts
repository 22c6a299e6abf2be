/** Nodes and relationships found in graph query records (value encoding of CONTRACT §14). */
export interface GNode {
  id: string;
  labels: string[];
  properties: Record<string, unknown>;
}
export interface GEdge {
  id: string;
  type: string;
  start_node: string;
  end_node: string;
  properties: Record<string, unknown>;
}
export interface GraphElements {
  nodes: GNode[];
  edges: GEdge[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const isNode = (v: Record<string, unknown>): boolean =>
  typeof v['id'] === 'string' && Array.isArray(v['labels']) && isObject(v['properties']);
const isEdge = (v: Record<string, unknown>): boolean =>
  typeof v['id'] === 'string' &&
  typeof v['type'] === 'string' &&
  typeof v['start_node'] === 'string' &&
  typeof v['end_node'] === 'string';

/** Walks every value (lists, maps, paths) and collects distinct nodes and relationships. */
export function extractElements(records: Record<string, unknown>[]): GraphElements {
  const nodes = new Map<string, GNode>();
  const edges = new Map<string, GEdge>();
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(walk);
    if (!isObject(v)) return;
    if (isNode(v)) {
      nodes.set(v['id'] as string, v as unknown as GNode);
      return;
    }
    if (isEdge(v)) {
      edges.set(v['id'] as string, v as unknown as GEdge);
      return;
    }
    Object.values(v).forEach(walk);
  };
  records.forEach(walk);
  // An edge can be drawn only between nodes the result contains.
  const drawable = [...edges.values()].filter((e) => nodes.has(e.start_node) && nodes.has(e.end_node));
  return { nodes: [...nodes.values()], edges: drawable };
}

/** The most nodes the explorer draws: a larger result is drawn in part (the table still lists every row). */
export const DRAW_CAP = 500;

/**
 * The first `max` nodes of `elements` and the relationships among them, with how many nodes were left out: what the
 * drawing can show fluently.
 */
export function capElements(elements: GraphElements, max = DRAW_CAP): { drawn: GraphElements; hidden: number } {
  if (elements.nodes.length <= max) return { drawn: elements, hidden: 0 };
  const nodes = elements.nodes.slice(0, max);
  const kept = new Set(nodes.map((n) => n.id));
  const edges = elements.edges.filter((e) => kept.has(e.start_node) && kept.has(e.end_node));
  return { drawn: { nodes, edges }, hidden: elements.nodes.length - max };
}

/** `more` added to `base`: elements already present are kept as they are, new ones appended in order. */
export function mergeElements(base: GraphElements, more: GraphElements): GraphElements {
  const nodeIds = new Set(base.nodes.map((n) => n.id));
  const edgeIds = new Set(base.edges.map((e) => e.id));
  return {
    nodes: [...base.nodes, ...more.nodes.filter((n) => !nodeIds.has(n.id))],
    edges: [...base.edges, ...more.edges.filter((e) => !edgeIds.has(e.id))],
  };
}

/** A Cypher string literal of `text` (the query API takes no parameters). */
export const cypherString = (text: string): string => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** The read query behind "expand": a node, every relationship it has and the node at its other end. */
export const neighboursQuery = (nodeId: string, limit: number): string =>
  `MATCH (n)-[r]-(m) WHERE elementId(n) = ${cypherString(nodeId)}\nRETURN n, r, m LIMIT ${limit}`;

/** The text shown on a node: its title, wiki id or preprint id, else its first label. */
export function nodeCaption(n: GNode): string {
  const p = n.properties;
  for (const key of ['title', 'wiki_title', 'name', 'wiki_id', 'preprint_id']) {
    const v = p[key];
    if (typeof v === 'string' && v) return v.length > 48 ? `${v.slice(0, 45)}…` : v;
  }
  return n.labels[0] ?? n.id;
}

/** A cell of the results table: scalars as text, graph values summarised. */
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v !== 'object') return String(v);
  if (!Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    if (isNode(o))
      return `(${(o['labels'] as string[]).map((l) => `:${l}`).join('')} ${nodeCaption(o as unknown as GNode)})`;
    if (isEdge(o)) return `[:${o['type'] as string}]`;
  }
  return JSON.stringify(v);
}
