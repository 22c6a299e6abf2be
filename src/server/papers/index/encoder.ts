/**
 * Serialises an `IndexTable` to a Parquet file without holding the event loop, as of a point-in-time snapshot.
 * Tables up to `IN_PROCESS_MAX_ROWS` rows are encoded in place from the table's own columns (rows changed meanwhile
 * from the snapshot's saved copies), a few milliseconds at a time, through buffers the `TableEncoder` keeps between
 * encodes; larger ones are cut into chunks of `CHUNK_ROWS` rows, posted one per event-loop turn to a worker thread
 * (typed arrays transferred, strings packed as UTF-8 bytes — an opened file's rows from its bytes, its cold text
 * never decoded), which assembles them as they come, then sorts, encodes
 * and writes the file on another core, and answers only its path, size and sha256 (the whole file arriving in the
 * main heap set off a full GC of the loaded table: H25-FLUSH).
 *
 * The worker runs the compiled `encode-worker.js` next to this module; when running from the TypeScript sources
 * (tests, benchmarks) that is the one in `dist/` (`npm run build`). Without either, encoding happens in place.
 */
import { rm } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import type { IndexFile } from '../../storage/object-store.js';
import type { EncodeWorkerData } from './encode-worker.js';
import { writeIndexFile } from './index-file.js';
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

/** Encodes the whole table in place into memory (blocking, so nothing changes meanwhile): tests and benchmarks. */
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
 * Encodes tables as they are at the call (writes made meanwhile are not included), one at a time, each into a new
 * file hashed as it is written. The process's heap never holds the whole file: the worker writes its pieces itself.
 */
export class TableEncoder {
  private readonly encoder = new IndexEncoder();
  private busy = false;

  /** Creates `path` (which must not exist) holding the table's file; on any failure `path` is removed. */
  async encode(table: IndexTable, path: string, options: EncodeOptions = {}): Promise<IndexFile> {
    if (this.busy) throw new Error('TableEncoder: one encode at a time');
    this.busy = true;
    let snapshot: TableSnapshot | null = null;
    try {
      const url = workerFile();
      const inWorker = url !== null && table.length > (options.inProcessMaxRows ?? IN_PROCESS_MAX_ROWS);
      // In place, the encoder reads whole columns: an opened file's cold ones are decoded first, a slice per turn.
      if (!inWorker) await table.decodeAll(nextTurn);
      const taken = (snapshot = table.snapshot());
      if (inWorker) return await encodeInWorker(url, taken, path);
      return await writeIndexFile(path, (sink) => runInSlices(this.encoder.steps(taken.view(), sink, taken.changed)));
    } catch (err) {
      await rm(path, { force: true }).catch(() => undefined);
      throw err;
    } finally {
      snapshot?.release();
      this.busy = false;
    }
  }
}

/** Encodes the table as it is now into a new file at `path` (a one-off `TableEncoder`). */
export function encodeTable(table: IndexTable, path: string, options: EncodeOptions = {}): Promise<IndexFile> {
  return new TableEncoder().encode(table, path, options);
}

/**
 * Runs the steps, awaiting those that return a promise (the file's writes), and letting the event loop run
 * whenever `SLICE_MS` have passed.
 */
async function runInSlices(steps: Generator<void | Promise<void>, void>): Promise<void> {
  let sliceStart = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done) return;
    if (step.value !== undefined) {
      await step.value;
      sliceStart = performance.now();
    } else if (performance.now() - sliceStart >= SLICE_MS) {
      await nextTurn();
      sliceStart = performance.now();
    }
  }
}

async function encodeInWorker(url: URL, snapshot: TableSnapshot, path: string): Promise<IndexFile> {
  const workerData: EncodeWorkerData = { rows: snapshot.length, path };
  const worker = new Worker(url, { workerData });
  try {
    const result = new Promise<IndexFile>((resolve, reject) => {
      worker.once('message', (msg: { file?: IndexFile; error?: string }) =>
        msg.file ? resolve(msg.file) : reject(new Error(`index encoder: ${msg.error ?? 'no answer'}`)),
      );
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`index encoder exited (${code})`)));
    });
    result.catch(() => undefined); // observed below; a failure while still posting must not go unhandled
    for (let start = 0; start < snapshot.length; start += CHUNK_ROWS) {
      const end = Math.min(start + CHUNK_ROWS, snapshot.length);
      while (!snapshot.prepare(start, end)) await nextTurn();
      const steps = snapshot.posted(start, end);
      let step = steps.next();
      for (; step.done !== true; step = steps.next()) await nextTurn();
      const chunk = step.value;
      worker.postMessage({ chunk }, chunkBuffers(chunk));
      await nextTurn();
    }
    snapshot.release();
    worker.postMessage({ done: true });
    const file = await result;
    void worker.terminate();
    return file;
  } catch (err) {
    await worker.terminate(); // stopped before the caller removes the file it may be writing
    throw err;
  }
}
