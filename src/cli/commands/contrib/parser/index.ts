import type { Command } from 'commander';
import { InvalidInputError } from '../../../../shared/domain-errors.js';
import type { CliContext } from '../../../context.js';
import { CliExit, EXIT, InterruptedError } from '../../../errors.js';
import { KeyRing } from '../../../parser/key-ring.js';
import { MineruClient } from '../../../parser/mineru.js';
import { stderrProgress } from '../../../progress/line.js';
import { defineAction, type CommandHost } from '../../host.js';
import { parseIntOption, requestTimeoutMs } from '../../options.js';
import { ClaimBook } from './claims.js';
import { DAILY_LIMIT_MESSAGE, type ContribParserInput, type Contributor } from './contributor.js';
import { runQueuePass } from './queue.js';
import { runSingle } from './single.js';
import { runWatch, type WatchState } from './watch.js';

export const MAX_BATCH = 50;

export function registerContribParser(parent: Command, host: CommandHost): void {
  parent
    .command('parser')
    .description('parse queued PDFs with your MinerU tokens and upload the results (one paper, or the queue)')
    .argument('[id]', 'one paper (preprint id with version); without it: the needs-parser queue')
    .option('--batch-size <n>', `papers per queue pass (1..${MAX_BATCH})`, String(MAX_BATCH))
    .option('--continue-on-error', 'keep going after a failed paper (always so in queue mode)')
    .option('--ttl-seconds <n>', 'claim lease in seconds (server clamps to 60..7200)')
    .option('--no-cache', 'ask the parser to bypass its cache')
    .option('--overwrite', 'replace stored markdown/images with different content')
    .option('--no-push', 'do not upload: release the claim and print the zip path')
    .option('--watch', 'loop over the queue until interrupted')
    .option('--watch-interval <seconds>', 'sleep between watch passes (min 1)', '300')
    .option('--request-timeout <seconds>', 'idle timeout per server request', '120')
    .option('--quiet-progress', 'no progress on stderr')
    .addHelpText(
      'after',
      '\nNeeds parser_api_tokens in config.yaml (pks config set parser_api_tokens).\n' +
        'Exit: 0 done, 1 failures, 75 parser daily quota exhausted, 130 interrupted.\n',
    )
    .action(defineAction(host, validate, contribParser));
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

async function contribParser(ctx: CliContext, input: ContribParserInput): Promise<number> {
  const config = ctx.config();
  if (config.parserApiTokens.length === 0) {
    throw new CliExit(EXIT.failure, 'parser_api_tokens must be set in your config (pks config set parser_api_tokens)');
  }
  ctx.io.stderr(`parser key ring: ${config.parserApiTokens.length} key(s) loaded\n`);
  const api = ctx.api({ timeoutMs: input.timeoutMs });
  const claims = new ClaimBook(api, ctx.io.stderr, input.ttlSeconds);
  const controller = new AbortController();
  const state: WatchState = { stopRequested: false };
  let signals = 0;
  let heldAtInterrupt = 0;
  const unsubscribe = ctx.onSignal((signal) => {
    signals++;
    if (input.watch && signals === 1) {
      state.stopRequested = true;
      ctx.io.stderr(`${signal}: finishing the current pass (send it again to stop now).\n`);
      return;
    }
    heldAtInterrupt = claims.held.size;
    controller.abort(new InterruptedError(`Interrupted (${signal}).`));
  });
  const c: Contributor = {
    ctx,
    input,
    config,
    api,
    claims,
    parser: new MineruClient({
      baseUrl: config.parserApiBaseUrl,
      modelVersion: config.parserModelVersion,
      language: config.parserLanguage,
      enableFormula: config.parserEnableFormula,
      enableTable: config.parserEnableTable,
      isOcr: config.parserIsOcr,
      noCache: input.noCache,
      insecure: config.insecure,
    }),
    ring: new KeyRing(config.parserApiTokens, ctx.now),
    progress: stderrProgress(ctx.io, input.quietProgress),
    signal: controller.signal,
    pollIntervalS: Math.max(1, config.parserPollInterval),
  };
  try {
    if (input.id !== undefined) return await runSingle(c, input.id);
    if (input.watch) return await runWatch(c, state);
    const pass = await runQueuePass(c);
    if (pass.dailyLimit) {
      ctx.io.stderr(`${DAILY_LIMIT_MESSAGE}\n`);
      return EXIT.quotaExhausted;
    }
    return pass.failures > 0 ? EXIT.failure : EXIT.ok;
  } catch (err) {
    if (controller.signal.aborted) {
      await claims.releaseAll();
      throw new InterruptedError(
        `${(controller.signal.reason as Error).message} Released ${heldAtInterrupt} claim(s).`,
      );
    }
    throw err;
  } finally {
    c.progress.end();
    unsubscribe();
    // Whatever ended the run, no claim of this run stays held.
    await claims.releaseAll();
  }
}
