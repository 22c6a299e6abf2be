/** `contrib parser --watch`: queue passes in a loop with sleeps; the first signal ends it after the pass (§16.5). */
import { EXIT } from '../../../errors.js';
import { nextLocalDayAt0001 } from '../../../../shared/local-day.js';
import type { Contributor } from './contributor.js';
import { runQueuePass } from './queue.js';

export interface WatchState {
  /** Set by the first SIGINT/SIGTERM: finish the current pass, then exit 0. */
  stopRequested: boolean;
}

const MIN_DAILY_SLEEP_MS = 60_000;

export async function runWatch(c: Contributor, state: WatchState): Promise<number> {
  const { io } = c.ctx;
  let announcedEmpty = false;
  while (!state.stopRequested) {
    const pass = await runQueuePass(c, { quietEmpty: true });
    if (state.stopRequested) break;
    if (pass.dailyLimit) {
      const now = c.ctx.now().getTime();
      const ms = Math.max(MIN_DAILY_SLEEP_MS, nextLocalDayAt0001(now) - now);
      io.stderr(`[daily-limit] parser quota exhausted; sleeping until ${localTime(new Date(now + ms))} local.\n`);
      await sleepInSlices(c, state, ms);
    } else if (pass.empty) {
      if (!announcedEmpty) io.stderr('Queue empty. Will keep polling.\n');
      announcedEmpty = true;
      await sleepInSlices(c, state, c.input.watchIntervalS * 1000);
    } else {
      announcedEmpty = false;
      io.stderr(
        `Batch done: ${pass.processed} processed, ${pass.failures} failures. Sleeping ${c.input.watchIntervalS}s before next poll.\n`,
      );
      await sleepInSlices(c, state, c.input.watchIntervalS * 1000);
    }
  }
  io.stderr('Watch loop exiting cleanly.\n');
  return EXIT.ok;
}

/** Sleeps in 1 s slices so a stop request or an interrupt is noticed promptly. */
async function sleepInSlices(c: Contributor, state: WatchState, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!state.stopRequested) {
    const left = end - Date.now();
    if (left <= 0) return;
    await c.ctx.sleep(Math.min(1000, left), c.signal);
  }
}

/** `2026-05-29 00:01` in local time. */
function localTime(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}
