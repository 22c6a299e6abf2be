/** The options shared by `pks ingest <id>` and `pks ingest continue <task_id>` (CONTRACT §10.1, §16.3). */
import type { Command } from 'commander';
import { noCacheOption, quietProgressOption, requestTimeoutOption } from '../common-options.js';
import { parseChoice, parsePositiveNumber, requestTimeoutMs, csv } from '../options.js';

export const STAGES = ['fetch', 'parse'] as const;

export function addIngestOptions(command: Command): Command {
  return command
    .option('--parser <name>', 'parser (only pdfparser)')
    .option('--stop-after <stage>', 'run the stages up to and including fetch or parse')
    .option('--stages <csv>', 'explicit stages (fetch,parse); wins over --stop-after')
    .option('--force-fetch', 're-download even if a PDF is stored')
    .option('--force-parse', 're-convert even if markdown is stored')
    .addOption(noCacheOption())
    .option('--no-poll', 'print the 202 answer and exit 0 without waiting')
    .option('--poll-interval <seconds>', 'seconds between status polls', '1.0')
    .option('--timeout <seconds>', 'total seconds to wait for the task', '600')
    .addOption(requestTimeoutOption())
    .addOption(quietProgressOption());
}

export interface IngestRunOptions {
  /** Request fields given on the command line (CONTRACT §10.1 names). */
  readonly fields: Record<string, unknown>;
  readonly poll: boolean;
  readonly pollIntervalS: number;
  readonly timeoutS: number;
  readonly requestTimeoutMs: number;
  readonly quietProgress: boolean;
}

export function parseIngestOptions(o: Record<string, unknown>): IngestRunOptions {
  const fields: Record<string, unknown> = {};
  if (o['parser'] !== undefined) fields['parser'] = o['parser'];
  if (o['stopAfter'] !== undefined)
    fields['stop_after'] = parseChoice('--stop-after', o['stopAfter'] as string, STAGES);
  if (o['stages'] !== undefined) {
    fields['stages'] = csv(o['stages'] as string).map((s) => parseChoice('--stages', s, STAGES));
  }
  if (o['forceFetch'] === true) fields['force_fetch'] = true;
  if (o['forceParse'] === true) fields['force_parse'] = true;
  if (o['cache'] === false) fields['no_cache'] = true;
  return {
    fields,
    poll: o['poll'] !== false,
    pollIntervalS: parsePositiveNumber('--poll-interval', o['pollInterval'] as string),
    timeoutS: parsePositiveNumber('--timeout', o['timeout'] as string),
    requestTimeoutMs: requestTimeoutMs(o['requestTimeout']),
    quietProgress: o['quietProgress'] === true,
  };
}
