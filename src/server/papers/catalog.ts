/**
 * The paper catalog: a successful object write applied to the metadata index row (§4.2) and to the `Paper` node
 * (§6.5). The index is `PaperIndex` (`paper-index.ts`); the graph writes are the graph repository's.
 */
import type { Logger } from 'pino';
import type { VersionedPreprintId } from '../../shared/ids.js';
import type { GraphClient } from '../graph/driver.js';
import { writePaperAssets } from '../graph/paper-assets.js';
import { withDeadline } from '../graph/session.js';
import type { RowMutation } from './index/row.js';
import { PaperIndex } from './paper-index.js';
import { paperAssetProperties } from './paper-node.js';

export { PaperIndex };

/** An upload waits at most this long for the graph before answering with the catalog sync deferred. */
const WRITE_THROUGH_DEADLINE_MS = 10_000;

/** Index + graph write-through. */
export class Catalog {
  constructor(
    readonly index: PaperIndex,
    private readonly graph: GraphClient | null,
    private readonly logger: Logger,
  ) {}

  /**
   * Applies a successful object write to the index row and the graph. Resolves to `true` when the catalog sync
   * is deferred (`X-Catalog-Sync: deferred`): index unavailable, or the graph is configured and failed.
   */
  async recordWrite(id: VersionedPreprintId, mutation: RowMutation): Promise<boolean> {
    const now = new Date();
    this.index.update(id, { ...mutation, updated_at: now });
    let deferred = !this.index.available;
    if (this.graph !== null) {
      if (!this.index.available) return true;
      try {
        const update = { id: id.versionless, props: paperAssetProperties(this.index.versionsOf(id.versionless), now) };
        await withDeadline(writePaperAssets(this.graph, update), WRITE_THROUGH_DEADLINE_MS, 'graph write-through');
      } catch (err) {
        this.logger.warn(
          { err: (err as Error).message, preprint_id: id.id },
          'graph write-through failed; catalog sync deferred',
        );
        deferred = true;
      }
    }
    return deferred;
  }
}
