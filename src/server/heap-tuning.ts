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
