/**
 * Worker thread that encodes the index: receives the rows as `ColumnChunk`s (`{ chunk }` messages, in row order),
 * then `{ done: true }`, and answers `{ bytes }` (transferred) or `{ error }`.
 */
import { parentPort } from 'node:worker_threads';
import { HEX_COLUMNS, HEX_SHAPES, type HexColumnName } from './columns.js';
import { encodeColumns } from './parquet-write.js';
import { concatChunks, type ColumnChunk } from './snapshot.js';

const widths = Object.fromEntries(HEX_COLUMNS.map((c) => [c, HEX_SHAPES[c].digits / 2])) as Record<
  HexColumnName,
  number
>;

const port = parentPort;
if (port !== null) {
  let chunks: ColumnChunk[] = [];
  port.on('message', (msg: { chunk?: ColumnChunk; done?: boolean }) => {
    if (msg.chunk) {
      chunks.push(msg.chunk);
      return;
    }
    try {
      const all = concatChunks(chunks, widths);
      chunks = [];
      const bytes = encodeColumns(all);
      port.postMessage({ bytes }, [bytes.buffer as ArrayBuffer]);
    } catch (err) {
      port.postMessage({ error: (err as Error).stack ?? String(err) });
    }
  });
}
