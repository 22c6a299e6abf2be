import path from 'node:path';
import { Command } from 'commander';
import pino from 'pino';
import type { Config } from '../config/types.js';
import { acquireFileLock } from '../db/lock.js';
import { ensureGraphSchema } from '../graph/constraints.js';
import { createGraphClient } from '../graph/driver.js';
import { StoreIndexPersistence } from '../papers/index-parquet.js';
import { LocalSnapshotBucket, S3SnapshotBucket, type SnapshotBucket } from '../scholarly/bucket.js';
import { filterSnapshot, type FilterReport } from '../scholarly/filter.js';
import { loadSnapshot, type LoadReport } from '../scholarly/load.js';
import { DEFAULT_SOURCE, openSource } from '../scholarly/source.js';
import { createS3Clients } from '../storage/s3-client.js';
import { exitWith } from './exit-codes.js';
import { ExitError, type CommandIO } from './io.js';
import { loadConfigOrExit } from './serve.js';
import { settingSubcommand } from './setting-flags.js';
import { openCommandStore } from './storage.js';

/** The lock file (in `SVC_DATA_DIR`) of a running `scholarly bootstrap`. */
const BOOTSTRAP_LOCK = 'scholarly-bootstrap.lock';

interface BootstrapFlags {
  source?: string | true;
  entities?: string;
  seedPattern: string;
  references: boolean;
  citers: boolean;
  limitParts?: string;
  graph: boolean;
  dryRun?: boolean;
}

export const DEFAULT_SEED_PATTERN = String.raw`\bquantum\b`;

function usage(io: CommandIO, message: string): never {
  io.stderr(`pksd: ${message}\n`);
  throw new ExitError(2);
}

/** The snapshot bucket: `SVC_OBJ_BUCKET_SCHOLARLY_SNAPSHOT` on the object store, else `<raw>/scholarly-snapshot/`. */
function openBucket(io: CommandIO, config: Config): { bucket: SnapshotBucket; close(): void } {
  if (config.objectStore === null) {
    return { bucket: new LocalSnapshotBucket(path.join(config.rawDir, 'scholarly-snapshot')), close: () => undefined };
  }
  if (config.scholarlySnapshotBucket === null) {
    usage(io, 'scholarly bootstrap needs SVC_OBJ_BUCKET_SCHOLARLY_SNAPSHOT with the object store settings');
  }
  const clients = createS3Clients(config.objectStore, config.edgeName);
  return {
    bucket: new S3SnapshotBucket(clients.internal, config.scholarlySnapshotBucket),
    close: () => clients.destroy(),
  };
}

function parseFlags(io: CommandIO, opts: BootstrapFlags) {
  const pattern = opts.seedPattern;
  try {
    new RegExp(pattern, 'i');
  } catch (err) {
    usage(io, `--seed-pattern is not a valid regular expression: ${(err as Error).message}`);
  }
  let limitParts: number | null = null;
  if (opts.limitParts !== undefined) {
    if (!/^\d+$/.test(opts.limitParts) || Number(opts.limitParts) < 1)
      usage(io, '--limit-parts must be an integer ≥ 1');
    limitParts = Number(opts.limitParts);
  }
  const entities = (opts.entities ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  for (const entity of entities) {
    if (!/^[a-z][a-z_-]*$/.test(entity)) usage(io, `--entities: not an entity name: ${entity}`);
    if (entity === 'works') usage(io, '--entities: works are filtered, not copied');
  }
  if (entities.length > 0 && opts.source === undefined) usage(io, '--entities needs --source');
  const source = opts.source === undefined ? null : opts.source === true ? DEFAULT_SOURCE : opts.source;
  return { pattern, limitParts, entities, source };
}

function summary(filter: FilterReport | null, load: LoadReport | null, seconds: number): string {
  return [
    `parts read: ${filter?.partsRead ?? 0}`,
    `works read: ${filter?.worksRead ?? 0}`,
    `seeds: ${filter?.seeds ?? 0}`,
    `works kept: ${filter?.worksKept ?? 0}`,
    `parts written: ${filter?.partsWritten ?? 0}`,
    `parts already present: ${filter?.partsPresent ?? 0}`,
    `bytes written: ${filter?.bytesWritten ?? 0}`,
    `entity parts copied: ${filter?.entityPartsCopied ?? 0}`,
    `papers merged: ${load?.papersMerged ?? 0}`,
    `citations merged: ${load?.citationsMerged ?? 0}`,
    `index rows updated: ${load?.indexRowsUpdated ?? 0}`,
    `duration: ${seconds.toFixed(1)}s`,
  ]
    .join('\n')
    .concat('\n');
}

/** `pksd scholarly bootstrap` (CONTRACT §15.8). */
export function scholarlyCommand(io: CommandIO): Command {
  const cmd = new Command('scholarly').description('scholarly metadata: the OpenAlex snapshot bucket and the graph');
  settingSubcommand(cmd, 'bootstrap')
    .description('filter the OpenAlex works snapshot into the snapshot bucket, then load it into the graph')
    .option('--source [url|dir]', `filter from this snapshot root (default ${DEFAULT_SOURCE})`)
    .option('--entities <list>', 'comma-separated entities whose parts are copied unmodified')
    .option('--seed-pattern <re>', 'topic/concept pattern of seed works (case-insensitive)', DEFAULT_SEED_PATTERN)
    .option('--no-references', 'do not keep the works that seeds reference')
    .option('--no-citers', 'do not keep the works that cite seeds')
    .option('--limit-parts <n>', 'read only the first N parts of each manifest')
    .option('--no-graph', 'skip the load into the graph')
    .option('--dry-run', 'read and count; write nothing')
    .action(async (opts: BootstrapFlags, sub: Command) => {
      const flags = parseFlags(io, opts);
      const config = loadConfigOrExit(io, sub);
      if (opts.graph && config.graph === null) {
        usage(io, 'scholarly bootstrap loads into the graph (GRAPHDB_URI is empty); use --no-graph to only filter');
      }
      const started = Date.now();
      const logger = pino({ level: 'silent' });
      const progress = (line: string) => io.stderr(`${line}\n`);
      // One bootstrap at a time per data directory: the load creates CITES after checking that none exists, and
      // two loads running at once could both create a pair (decisions.md).
      let release: () => void;
      try {
        release = acquireFileLock(config.dataDir, BOOTSTRAP_LOCK, 'another scholarly bootstrap is running');
      } catch (err) {
        exitWith(io, err, 'scholarly bootstrap');
      }
      const { bucket, close } = openBucket(io, config);
      const { store, close: closeStore } = openCommandStore(config);
      const graph = opts.graph && config.graph ? createGraphClient(config.graph) : null;
      try {
        let filter: FilterReport | null = null;
        if (flags.source !== null) {
          const index = await new StoreIndexPersistence(store, logger).load();
          filter = await filterSnapshot({
            source: openSource(flags.source),
            bucket,
            seedPattern: flags.pattern,
            inIndex: (id) => index !== null && index.versionsOf(id).length > 0,
            references: opts.references,
            citers: opts.citers,
            limitParts: flags.limitParts,
            entities: flags.entities,
            dryRun: opts.dryRun === true,
            tempDir: path.join(config.dataDir, 'tmp', 'scholarly'),
            progress,
          });
        }
        let load: LoadReport | null = null;
        if (graph !== null) {
          if (!opts.dryRun) await ensureGraphSchema(graph);
          load = await loadSnapshot({ bucket, graph, store, logger, progress, dryRun: opts.dryRun === true });
        }
        io.stdout(summary(filter, load, (Date.now() - started) / 1000));
      } catch (err) {
        exitWith(io, err, 'scholarly bootstrap failed');
      } finally {
        close();
        closeStore();
        await graph?.close().catch(() => undefined);
        release();
      }
    });
  return cmd;
}
