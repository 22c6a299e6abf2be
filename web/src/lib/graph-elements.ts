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
