import { Command } from 'commander';
import type { WikiSnapshot } from '../../wiki/index.js';
import { loadWikiIsolated } from '../wiki/loader.js';
import { ensureGraphSchema } from '../graph/constraints.js';
import { createGraphClient } from '../graph/driver.js';
import { syncWikiToGraph, WIKI_RELATIONSHIP_TYPES, type WikiSyncReport } from '../graph/wiki-sync.js';
import { directoryExists } from '../wiki/checkout.js';
import { exitWith } from './exit-codes.js';
import { ExitError, type CommandIO } from './io.js';
import { loadConfigOrExit } from './serve.js';
import { settingSubcommand } from './setting-flags.js';

/** The summary lines of CONTRACT §15.7 (stdout), plus the write counters the database reported. */
export function formatWikiSyncReport(report: WikiSyncReport): string {
  const byType = WIKI_RELATIONSHIP_TYPES.map((t) => `${t} ${report.relationships[t]}`).join(', ');
  const total = Object.values(report.relationships).reduce((a, b) => a + b, 0);
  const labels = Object.entries(report.nodes)
    .map(([label, n]) => `${label} ${n}`)
    .join(', ');
  const c = report.counters;
  return [
    ...(report.dryRun ? ['dry run: counts are what a run would do; nothing was written'] : []),
    `pages: ${report.pages}`,
    `nodes merged: ${report.nodesMerged}`,
    `nodes by label: ${labels}`,
    `nodes written: ${report.nodesWritten}`,
    `nodes deleted: ${report.nodesDeleted}`,
    `papers unlinked: ${report.papersCleared}`,
    `relationships: ${total} by type ${byType}`,
    `relationships created: ${report.relationshipsCreated}`,
    `relationships deleted: ${report.relationshipsDeleted}`,
    `skipped pages: ${report.skippedPages}`,
    `graph writes: nodes created ${c.nodesCreated}, nodes deleted ${c.nodesDeleted}, relationships created ${c.relationshipsCreated}, relationships deleted ${c.relationshipsDeleted}, properties set ${c.propertiesSet}`,
    `duration: ${(report.durationMs / 1000).toFixed(2)}s`,
  ]
    .join('\n')
    .concat('\n');
}

/** `pksd wiki sync --full --from-repo [--dry-run]` (CONTRACT §15.7). */
export function wikiCommand(io: CommandIO): Command {
  const cmd = new Command('wiki').description('wiki maintenance');
  settingSubcommand(cmd, 'sync')
    .description('rebuild the wiki part of the graph from the wiki checkout')
    .option('--full', 'full rebuild (the only mode; accepted for clarity)')
    .option('--from-repo', 'read the wiki checkout (required)')
    .option('--dry-run', 'report what would change; write nothing')
    .action(async (opts: { full?: boolean; fromRepo?: boolean; dryRun?: boolean }, sub: Command) => {
      if (!opts.fromRepo) {
        io.stderr('pksd: wiki sync requires --from-repo (usage: pksd wiki sync --full --from-repo [--dry-run])\n');
        throw new ExitError(2);
      }
      const config = loadConfigOrExit(io, sub);
      if (config.graph === null) {
        io.stderr('pksd: wiki sync requires the graph (GRAPHDB_URI is empty)\n');
        throw new ExitError(2);
      }
      if (!(await directoryExists(config.wikiDir))) {
        io.stderr(`pksd: wiki directory ${config.wikiDir} does not exist\n`);
        throw new ExitError(2);
      }
      let snapshot: WikiSnapshot;
      try {
        // Off the main thread with resource limits, like the server: wiki content must not be able to crash us.
        snapshot = await loadWikiIsolated(config.wikiDir);
      } catch (err) {
        io.stderr(`pksd: cannot read the wiki directory ${config.wikiDir}: ${(err as Error).message}\n`);
        throw new ExitError(1);
      }
      io.stderr(`wiki: ${snapshot.pages.length} pages from ${config.wikiDir} (${snapshot.excluded.length} invalid)\n`);
      const graph = createGraphClient(config.graph);
      try {
        if (!opts.dryRun) await ensureGraphSchema(graph);
        const report = await syncWikiToGraph(graph, snapshot, { dryRun: opts.dryRun === true });
        for (const w of report.warnings) io.stderr(`warning: page ${w.page_id} skipped: ${w.reason}\n`);
        io.stdout(formatWikiSyncReport(report));
      } catch (err) {
        exitWith(io, err, 'wiki sync failed');
      } finally {
        await graph.close().catch(() => undefined);
      }
    });
  return cmd;
}
