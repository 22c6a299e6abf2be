/**
 * Serialises an `IndexTable` to Parquet without holding the event loop, as of a point-in-time snapshot. Tables up
 * to `IN_PROCESS_MAX_ROWS` rows are encoded in place from the table's own columns (rows changed meanwhile from the
 * snapshot's saved copies), a few milliseconds at a time, into buffers the `TableEncoder` keeps between encodes;
 * larger ones are cut into chunks of `CHUNK_ROWS` rows, posted one per event-loop turn to a worker thread (typed
 * arrays transferred), which sorts and encodes on another core.
 *
 * The worker runs the compiled `encode-worker.js` next to this module; when running from the TypeScript sources
 * (tests, benchmarks) that is the one in `dist/` (`npm run build`). Without either, encoding happens in place.
 */
import { Worker } from 'node:worker_threads';
import { IndexEncoder, encodeColumns } from './parquet-write.js';
import { chunkBuffers, type TableSnapshot } from './snapshot.js';
import type { IndexTable } from './table.js';
import { builtWorkerFile } from '../../worker-file.js';

export const CHUNK_ROWS = 2_048;
/**
 * Tables up to this many rows encode in place (~1.5 µs a row of main-thread time, in slices of `SLICE_MS`): no
 * thread is started per flush, and no buffer is left behind by one. Larger tables cost enough CPU to be worth
 * another core.
 */
export const IN_PROCESS_MAX_ROWS = 100_000;
/** The longest the in-place encoder holds the event loop before it lets other work run (one step may exceed it). */
const SLICE_MS = 4;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

const workerFile = (): URL | null => builtWorkerFile(import.meta.url, 'encode-worker.js');

/** Encodes the whole table in place (blocking, so nothing changes meanwhile); the bytes are the caller's. */
export function encodeTableSync(table: IndexTable): Uint8Array {
  const snapshot = table.snapshot();
  try {
    return encodeColumns(snapshot.view());
  } finally {
    snapshot.release();
  }
}

export interface EncodeOptions {
  /** Encode in place up to this many rows (default `IN_PROCESS_MAX_ROWS`). */
  readonly inProcessMaxRows?: number;
}

/**
 * Encodes tables as they are at the call (writes made meanwhile are not included), one at a time. Bytes encoded
 * in place are a view of this encoder's buffers: valid until its next `encode`.
 */
export class TableEncoder {
  private readonly encoder = new IndexEncoder();
  private busy = false;

  async encode(table: IndexTable, options: EncodeOptions = {}): Promise<Uint8Array> {
    if (this.busy) throw new Error('TableEncoder: one encode at a time');
    this.busy = true;
    const url = workerFile();
    const snapshot = table.snapshot();
    try {
      if (url !== null && snapshot.length > (options.inProcessMaxRows ?? IN_PROCESS_MAX_ROWS)) {
        return await encodeInWorker(url, snapshot);
      }
      return await runInSlices(this.encoder.steps(snapshot.view(), snapshot.changed));
    } finally {
      snapshot.release();
      this.busy = false;
    }
  }
}

/** Encodes the table as it is now into bytes of the caller's (a one-off `TableEncoder`). */
export function encodeTable(table: IndexTable, options: EncodeOptions = {}): Promise<Uint8Array> {
  return new TableEncoder().encode(table, options);
}

/** Runs the steps, letting the event loop run whenever `SLICE_MS` have passed. */
async function runInSlices<T>(steps: Generator<void, T>): Promise<T> {
  let sliceStart = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (performance.now() - sliceStart >= SLICE_MS) {
      await nextTurn();
      sliceStart = performance.now();
    }
  }
}

async function encodeInWorker(url: URL, snapshot: TableSnapshot): Promise<Uint8Array> {
  const worker = new Worker(url);
  try {
    const result = new Promise<Uint8Array>((resolve, reject) => {
      worker.once('message', (msg: { bytes?: Uint8Array; error?: string }) =>
        msg.bytes ? resolve(msg.bytes) : reject(new Error(`index encoder: ${msg.error ?? 'no answer'}`)),
      );
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`index encoder exited (${code})`)));
    });
    result.catch(() => undefined); // observed below; a failure while still posting must not go unhandled
    for (let start = 0; start < snapshot.length; start += CHUNK_ROWS) {
      const chunk = snapshot.chunk(start, Math.min(start + CHUNK_ROWS, snapshot.length));
      worker.postMessage({ chunk }, chunkBuffers(chunk));
      await nextTurn();
    }
    snapshot.release();
    worker.postMessage({ done: true });
    return await result;
  } finally {
    void worker.terminate();
  }
}
