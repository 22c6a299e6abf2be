/**
 * A young-generation collection when upload bytes have left enough dead buffers behind. Each socket read of a
 * request body is a fresh 64 KiB buffer (each read of a staged file a fresh 1 MiB one), dead once passed on; V8 frees
 * such buffers at a scavenge, which only JavaScript allocation triggers (little of it while bytes stream through), or
 * at a full collection under external-memory pressure (~64 MiB of them). A 100 MiB upload thus grew the server's RSS
 * by 40–90 MiB and cost about five full collections. A scavenge runs on the main thread, for every request, and costs
 * 0.4 ms with few live young objects but up to ~18 ms with many: one runs only once the memory outside the heap has
 * grown by 8 MiB since the last (another collection may have freed it meanwhile), and at most every 25 ms (issue 25,
 * docs/decisions.md).
 */
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Counted bytes between two looks at the memory outside the heap (a look costs ~2 µs). */
const LOOK_EVERY_BYTES = 1024 * 1024;
const GROWTH_BYTES = 8 * 1024 * 1024;
/** At most 40 collections a second: they bind only above 320 MiB/s of upload bytes. */
const MIN_INTERVAL_MS = 25;

export interface YoungGarbageDeps {
  /** Bytes held outside V8's heap (array buffers among them). */
  readonly externalMemory: () => number;
  /** Milliseconds, monotonic. */
  readonly now: () => number;
  readonly collect: () => void;
}

/** The policy over its inputs (tests drive it with their own); `received` below is the process's one. */
export function youngGarbage(deps: YoungGarbageDeps): (bytes: number) => void {
  let sinceLook = 0;
  /** The lowest external memory seen since the last collection (its sweep gives memory back after it). */
  let floor = deps.externalMemory();
  let collectedAt = -Infinity;
  return (bytes) => {
    sinceLook += bytes;
    if (sinceLook < LOOK_EVERY_BYTES) return;
    sinceLook = 0;
    const external = deps.externalMemory();
    floor = Math.min(floor, external);
    if (external - floor < GROWTH_BYTES) return;
    const now = deps.now();
    if (now - collectedAt < MIN_INTERVAL_MS) return;
    collectedAt = now;
    deps.collect();
    floor = deps.externalMemory();
  };
}

// V8's `gc()` without the command-line flag: a function of a context created while `--expose-gc` is set. Node
// warns that flags changed after start may behave unpredictably; verified on Node 24 (test/server/storage/
// young-garbage.test.ts): the main context never gets `gc`, and neither do vm contexts or workers created after the
// flag is withdrawn here.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as (options: { type: 'minor'; execution: 'sync' }) => void;
setFlagsFromString('--no-expose-gc');

/** Counts `bytes` received (every upload in the process together), collecting the young generation when due. */
export const received = youngGarbage({
  externalMemory: () => getHeapStatistics().external_memory,
  now: () => performance.now(),
  collect: () => gc({ type: 'minor', execution: 'sync' }),
});
