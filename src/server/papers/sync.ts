/**
 * `pksd papers sync --full --from-objects` (CONTRACT §15.6, §4.4): rebuild the metadata index and the graph's
 * asset properties from listings of the three buckets.
 */
import type { Logger } from 'pino';
import { ConflictError } from '../../shared/domain-errors.js';
import { parsePreprintId } from '../../shared/ids.js';
import type { GraphClient } from '../graph/driver.js';
import { replacePaperAssets, type PaperAssetUpdate } from '../graph/paper-assets.js';
import type { ObjectStore } from '../storage/object-store.js';
import { StoreIndexPersistence } from './index-parquet.js';
import type { IndexRow, RowMutation } from './index/row.js';
import { IndexTable } from './index/table.js';
import { paperAssetProperties } from './paper-node.js';
import { checkInvariants } from './sync-checks.js';
import { listPaperAssets } from './sync-listing.js';
import { readDigests, rebuildRows } from './sync-rows.js';

export interface SyncOptions {
  readonly dryRun: boolean;
  /** `null` = graph step skipped (`--no-graph` or unconfigured). */
  readonly graph: GraphClient | null;
  readonly progress: (line: string) => void;
  readonly now?: () => Date;
  readonly headConcurrency?: number;
}

export interface SyncReport {
  readonly pdfObjects: number;
  readonly markdownObjects: number;
  readonly imageObjects: number;
  readonly papers: number;
  readonly skippedKeys: readonly string[];
  readonly violations: readonly string[];
  readonly graphPapersTouched: number;
}

export async function syncFromObjects(store: ObjectStore, logger: Logger, options: SyncOptions): Promise<SyncReport> {
  const now = (options.now ?? (() => new Date()))();
  const { papers, counts, skipped } = await listPaperAssets(store, options.progress);

  const persistence = new StoreIndexPersistence(store, logger);
  const previous = await loadPrevious(persistence, options.progress);
  const sha = await readDigests(store, papers.values(), previous, {
    concurrency: options.headConcurrency ?? 16,
    progress: options.progress,
  });
  const rows = rebuildRows(papers.values(), previous, sha, now);
  const violations = checkInvariants(papers, counts);

  if (!options.dryRun) await writeIndex(persistence, rows, options.progress);

  let touched = 0;
  if (options.graph !== null) {
    const updates = paperUpdates(rows, now);
    touched = updates.length;
    if (!options.dryRun) {
      options.progress(`updating ${updates.length} Paper nodes …`);
      touched += await replacePaperAssets(options.graph, updates, now);
    }
  }

  return {
    pdfObjects: counts.pdf,
    markdownObjects: counts.markdown,
    imageObjects: counts.images,
    papers: papers.size,
    skippedKeys: skipped,
    violations,
    graphPapersTouched: touched,
  };
}

/** The current index, or an empty one when it is missing or unreadable (the rebuild then starts from scratch). */
async function loadPrevious(persistence: StoreIndexPersistence, progress: (line: string) => void): Promise<IndexTable> {
  try {
    return (await persistence.load()) ?? new IndexTable();
  } catch (err) {
    progress(`previous index unreadable (${(err as Error).message}); rebuilding without it`);
    return new IndexTable();
  }
}

/** Writes the rows with CAS; a concurrent writer's rows survive through the merge. */
async function writeIndex(
  persistence: StoreIndexPersistence,
  rows: readonly IndexRow[],
  progress: (line: string) => void,
): Promise<void> {
  progress(`writing the index (${rows.length} rows) …`);
  const pending = new Map<string, RowMutation>(rows.map((r) => [r.preprint_id, r]));
  const result = await persistence.save(IndexTable.fromRows(rows), pending);
  if (result === 'retry') {
    throw new ConflictError('the metadata index kept changing during the write; run the sync again');
  }
}

/** One asset update per versionless paper, from the rows of all its versions. */
function paperUpdates(rows: readonly IndexRow[], now: Date): PaperAssetUpdate[] {
  const byPaper = new Map<string, IndexRow[]>();
  for (const r of rows) {
    const versionless = parsePreprintId(r.preprint_id)!.versionless;
    let list = byPaper.get(versionless);
    if (!list) byPaper.set(versionless, (list = []));
    list.push(r);
  }
  return [...byPaper].map(([id, rs]) => ({ id, props: paperAssetProperties(rs, now) }));
}
