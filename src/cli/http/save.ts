/** Writing a response body to a file (atomically: temp file beside it, then rename) or to a stream. */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { TransportResponse } from './transport.js';

export interface SaveTarget {
  /** Write here (atomically); else to `stream`. */
  readonly file?: string;
  readonly stream?: Writable;
}

/** Streams the body to the target; `onBytes` gets the running total. Resolves to the byte count. */
export async function saveBody(
  res: TransportResponse,
  target: SaveTarget,
  onBytes: (bytes: number) => void = () => undefined,
): Promise<number> {
  let bytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      onBytes(bytes);
      done(null, chunk);
    },
  });
  if (target.file === undefined) {
    const out = target.stream!;
    await pipeline(res.stream, counter, out, { end: false });
    return bytes;
  }
  const tmp = path.join(
    path.dirname(target.file),
    `.${path.basename(target.file)}.${randomBytes(4).toString('hex')}.part`,
  );
  try {
    await pipeline(res.stream, counter, createWriteStream(tmp, { flags: 'wx' }));
    await rename(tmp, target.file);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  return bytes;
}
