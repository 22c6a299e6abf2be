/** The run of `pks contrib parser` (loaded only when that command runs). */
import type { CliContext } from '../../../context.js';
import { CliExit, EXIT, InterruptedError } from '../../../errors.js';
import { TokenRing } from '../../../../parser-api/token-ring.js';
import { ParserApiClient } from '../../../../parser-api/client.js';
import { cliParserTransport } from '../../../parser/transport.js';
import { stderrProgress } from '../../../progress/line.js';
import { ClaimBook } from './claims.js';
import { DAILY_LIMIT_MESSAGE, type ContribParserInput, type Contributor } from './contributor.js';
import { runQueuePass } from './queue.js';
import { runSingle } from './single.js';
import { runWatch, type WatchState } from './watch.js';

export async function contribParser(ctx: CliContext, input: ContribParserInput): Promise<number> {
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
    parser: new ParserApiClient(config.parserApiBaseUrl, cliParserTransport(config.insecure)),
    parserOptions: {
      model_version: config.parserModelVersion,
      language: config.parserLanguage,
      enable_formula: config.parserEnableFormula,
      enable_table: config.parserEnableTable,
      is_ocr: config.parserIsOcr,
      no_cache: input.noCache,
    },
    ring: new TokenRing(config.parserApiTokens, { now: () => ctx.now().getTime() }),
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
