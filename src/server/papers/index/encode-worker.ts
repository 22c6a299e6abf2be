/**
 * Worker thread that encodes the index (`workerData`: `{ rows, path }`): receives the rows as `PostedChunk`s
 * (`{ chunk }` messages, in row order; strings as UTF-8 bytes), assembling them as they come, then `{ done: true }`;
 * writes the file to `path` page by page while hashing it, and answers `{ file }` (its path, size and sha256: the
 * bytes never leave this thread) or `{ error }`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { HEX_COLUMNS, HEX_SHAPES, type HexColumnName } from './columns.js';
import { writeIndexFileSync } from './index-file.js';
import { IndexEncoder, runToEnd } from './parquet-write.js';
import { ChunkAssembler, type PostedChunk } from './snapshot.js';

export interface EncodeWorkerData {
  readonly rows: number;
  readonly path: string;
}

const widths = Object.fromEntries(HEX_COLUMNS.map((c) => [c, HEX_SHAPES[c].digits / 2])) as Record<
  HexColumnName,
  number
>;

const port = parentPort;
if (port !== null) {
  const { rows, path } = workerData as EncodeWorkerData;
  let assembler: ChunkAssembler | null = new ChunkAssembler(rows, widths);
  port.on('message', (msg: { chunk?: PostedChunk; done?: boolean }) => {
    try {
      if (msg.chunk) {
        assembler!.add(msg.chunk);
        return;
      }
      const all = assembler!.result();
      assembler = null;
      const file = writeIndexFileSync(path, (sink) => runToEnd(new IndexEncoder().steps(all, sink)));
      port.postMessage({ file });
    } catch (err) {
      port.postMessage({ error: (err as Error).stack ?? String(err) });
    }
  });
}
