import type { Command } from 'commander';
import { InvalidInputError } from '../../../../shared/domain-errors.js';
import { noCacheOption, quietProgressOption, requestTimeoutOption } from '../../common-options.js';
import { defineAction, type CommandHost } from '../../host.js';
import { parseIntOption, requestTimeoutMs } from '../../options.js';
import type { ContribParserInput } from './contributor.js';

export const MAX_BATCH = 50;

export function registerContribParser(parent: Command, host: CommandHost): void {
  parent
    .command('parser')
    .description('parse queued PDFs with your MinerU tokens and upload the results (one paper, or the queue)')
    .argument('[id]', 'one paper (preprint id with version); without it: the needs-parser queue')
    .option('--batch-size <n>', `papers per queue pass (1..${MAX_BATCH})`, String(MAX_BATCH))
    .option('--continue-on-error', 'keep going after a failed paper (always so in queue mode)')
    .option('--ttl-seconds <n>', 'claim lease in seconds (server clamps to 60..7200)')
    .addOption(noCacheOption())
    .option('--overwrite', 'replace stored markdown/images with different content')
    .option('--no-push', 'do not upload: release the claim and print the zip path')
    .option('--watch', 'loop over the queue until interrupted')
    .option('--watch-interval <seconds>', 'sleep between watch passes (min 1)', '300')
    .addOption(requestTimeoutOption())
    .addOption(quietProgressOption())
    .addHelpText(
      'after',
      '\nNeeds parser_api_tokens in config.yaml (pks config set parser_api_tokens).\n' +
        'Exit: 0 done, 1 failures, 75 parser daily quota exhausted, 130 interrupted.\n',
    )
    .action(defineAction(host, validate, async (ctx, input) => (await import('./run.js')).contribParser(ctx, input)));
}

function validate([id]: string[], o: Record<string, unknown>): ContribParserInput {
  const batch = parseIntOption('--batch-size', o['batchSize'] as string);
  const ttl = o['ttlSeconds'] === undefined ? undefined : parseIntOption('--ttl-seconds', o['ttlSeconds'] as string);
  const watchInterval = parseIntOption('--watch-interval', o['watchInterval'] as string);
  if (o['watch'] === true && id !== undefined)
    throw new InvalidInputError('--watch processes the queue; drop the <id>');
  return {
    id,
    batchSize: Math.min(MAX_BATCH, Math.max(1, batch)),
    ttlSeconds: ttl,
    noCache: o['cache'] === false,
    overwrite: o['overwrite'] === true,
    push: o['push'] !== false,
    watch: o['watch'] === true,
    watchIntervalS: Math.max(1, watchInterval),
    timeoutMs: requestTimeoutMs(o['requestTimeout']),
    quietProgress: o['quietProgress'] === true,
  };
}
