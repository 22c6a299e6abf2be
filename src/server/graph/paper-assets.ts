/**
 * `Paper` asset properties in the graph (CONTRACT §6.1, §6.5, §15.6): the write-through of one upload and the
 * batched rewrite of `pksd papers sync`.
 */
import { SET_DERIVED_CITATIONS } from './derived.js';
import type { GraphClient } from './driver.js';
import { neo4jDriver } from './neo4j-lib.js';
import { inTransaction, toNumber, withSession, writeTx } from './session.js';

/** The asset properties of one `Paper` node (§6.1); `assets_updated_at` is an RFC 3339 instant. */
export interface PaperAssetProps {
  readonly yymm: string | null;
  readonly versions: readonly string[];
  readonly pdf_versions: readonly string[];
  readonly md_versions: readonly string[];
  readonly has_pdf: boolean;
  readonly has_md: boolean;
  readonly latest_pdf_version: number | null;
  readonly pdf_size: number | null;
  readonly pdf_sha256: string | null;
  readonly latest_md_version: number | null;
  readonly md_size: number | null;
  readonly md_sha256: string | null;
  readonly image_count: number;
  readonly assets_updated_at: string;
}

export interface PaperAssetUpdate {
  /** Versionless canonical id. */
  readonly id: string;
  readonly props: PaperAssetProps;
}

/** Rows per transaction (§6: `UNWIND $rows`, ≤ 500). */
const BATCH_ROWS = 500;

const MERGE_ASSETS = `UNWIND $rows AS row
  MERGE (p:Paper {preprint_id: row.id})
  SET p += row.props, p.assets_updated_at = datetime(row.props.assets_updated_at), ${SET_DERIVED_CITATIONS}`;

/** Counts and sizes are stored as graph integers (a JS number would become a float). */
const INTEGER_PROPS = ['latest_pdf_version', 'pdf_size', 'latest_md_version', 'md_size', 'image_count'] as const;

function row(update: PaperAssetUpdate): { id: string; props: Record<string, unknown> } {
  const props: Record<string, unknown> = { ...update.props };
  for (const key of INTEGER_PROPS) {
    const value = update.props[key];
    if (value !== null) props[key] = neo4jDriver().int(value);
  }
  return { id: update.id, props };
}

/** MERGE + SET of one `Paper` node's asset properties, in one transaction (the upload write-through). */
export async function writePaperAssets(graph: GraphClient, update: PaperAssetUpdate): Promise<void> {
  await writeTx(graph, (tx) => tx.run(MERGE_ASSETS, { rows: [row(update)] }));
}

/**
 * The graph step of `papers sync` (§15.6 step 3): MERGEs every listed paper with its asset properties (batches of
 * 500), then gives `Paper` nodes that carry asset properties but are not in `updates` `has_pdf`/`has_md` false and
 * empty version lists (nodes are kept: they may carry scholarly or wiki data). Resolves to the number of such
 * nodes.
 */
export async function replacePaperAssets(
  graph: GraphClient,
  updates: readonly PaperAssetUpdate[],
  now: Date,
): Promise<number> {
  return withSession(graph, 'WRITE', async (session) => {
    for (let i = 0; i < updates.length; i += BATCH_ROWS) {
      const rows = updates.slice(i, i + BATCH_ROWS).map(row);
      await inTransaction(session, (tx) => tx.run(MERGE_ASSETS, { rows }));
    }
    const res = await inTransaction(session, (tx) =>
      tx.run(
        `MATCH (p:Paper)
         WHERE (p.has_pdf = true OR p.has_md = true OR size(coalesce(p.versions, [])) > 0) AND NOT p.preprint_id IN $ids
         SET p.has_pdf = false, p.has_md = false, p.versions = [], p.pdf_versions = [], p.md_versions = [],
             p.latest_pdf_version = null, p.latest_md_version = null, p.pdf_size = null, p.pdf_sha256 = null,
             p.md_size = null, p.md_sha256 = null, p.image_count = 0, p.assets_updated_at = datetime($now),
             ${SET_DERIVED_CITATIONS}
         RETURN count(p) AS n`,
        { ids: updates.map((u) => u.id), now: now.toISOString() },
      ),
    );
    return toNumber(res.records[0]?.get('n'));
  });
}
