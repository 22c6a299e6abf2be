/** Reads the wiki-owned part of the graph (the input of `diffWikiGraph`) in one read transaction. */
import type { GraphClient } from './driver.js';
import { readTx } from './session.js';
import type { ExistingEdge, WikiGraphState } from './wiki-diff.js';
import { edgeId, PAPER_WIKI_KEYS, WIKI_NODE_KEYS, WIKI_NODE_LABELS, WIKI_RELATIONSHIP_TYPES } from './wiki-plan.js';

const projection = (keys: readonly string[]): string => keys.map((k) => `.${k}`).join(', ');

/** Cypher expression of a node's `Label:key` reference (null for a node that is no synced kind). */
const refExpression = (v: string): string =>
  `CASE WHEN ${v}:Paper THEN 'Paper:' + ${v}.preprint_id ` +
  WIKI_NODE_LABELS.map((l) => `WHEN ${v}:${l} THEN '${l}:' + ${v}.wiki_id `).join('') +
  'END';

export async function readWikiGraphState(graph: GraphClient): Promise<WikiGraphState> {
  return readTx(graph, async (tx) => {
    const nodes = new Map<string, Record<string, unknown>>();
    for (const label of WIKI_NODE_LABELS) {
      const res = await tx.run(
        `MATCH (n:${label}) WHERE n.source = 'wiki' RETURN n.wiki_id AS key, n {${projection(WIKI_NODE_KEYS)}} AS props`,
      );
      for (const r of res.records)
        nodes.set(`${label}:${String(r.get('key'))}`, r.get('props') as Record<string, unknown>);
    }
    const papers = await tx.run(
      `MATCH (p:Paper) WHERE p.wiki_id IS NOT NULL RETURN p.preprint_id AS key, p {${projection(PAPER_WIKI_KEYS)}} AS props`,
    );
    for (const r of papers.records)
      nodes.set(`Paper:${String(r.get('key'))}`, r.get('props') as Record<string, unknown>);

    const res = await tx.run(
      `MATCH (a)-[r:${WIKI_RELATIONSHIP_TYPES.join('|')}]->(b) WHERE r.source = 'wiki'
       RETURN elementId(r) AS id, type(r) AS type, r.wiki_id AS wiki_id, ${refExpression('a')} AS a, ${refExpression('b')} AS b`,
    );
    const edges: ExistingEdge[] = res.records.map((r) => {
      const a = r.get('a') as string | null;
      const b = r.get('b') as string | null;
      return {
        id: r.get('id') as string,
        key: a === null || b === null ? null : edgeId(r.get('type') as string, a, b),
        wikiId: r.get('wiki_id'),
      };
    });
    return { nodes, edges };
  });
}
