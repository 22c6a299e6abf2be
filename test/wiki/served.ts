/** Comparing two loads of a wiki: everything a snapshot serves, as plain data. */
import { searchWiki, type WikiSnapshot } from '../../src/wiki/index.js';

/**
 * The snapshot's files, pages, exclusions, links and walk diagnostics, with the results of `queries` (limits from 20
 * down, sources included for every other query) through `search` — another build's `searchWiki` for its snapshots.
 */
export function servedData(snapshot: WikiSnapshot, queries: readonly string[], search = searchWiki) {
  const { exists, files, pages, excluded, outgoing, backlinks, ignored } = snapshot;
  const searches = queries.map((q, i) => search(snapshot, { q, limit: 20 - (i % 20), include_sources: i % 2 === 0 }));
  return { exists, files, pages, excluded, outgoing: [...outgoing], backlinks: [...backlinks], ignored, searches };
}
