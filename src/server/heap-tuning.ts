/**
 * V8 heap sizing for the long-running server (`pksd serve`), set once at start-up, before the heap grows.
 *
 * Under sustained mixed load V8's defaults let the old generation fill with promoted garbage up to its initial
 * limit (about 190 MiB here) before the first full collection, then up to ~2.5× the live size between later ones;
 * the pages it frees are not given back to the system, so the process's RSS settles at that high-water mark (the
 * soak benchmark: old space 65 → 187 MiB of which ~60 live, RSS +45–55% after the first 10 s). A low initial limit
 * and a 30% growing factor keep the old generation near its live size (the same soak: old space flat at 60–80 MiB,
 * no loss of throughput or latency). Both are V8 flags that take effect when set at run time; Node has no other
 * way to set them for a process started as `pksd`.
 */
import v8 from 'node:v8';

const SERVER_HEAP_FLAGS = ['--initial-old-space-size=64', '--heap-growing-percent=30'] as const;

/** The flag's name in either spelling V8 accepts (`--heap-growing-percent`, `--heap_growing_percent`). */
const flagName = (arg: string): string => arg.split('=')[0]!.replace(/_/g, '-');

/** Sets each flag unless the process was started with its own value for it (an operator's choice wins). */
export function tuneHeapForServer(execArgv: readonly string[] = process.execArgv): void {
  const given = new Set(execArgv.map(flagName));
  for (const flag of SERVER_HEAP_FLAGS) if (!given.has(flagName(flag))) v8.setFlagsFromString(flag);
}

/**
 * V8 grows the young generation (to 2 × 64 MiB here) when most of what it allocates survives its collections, and
 * keeps those pages resident afterwards. A wiki load is exactly that case: what it allocates is mostly the snapshot
 * it keeps, so a 22.6 MiB wiki left the process 170–180 MiB larger, 60 MiB of it an emptied young generation.
 * Holding the growth factor at 1 during a load keeps the young generation at its size before the load (the snapshot is
 * promoted sooner, which costs no more CPU in the bench); V8 reads the factor each time it would grow the space, so it
 * takes effect at run time (`--max-semi-space-size` does not). Outside loads, V8's own factor applies again.
 */
const YOUNG_GROWTH_FLAG = '--semi-space-growth-factor';
/** V8's default growth factor, restored after the last overlapping load (a test checks it against `--v8-options`). */
export const V8_YOUNG_GROWTH_FACTOR = 2;
let youngGenerationHolds = 0;

/** Runs `work` with the young generation held at its current size, unless the process was started with its own factor. */
export async function withYoungGenerationHeld<T>(
  work: () => Promise<T>,
  execArgv: readonly string[] = process.execArgv,
): Promise<T> {
  if (execArgv.some((arg) => flagName(arg) === YOUNG_GROWTH_FLAG)) return work();
  if (youngGenerationHolds++ === 0) v8.setFlagsFromString(`${YOUNG_GROWTH_FLAG}=1`);
  try {
    return await work();
  } finally {
    if (--youngGenerationHolds === 0) v8.setFlagsFromString(`${YOUNG_GROWTH_FLAG}=${V8_YOUNG_GROWTH_FACTOR}`);
  }
}
