/**
 * Wiki → graph sync (CONTRACT §6.1–6.3, §15.7): maps served pages to nodes and wikilinks/frontmatter lists to
 * relationships, then brings the graph to exactly that state by difference, so a second run with no wiki change
 * writes nothing. Only things the wiki owns are touched: nodes and relationships with `source: "wiki"`, and the
 * `wiki_*` properties of `Paper` nodes (which are shared with the asset and scholarly writers and never deleted here).
 * Every property comes from a page; nothing is computed from the graph (so no `__derived` names are needed).
 */
import type { ManagedTransaction, QueryResult, Session } from 'neo4j-driver';
import { linksOf, pageNode, type WikiNodeLabel, type WikiPage, type WikiSnapshot } from '../../wiki/index.js';
import type { GraphClient } from './driver.js';

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

/** Rows per transaction (§6: `UNWIND $rows`, ≤ 500). */
export const MAX_BATCH_ROWS = 500;

/** A node by its key: `wiki_id` for wiki labels, the versionless `preprint_id` for `Paper`. */
export interface NodeRef {
  readonly label: SyncedLabel;
  readonly key: string;
}

type PropValue = string | string[] | null;
type Props = Record<string, PropValue>;

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

const WIKI_NODE_KEYS = ['wiki_id', 'title', 'type', 'category', 'tags', 'status', 'created_at', 'updated_at', 'source'];
const PAPER_WIKI_KEYS = ['wiki_id', 'wiki_title', 'wiki_status', 'wiki_tags'];

const refId = (ref: NodeRef): string => `${ref.label}:${ref.key}`;
const edgeId = (type: string, from: string, to: string): string => `${type}|${from}|${to}`;

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

/** Sums of the driver's result-summary counters over every write of a run. */
export interface WriteCounters {
  nodesCreated: number;
  nodesDeleted: number;
  relationshipsCreated: number;
  relationshipsDeleted: number;
  propertiesSet: number;
  labelsAdded: number;
  labelsRemoved: number;
}

export interface WikiSyncReport {
  readonly dryRun: boolean;
  readonly pages: number;
  /** Nodes the wiki yields (all MERGEd), by label. */
  readonly nodes: Readonly<Record<SyncedLabel, number>>;
  readonly nodesMerged: number;
  /** Of those, nodes that were missing or had other wiki properties (0 on a repeated run). */
  readonly nodesWritten: number;
  /** `Algorithm`/`Primitive`/`Author`/`Concept` nodes whose page is gone. */
  readonly nodesDeleted: number;
  /** `Paper` nodes whose page is gone: `wiki_*` properties removed, node kept. */
  readonly papersCleared: number;
  /** Relationships the wiki yields, by type. */
  readonly relationships: Readonly<Record<WikiRelationshipType, number>>;
  readonly relationshipsCreated: number;
  readonly relationshipsDeleted: number;
  readonly skippedPages: number;
  readonly warnings: readonly { page_id: string; reason: string }[];
  /** What the database reported (all 0 on a dry run or a repeated run). */
  readonly counters: WriteCounters;
  readonly durationMs: number;
}

export interface WikiSyncOptions {
  readonly dryRun?: boolean;
  /** Rows per transaction, capped at 500. */
  readonly batchSize?: number;
}

interface ExistingEdge {
  readonly id: string;
  readonly key: string | null;
  readonly wikiId: unknown;
}

function emptyCounters(): WriteCounters {
  return {
    nodesCreated: 0,
    nodesDeleted: 0,
    relationshipsCreated: 0,
    relationshipsDeleted: 0,
    propertiesSet: 0,
    labelsAdded: 0,
    labelsRemoved: 0,
  };
}

/** A stable comparison form of a property value as stored (absent = null). */
function canonical(value: unknown): string {
  if (value === undefined || value === null) return 'null';
  if (Array.isArray(value)) return JSON.stringify(value.map((v) => String(v)));
  return JSON.stringify(value);
}

function sameProps(existing: Record<string, unknown> | undefined, wanted: Props, keys: readonly string[]): boolean {
  if (existing === undefined) return false;
  return keys.every((k) => canonical(existing[k]) === canonical(wanted[k]));
}

function chunks<T>(rows: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size));
  return out;
}

function groupBy<T>(rows: readonly T[], key: (row: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const k = key(row);
    let list = groups.get(k);
    if (!list) groups.set(k, (list = []));
    list.push(row);
  }
  return groups;
}

const keyProperty = (label: SyncedLabel): string => (label === 'Paper' ? 'preprint_id' : 'wiki_id');

/** Cypher expression of a node's `Label:key` reference (null for a node that is no synced kind). */
const refExpression = (v: string): string =>
  `CASE WHEN ${v}:Paper THEN 'Paper:' + ${v}.preprint_id ` +
  WIKI_NODE_LABELS.map((l) => `WHEN ${v}:${l} THEN '${l}:' + ${v}.wiki_id `).join('') +
  'END';

/**
 * Brings the graph to the state `snapshot` yields (CONTRACT §15.7). Reads the current wiki-owned state, then, in
 * transactions of at most `batchSize` rows: deletes stale relationships, deletes wiki nodes whose page is gone,
 * removes `wiki_*` properties from `Paper` nodes whose page is gone, MERGEs new or changed nodes, creates missing
 * relationships. With `dryRun` it reads and reports but writes nothing.
 */
export async function syncWikiToGraph(
  graph: GraphClient,
  snapshot: WikiSnapshot,
  options: WikiSyncOptions = {},
): Promise<WikiSyncReport> {
  const started = performance.now();
  const dryRun = options.dryRun === true;
  const batchSize = Math.max(1, Math.min(MAX_BATCH_ROWS, options.batchSize ?? MAX_BATCH_ROWS));
  const plan = planWikiGraph(snapshot);
  const counters = emptyCounters();
  const session: Session = graph.driver.session({
    defaultAccessMode: 'WRITE',
    ...(graph.database ? { database: graph.database } : {}),
  });
  try {
    const read = async (query: string, params: Record<string, unknown> = {}) =>
      (await session.executeRead((tx) => tx.run(query, params))).records;
    const write = async (query: string, rows: readonly unknown[]): Promise<void> => {
      if (dryRun || rows.length === 0) return;
      for (const batch of chunks(rows, batchSize)) {
        const result: QueryResult = await session.executeWrite((tx: ManagedTransaction) =>
          tx.run(query, { rows: batch }),
        );
        const u = result.summary.counters.updates();
        for (const k of Object.keys(counters) as (keyof WriteCounters)[]) counters[k] += u[k] ?? 0;
      }
    };

    // 1. Current wiki-owned state.
    const existingNodes = new Map<string, Record<string, unknown>>();
    for (const label of WIKI_NODE_LABELS) {
      const records = await read(
        `MATCH (n:${label}) WHERE n.source = 'wiki' RETURN n.wiki_id AS key, n {${WIKI_NODE_KEYS.map((k) => `.${k}`).join(', ')}} AS props`,
      );
      for (const r of records)
        existingNodes.set(`${label}:${String(r.get('key'))}`, r.get('props') as Record<string, unknown>);
    }
    const paperRecords = await read(
      `MATCH (p:Paper) WHERE p.wiki_id IS NOT NULL RETURN p.preprint_id AS key, p {${PAPER_WIKI_KEYS.map((k) => `.${k}`).join(', ')}} AS props`,
    );
    for (const r of paperRecords)
      existingNodes.set(`Paper:${String(r.get('key'))}`, r.get('props') as Record<string, unknown>);
    const edgeRecords = await read(
      `MATCH (a)-[r:${WIKI_RELATIONSHIP_TYPES.join('|')}]->(b) WHERE r.source = 'wiki'
       RETURN elementId(r) AS id, type(r) AS type, r.wiki_id AS wiki_id, ${refExpression('a')} AS a, ${refExpression('b')} AS b`,
    );
    const existingEdges: ExistingEdge[] = edgeRecords.map((r) => {
      const a = r.get('a') as string | null;
      const b = r.get('b') as string | null;
      return {
        id: r.get('id') as string,
        key: a === null || b === null ? null : edgeId(r.get('type') as string, a, b),
        wikiId: r.get('wiki_id'),
      };
    });

    // 2. Differences.
    const wantedNodes = new Map(plan.nodes.map((n) => [refId(n.ref), n]));
    const nodeWrites = plan.nodes.filter(
      (n) =>
        !sameProps(
          existingNodes.get(refId(n.ref)),
          n.props,
          n.ref.label === 'Paper' ? PAPER_WIKI_KEYS : WIKI_NODE_KEYS,
        ),
    );
    const staleNodes: NodeRef[] = [];
    for (const id of existingNodes.keys()) {
      if (wantedNodes.has(id)) continue;
      const colon = id.indexOf(':');
      staleNodes.push({ label: id.slice(0, colon) as SyncedLabel, key: id.slice(colon + 1) });
    }
    const wantedEdges = new Map(plan.edges.map((e) => [edgeId(e.type, refId(e.from), refId(e.to)), e]));
    const keptEdges = new Set<string>();
    const staleEdgeIds: string[] = [];
    for (const edge of existingEdges) {
      const wanted = edge.key === null ? undefined : wantedEdges.get(edge.key);
      if (wanted && edge.key !== null && !keptEdges.has(edge.key) && edge.wikiId === wanted.wiki_id) {
        keptEdges.add(edge.key);
      } else {
        staleEdgeIds.push(edge.id); // gone, duplicated, or produced by another page now
      }
    }
    const newEdges = [...wantedEdges].filter(([key]) => !keptEdges.has(key)).map(([, e]) => e);

    // 3. Writes (skipped on a dry run).
    await write('UNWIND $rows AS id MATCH ()-[r]->() WHERE elementId(r) = id DELETE r', staleEdgeIds);
    for (const label of WIKI_NODE_LABELS) {
      const keys = staleNodes.filter((n) => n.label === label).map((n) => n.key);
      await write(`UNWIND $rows AS id MATCH (n:${label} {wiki_id: id}) WHERE n.source = 'wiki' DETACH DELETE n`, keys);
    }
    const stalePapers = staleNodes.filter((n) => n.label === 'Paper').map((n) => n.key);
    await write(
      `UNWIND $rows AS id MATCH (p:Paper {preprint_id: id}) REMOVE ${PAPER_WIKI_KEYS.map((k) => `p.${k}`).join(', ')}`,
      stalePapers,
    );
    for (const [label, group] of groupBy(nodeWrites, (n) => n.ref.label)) {
      const key = keyProperty(label as SyncedLabel);
      await write(
        `UNWIND $rows AS row MERGE (n:${label} {${key}: row.key}) SET n += row.props`,
        group.map((n) => ({ key: n.ref.key, props: n.props })),
      );
    }
    for (const group of groupBy(newEdges, (e) => `${e.type}|${e.from.label}|${e.to.label}`).values()) {
      const first = group[0]!;
      await write(
        `UNWIND $rows AS row
         MATCH (a:${first.from.label} {${keyProperty(first.from.label)}: row.from})
         MATCH (b:${first.to.label} {${keyProperty(first.to.label)}: row.to})
         MERGE (a)-[r:${first.type} {source: 'wiki'}]->(b)
         SET r.wiki_id = row.wiki_id`,
        group.map((e) => ({ from: e.from.key, to: e.to.key, wiki_id: e.wiki_id })),
      );
    }

    const nodes = { Algorithm: 0, Primitive: 0, Author: 0, Concept: 0, Paper: 0 } as Record<SyncedLabel, number>;
    for (const n of plan.nodes) nodes[n.ref.label]++;
    const relationships = Object.fromEntries(WIKI_RELATIONSHIP_TYPES.map((t) => [t, 0])) as Record<
      WikiRelationshipType,
      number
    >;
    for (const e of plan.edges) relationships[e.type]++;
    return {
      dryRun,
      pages: plan.pages,
      nodes,
      nodesMerged: plan.nodes.length,
      nodesWritten: nodeWrites.length,
      nodesDeleted: staleNodes.length - stalePapers.length,
      papersCleared: stalePapers.length,
      relationships,
      relationshipsCreated: newEdges.length,
      relationshipsDeleted: staleEdgeIds.length,
      skippedPages: plan.skippedPages,
      warnings: plan.warnings,
      counters,
      durationMs: performance.now() - started,
    };
  } finally {
    await session.close();
  }
}
