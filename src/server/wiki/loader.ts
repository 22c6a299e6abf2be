/**
 * Loads the wiki checkout with its reading and parsing in a worker thread under resource limits, so content from the
 * wiki remote cannot take the server down: an exception, runaway memory or a hang ends the worker, the load rejects,
 * and the service keeps serving its last snapshot. The snapshot (search index included) is then built here from the
 * worker's scan, which is plain data.
 *
 * The worker runs the compiled `load-worker.js` next to this module; when running from the TypeScript sources
 * (tests) that is the one in `dist/` (`npm run build`). Without either, or without the directory, the scan runs in
 * this thread.
 */
import { Worker } from 'node:worker_threads';
import { buildSnapshotAsync, scanWiki, type WikiScan, type WikiSnapshot } from '../../wiki/index.js';
import { withYoungGenerationHeld } from '../heap-tuning.js';
import { builtWorkerFile } from '../worker-file.js';
import { directoryExists } from './checkout.js';

export interface WikiLoaderLimits {
  /** Heap of the worker (old generation), MiB. */
  readonly maxOldGenerationSizeMb: number;
  /** Young generation of the worker, MiB. */
  readonly maxYoungGenerationSizeMb: number;
  /** Stack of the worker's main thread, MiB. */
  readonly stackSizeMb: number;
  /** A load still running after this long is stopped. */
  readonly timeoutMs: number;
}

/** Room for a wiki of some 100,000 pages; far beyond what parsing one 5 MiB page (the file limit) can need. */
export const DEFAULT_WIKI_LOADER_LIMITS: WikiLoaderLimits = {
  maxOldGenerationSizeMb: 2048,
  maxYoungGenerationSizeMb: 64,
  stackSizeMb: 4,
  timeoutMs: 10 * 60_000,
};

/** Why an isolated load produced no snapshot. */
export class WikiLoadError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'WikiLoadError';
  }
}

/** The compiled worker entry, or `null` when only the TypeScript sources exist. */
export const loaderWorkerFile = (): URL | null => builtWorkerFile(import.meta.url, 'load-worker.js');

/** `loadWiki(root)` with the scan in a resource-limited worker thread; rejects with `WikiLoadError`. */
export async function loadWikiIsolated(root: string, limits: Partial<WikiLoaderLimits> = {}): Promise<WikiSnapshot> {
  // No directory, no content to isolate: a worker (~6 MiB, ~80 ms at start) would only find it missing.
  const url = (await directoryExists(root)) ? loaderWorkerFile() : null;
  return withYoungGenerationHeld(async () => {
    const scan =
      url === null ? await scanWiki(root) : await scanInWorker(url, root, { ...DEFAULT_WIKI_LOADER_LIMITS, ...limits });
    if (url === null) return buildSnapshotAsync(scan);
    // Deserialising the worker's message holds this thread for ~0.2 s on a 10,000-page wiki; let waiting requests
    // run before each of the next stretches (shareFileStrings, then buildSnapshotAsync's own slices).
    await yieldToEventLoop();
    shareFileStrings(scan);
    await yieldToEventLoop();
    return buildSnapshotAsync(scan);
  });
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * A page's body and path are the strings of its file (page.ts builds both from the same values), but structured
 * cloning copies strings per occurrence, so the worker posts them once (blank on the page): point the page at its
 * file's strings again (one copy per body; correct with an older worker that posts them twice, too).
 */
function shareFileStrings(scan: WikiScan): WikiScan {
  for (const file of scan.files) {
    if (file.page === null) continue;
    file.page.body = file.body;
    file.page.path = file.path;
  }
  return scan;
}

function scanInWorker(url: URL, root: string, limits: WikiLoaderLimits): Promise<WikiScan> {
  const worker = new Worker(url, {
    workerData: { root },
    // The worker needs none of this process's flags (some, like --input-type, are refused in a worker).
    execArgv: [],
    resourceLimits: {
      maxOldGenerationSizeMb: limits.maxOldGenerationSizeMb,
      maxYoungGenerationSizeMb: limits.maxYoungGenerationSizeMb,
      stackSizeMb: limits.stackSizeMb,
    },
  });
  return new Promise<WikiScan>((resolve, reject) => {
    let settled = false;
    const settle = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
      void worker.terminate();
    };
    const timer = setTimeout(
      () => settle(() => reject(new WikiLoadError(`wiki load did not finish within ${limits.timeoutMs / 1000} s`))),
      limits.timeoutMs,
    );
    worker.once('message', (scan: WikiScan) => settle(() => resolve(scan)));
    worker.once('error', (err: Error & { code?: string }) =>
      settle(() =>
        reject(
          err.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? new WikiLoadError(`wiki load ran out of memory (limit ${limits.maxOldGenerationSizeMb} MiB)`, {
                cause: err,
              })
            : new WikiLoadError(`wiki load failed: ${err.message}`, { cause: err }),
        ),
      ),
    );
    worker.once('exit', (code) =>
      settle(() => reject(new WikiLoadError(`wiki loader stopped (exit code ${code}) without a result`))),
    );
  });
}
