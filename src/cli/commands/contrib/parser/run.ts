/** The run of `pks contrib parser` (loaded only when that command runs). */
import type { CliContext } from '../../../context.js';
import { CliExit, EXIT, InterruptedError } from '../../../errors.js';
import { KeyRing } from '../../../parser/key-ring.js';
import { MineruClient } from '../../../parser/mineru.js';
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
