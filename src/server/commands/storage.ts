import path from 'node:path';
import { Command } from 'commander';
import pino from 'pino';
import type { Config } from '../config/types.js';
import { LocalObjectStore } from '../storage/local-store.js';
import type { ObjectStore } from '../storage/object-store.js';
import { formatAge, parseDuration, parseKind, prune } from '../storage/prune.js';
import { createS3Clients } from '../storage/s3-client.js';
import { S3ObjectStore } from '../storage/s3-store.js';
import { exitWith } from './exit-codes.js';
import { ExitError, printJsonLines, type CommandIO } from './io.js';
import { formatTable } from './pat.js';
import { loadConfigOrExit } from './serve.js';
import { settingSubcommand } from './setting-flags.js';

/** Opens the configured object store for a command (S3 router or the local tree); the caller closes it. */
export function openCommandStore(config: Config): { store: ObjectStore; close(): void } {
  if (config.objectStore) {
    const clients = createS3Clients(config.objectStore, config.edgeName);
    const store = new S3ObjectStore(clients, pino({ level: 'silent' }), {
      tempDir: path.join(config.dataDir, 'index-tmp'),
    });
    return { store, close: () => clients.destroy() };
  }
  return { store: new LocalObjectStore(config.rawDir), close: () => undefined };
}

function usage(io: CommandIO, message: string): never {
  io.stderr(`pksd: ${message}\n`);
  throw new ExitError(2);
}

interface PruneFlags {
  keepLast?: string;
  kind?: string;
  prefix?: string;
  olderThan?: string;
  dryRun?: boolean;
  json?: boolean;
}

/** `pksd storage prune` (CONTRACT §15.5). */
export function storageCommand(io: CommandIO): Command {
  const cmd = new Command('storage').description('object storage maintenance');
  settingSubcommand(cmd, 'prune')
    .description('delete old noncurrent object versions, keeping the newest N per key')
    .option('--keep-last <N>', 'noncurrent versions to keep per key (0 deletes all eligible)')
    .option('--kind <kind>', 'pdf | markdown (md) | images', 'pdf')
    .option('--prefix <P>', 'bucket-relative key prefix', '')
    .option('--older-than <D>', 'only versions older than this (30s, 15m, 2h, 1d, 2w, 1y; fractions allowed)')
    .option('--dry-run', 'list what would be deleted')
    .option('--json', 'JSON lines instead of a table')
    .action(async (opts: PruneFlags, sub: Command) => {
      if (opts.keepLast === undefined) usage(io, 'storage prune: --keep-last N is required');
      if (!/^\d+$/.test(opts.keepLast))
        usage(io, `storage prune: --keep-last must be a whole number, got '${opts.keepLast}'`);
      const kind = parseKind(opts.kind ?? 'pdf');
      if (kind === null) usage(io, `storage prune: --kind must be pdf, markdown (md) or images, got '${opts.kind}'`);
      const olderThanMs = opts.olderThan === undefined ? null : parseDuration(opts.olderThan);
      if (olderThanMs === null && opts.olderThan !== undefined) {
        usage(
          io,
          `storage prune: --older-than must be a duration like 30s, 15m, 2h, 1d, 2w, 1y, got '${opts.olderThan}'`,
        );
      }
      const config = loadConfigOrExit(io, sub);
      const { store, close } = openCommandStore(config);
      try {
        const items = await prune(store, {
          kind,
          prefix: opts.prefix ?? '',
          keepLast: Number(opts.keepLast),
          olderThanMs,
          dryRun: opts.dryRun === true,
          now: new Date(),
        });
        const actionOf = (i: (typeof items)[number]) => (i.deleteMarker ? `${i.action}_MARKER` : i.action);
        if (opts.json) {
          printJsonLines(
            io,
            items.map((i) => ({
              key: i.key,
              version_id: i.versionId,
              size: i.size,
              age_seconds: i.ageSeconds,
              delete_marker: i.deleteMarker,
              action: actionOf(i),
            })),
          );
        } else {
          io.stdout(
            formatTable(
              ['KEY', 'VERSION_ID', 'SIZE', 'AGE', 'ACTION'],
              items.map((i) => [i.key, i.versionId, String(i.size), formatAge(i.ageSeconds), actionOf(i)]),
            ),
          );
        }
        const failed = items.filter((i) => i.action === 'FAILED');
        for (const f of failed)
          io.stderr(`pksd: delete ${f.key} version ${f.versionId} failed: ${f.error ?? 'unknown error'}\n`);
        if (failed.length > 0) throw new ExitError(1);
      } catch (err) {
        exitWith(io, err, 'storage prune failed');
      } finally {
        close();
      }
    });
  return cmd;
}
