/**
 * Wiki → graph sync (CONTRACT §6.1–6.3, §15.7): plans the state the wiki yields (`wiki-plan.ts`), reads what the
 * graph holds (`wiki-state.ts`), computes the difference (`wiki-diff.ts`) and writes only that, so a second run
 * with no wiki change writes nothing. Only things the wiki owns are touched: nodes and relationships with
 * `source: "wiki"`, and the `wiki_*` properties of `Paper` nodes (which are shared with the asset and scholarly
 * writers and never deleted here). Every property comes from a page; nothing is computed from the graph.
 */
import type { WikiSnapshot } from '../../wiki/index.js';
import type { GraphClient } from './driver.js';
import { inTransaction, withSession } from './session.js';
import { diffWikiGraph, type WikiGraphDiff } from './wiki-diff.js';
import {
  PAPER_WIKI_KEYS,
  planWikiGraph,
  WIKI_NODE_LABELS,
  WIKI_RELATIONSHIP_TYPES,
  type SyncedLabel,
  type WikiGraphPlan,
  type WikiRelationshipType,
} from './wiki-plan.js';
import { readWikiGraphState } from './wiki-state.js';

export { WIKI_RELATIONSHIP_TYPES };

/** Rows per transaction (§6: `UNWIND $rows`, ≤ 500). */
export const MAX_BATCH_ROWS = 500;

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

const zeroCounters = (): WriteCounters => ({
  nodesCreated: 0,
  nodesDeleted: 0,
  relationshipsCreated: 0,
  relationshipsDeleted: 0,
  propertiesSet: 0,
  labelsAdded: 0,
  labelsRemoved: 0,
});

const keyProperty = (label: SyncedLabel): string => (label === 'Paper' ? 'preprint_id' : 'wiki_id');

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

/** One `UNWIND $rows` statement per group of rows of the same shape, in the order the writes must happen. */
function diffStatements(diff: WikiGraphDiff): { query: string; rows: readonly unknown[] }[] {
  const out: { query: string; rows: readonly unknown[] }[] = [
    { query: 'UNWIND $rows AS id MATCH ()-[r]->() WHERE elementId(r) = id DELETE r', rows: diff.staleEdgeIds },
  ];
  for (const label of WIKI_NODE_LABELS) {
    out.push({
      query: `UNWIND $rows AS id MATCH (n:${label} {wiki_id: id}) WHERE n.source = 'wiki' DETACH DELETE n`,
      rows: diff.staleNodes.filter((n) => n.label === label).map((n) => n.key),
    });
  }
  out.push({
    query: `UNWIND $rows AS id MATCH (p:Paper {preprint_id: id}) REMOVE ${PAPER_WIKI_KEYS.map((k) => `p.${k}`).join(', ')}`,
    rows: diff.stalePapers,
  });
  for (const [label, group] of groupBy(diff.nodeWrites, (n) => n.ref.label)) {
    out.push({
      query: `UNWIND $rows AS row MERGE (n:${label} {${keyProperty(label as SyncedLabel)}: row.key}) SET n += row.props`,
      rows: group.map((n) => ({ key: n.ref.key, props: n.props })),
    });
  }
  for (const group of groupBy(diff.newEdges, (e) => `${e.type}|${e.from.label}|${e.to.label}`).values()) {
    const first = group[0]!;
    out.push({
      query: `UNWIND $rows AS row
         MATCH (a:${first.from.label} {${keyProperty(first.from.label)}: row.from})
         MATCH (b:${first.to.label} {${keyProperty(first.to.label)}: row.to})
         MERGE (a)-[r:${first.type} {source: 'wiki'}]->(b)
         SET r.wiki_id = row.wiki_id`,
      rows: group.map((e) => ({ from: e.from.key, to: e.to.key, wiki_id: e.wiki_id })),
    });
  }
  return out.filter((s) => s.rows.length > 0);
}

/** Runs the statements in transactions of at most `batchSize` rows; resolves to the summed counters. */
async function applyDiff(graph: GraphClient, diff: WikiGraphDiff, batchSize: number): Promise<WriteCounters> {
  const counters = zeroCounters();
  const statements = diffStatements(diff);
  if (statements.length === 0) return counters;
  await withSession(graph, 'WRITE', async (session) => {
    for (const { query, rows } of statements) {
      for (let i = 0; i < rows.length; i += batchSize) {
        const result = await inTransaction(session, (tx) => tx.run(query, { rows: rows.slice(i, i + batchSize) }));
        const u = result.summary.counters.updates();
        for (const k of Object.keys(counters) as (keyof WriteCounters)[]) counters[k] += u[k] ?? 0;
      }
    }
  });
  return counters;
}

function report(
  plan: WikiGraphPlan,
  diff: WikiGraphDiff,
  counters: WriteCounters,
  dryRun: boolean,
  durationMs: number,
): WikiSyncReport {
  const nodes: Record<SyncedLabel, number> = { Algorithm: 0, Primitive: 0, Author: 0, Concept: 0, Paper: 0 };
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
    nodesWritten: diff.nodeWrites.length,
    nodesDeleted: diff.staleNodes.length,
    papersCleared: diff.stalePapers.length,
    relationships,
    relationshipsCreated: diff.newEdges.length,
    relationshipsDeleted: diff.staleEdgeIds.length,
    skippedPages: plan.skippedPages,
    warnings: plan.warnings,
    counters,
    durationMs,
  };
}

/**
 * Brings the graph to the state `snapshot` yields (CONTRACT §15.7): deletes stale relationships, deletes wiki
 * nodes whose page is gone, removes `wiki_*` properties from `Paper` nodes whose page is gone, MERGEs new or
 * changed nodes, creates missing relationships. With `dryRun` it reads and reports but writes nothing.
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
  const diff = diffWikiGraph(plan, await readWikiGraphState(graph));
  const counters = dryRun ? zeroCounters() : await applyDiff(graph, diff, batchSize);
  return report(plan, diff, counters, dryRun, performance.now() - started);
}
