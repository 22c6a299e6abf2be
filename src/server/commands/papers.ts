import { Command } from 'commander';
import pino from 'pino';
import { createGraphClient } from '../graph/driver.js';
import { syncFromObjects } from '../papers/sync.js';
import { exitWith } from './exit-codes.js';
import { ExitError, type CommandIO } from './io.js';
import { loadConfigOrExit } from './serve.js';
import { settingSubcommand } from './setting-flags.js';
import { openCommandStore } from './storage.js';

interface SyncFlags {
  full?: boolean;
  fromObjects?: boolean;
  dryRun?: boolean;
  graph?: boolean;
}

/** `pksd papers sync --full --from-objects [--dry-run] [--no-graph]` (CONTRACT §15.6). */
export function papersCommand(io: CommandIO): Command {
  const cmd = new Command('papers').description('paper assets: index and graph maintenance');
  settingSubcommand(cmd, 'sync')
    .description('rebuild the metadata index (and the graph asset properties) from the object listings')
    .option('--full', 'full rebuild (the only mode)')
    .option('--from-objects', 'rebuild from the bucket listings (required)')
    .option('--dry-run', 'report only; write nothing')
    .option('--no-graph', 'skip the graph step')
    .action(async (opts: SyncFlags, sub: Command) => {
      if (!opts.fromObjects) {
        io.stderr('pksd: papers sync requires --from-objects (rebuild from the bucket listings)\n');
        throw new ExitError(2);
      }
      const config = loadConfigOrExit(io, sub);
      const started = Date.now();
      const { store, close } = openCommandStore(config);
      const graph = opts.graph !== false && config.graph ? createGraphClient(config.graph) : null;
      try {
        const report = await syncFromObjects(store, pino({ level: 'silent' }), {
          dryRun: opts.dryRun === true,
          graph,
          progress: (line) => io.stderr(`${line}\n`),
        });
        const lines = [
          `pdf objects: ${report.pdfObjects}`,
          `markdown objects: ${report.markdownObjects}`,
          `image objects: ${report.imageObjects}`,
          `papers: ${report.papers}`,
          `skipped keys: ${report.skippedKeys.length}`,
          `invariant violations: ${report.violations.length}`,
          ...report.violations.map((v) => `  ${v}`),
          `graph papers touched: ${report.graphPapersTouched}`,
          `duration: ${((Date.now() - started) / 1000).toFixed(1)}s`,
        ];
        for (const key of report.skippedKeys) io.stderr(`skipped: ${key}\n`);
        io.stdout(lines.join('\n') + '\n');
      } catch (err) {
        exitWith(io, err, 'papers sync failed');
      } finally {
        close();
        await graph?.close().catch(() => undefined);
      }
    });
  return cmd;
}
