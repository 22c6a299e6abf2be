/**
 * Serialises an `IndexTable` to Parquet without holding the event loop: a point-in-time snapshot is cut into
 * chunks of `CHUNK_ROWS` rows, posted one per event-loop turn to a worker thread (typed arrays transferred), and
 * the worker sorts and encodes. Small tables are encoded in place.
 *
 * The worker runs the compiled `encode-worker.js` next to this module; when running from the TypeScript sources
 * (tests, benchmarks) that is the one in `dist/` (`npm run build`). Without either, encoding happens in place.
 */
import { Worker } from 'node:worker_threads';
import { encodeColumns } from './parquet-write.js';
import { chunkBuffers } from './snapshot.js';
import type { IndexTable } from './table.js';
import { builtWorkerFile } from '../../worker-file.js';

export const CHUNK_ROWS = 8_192;
/** Tables up to this many rows encode in place (a few ms). */
export const IN_PROCESS_MAX_ROWS = 20_000;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

const workerFile = (): URL | null => builtWorkerFile(import.meta.url, 'encode-worker.js');

/** Encodes the whole table in place (blocking). */
export function encodeTableSync(table: IndexTable): Uint8Array {
  const snapshot = table.snapshot();
  try {
    return encodeColumns(snapshot.chunk(0, snapshot.length));
  } finally {
    snapshot.release();
  }
}

export interface EncodeOptions {
  /** Encode in place up to this many rows (default `IN_PROCESS_MAX_ROWS`). */
  readonly inProcessMaxRows?: number;
}

/** Encodes the table as it is now; writes made meanwhile are not included. */
export async function encodeTable(table: IndexTable, options: EncodeOptions = {}): Promise<Buffer> {
  const url = workerFile();
  if (url === null || table.length <= (options.inProcessMaxRows ?? IN_PROCESS_MAX_ROWS)) {
    const bytes = encodeTableSync(table);
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  const snapshot = table.snapshot();
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
    const bytes = await result;
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  } finally {
    snapshot.release();
    void worker.terminate();
  }
}
